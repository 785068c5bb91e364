package io.quiver.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/** Test providers that hand out a store the test controls, under a scheme of the test's choice. */
public final class TestStores {
  private TestStores() {}

  /** A provider for {@code scheme} whose {@code open} returns {@code store.get()}, whatever the URI. */
  public static ObjectStoreProvider provider(String scheme, Supplier<? extends ObjectStore> store) {
    return new ObjectStoreProvider() {
      @Override
      public Set<String> schemes() {
        return Set.of(scheme);
      }

      @Override
      public ObjectStore open(URI uri, Map<String, String> options) {
        return store.get();
      }
    };
  }

  /** A registry serving only {@code scheme}, backed by {@code store}. */
  public static ObjectStores registry(String scheme, ObjectStore store) {
    return ObjectStores.empty().register(provider(scheme, () -> store));
  }

  /**
   * The store, except that {@code close()} does nothing: for handing one store to several dataset handles
   * (each closes its store) while the test closes the real one at the end.
   */
  public static ObjectStore keepOpen(ObjectStore store) {
    return new NonClosing(store);
  }

  /** The store under test, shared by every handle of the scenario: closing a handle leaves it open. */
  private static final class NonClosing extends ForwardingObjectStore {
    NonClosing(ObjectStore d) {
      super(d);
    }

    @Override
    public void close() {}
  }

  /**
   * Writes every regular file under {@code root} into {@code store}, keyed by its path relative to {@code root}
   * ('/'-separated): a table copied from the test resources (the compatibility fixtures). Returns {@code store}.
   */
  public static MemoryObjectStore loadDirectory(MemoryObjectStore store, Path root) {
    try (java.util.stream.Stream<Path> files = Files.walk(root)) {
      files.filter(Files::isRegularFile).forEach(f -> {
        try {
          store.write(root.relativize(f).toString().replace('\\', '/'), Files.readAllBytes(f));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return store;
  }
}
