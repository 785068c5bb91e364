package io.quiver.store;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
  private static final class NonClosing implements ObjectStore {
    private final ObjectStore d;

    NonClosing(ObjectStore d) {
      this.d = d;
    }

    @Override
    public String location() {
      return d.location();
    }

    @Override
    public byte[] read(String key) {
      return d.read(key);
    }

    @Override
    public byte[] readRange(String key, long offset, int length) {
      return d.readRange(key, offset, length);
    }

    @Override
    public Optional<ObjectInfo> head(String key) {
      return d.head(key);
    }

    @Override
    public void write(String key, byte[] data) {
      d.write(key, data);
    }

    @Override
    public ObjectWriter openWriter(String key) {
      return d.openWriter(key);
    }

    @Override
    public PutResult putIfAbsent(String key, byte[] data) {
      return d.putIfAbsent(key, data);
    }

    @Override
    public ListPage list(String prefix, Optional<String> startAfter, int maxKeys) {
      return d.list(prefix, startAfter, maxKeys);
    }

    @Override
    public void delete(String key) {
      d.delete(key);
    }

    @Override
    public List<String> deleteAll(java.util.Collection<String> keys) {
      return d.deleteAll(keys);
    }

    @Override
    public void close() {}
  }
}
