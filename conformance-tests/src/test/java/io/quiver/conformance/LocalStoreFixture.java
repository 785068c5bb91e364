package io.quiver.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;

/** The local file system adapter, tables under one temporary directory per JVM (deleted at exit). */
public final class LocalStoreFixture implements StoreFixture {
  public static final LocalStoreFixture INSTANCE = new LocalStoreFixture();
  private Path root;

  private LocalStoreFixture() {}

  private synchronized Path root() {
    if (root == null) {
      try {
        root = Files.createTempDirectory("quiver-conformance-");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Path dir = root;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir)));
    }
    return root;
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort at exit
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
}
