package io.quiver.conformance;

import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The local file system adapter, tables and stores under one temporary directory per fixture (so per test
 * class), deleted when the fixture is closed.
 */
public class LocalStoreFixture implements StoreFixture {
  private Path root;

  private synchronized Path root() {
    if (root == null) {
      try {
        root = Files.createTempDirectory("quiver-conformance-");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return root;
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort
    }
  }

  @Override
  public String name() {
    return "local";
  }

  @Override
  public String newTableUri() {
    return root().resolve("table-" + UUID.randomUUID()).toUri().toString();
  }

  @Override
  public ObjectStore newStore(String name, Map<String, String> extraOptions) {
    Map<String, String> options = new HashMap<>(storeOptions());
    options.putAll(extraOptions);
    return ObjectStores.defaultRegistry().open(root().resolve(name).toString(), options);
  }

  @Override
  public Optional<String> lacks(Capability capability) {
    if (capability == Capability.NON_ASCII_KEYS) {
      String encoding = System.getProperty("sun.jnu.encoding", "UTF-8");
      boolean encodable = Charset.isSupported(encoding)
          && Charset.forName(encoding).newEncoder().canEncode("\u00e9\ue000\uD83D\uDE00");
      if (!encodable) {
        return Optional.of("file names are encoded in " + encoding + ", which cannot encode every key outside ASCII");
      }
    }
    return Optional.empty();
  }

  @Override
  public Latency latency() {
    return Latency.LOCAL;
  }

  @Override
  public synchronized void close() {
    if (root != null) {
      deleteTree(root);
      root = null;
    }
  }
}
