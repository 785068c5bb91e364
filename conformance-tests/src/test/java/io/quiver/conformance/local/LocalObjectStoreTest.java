package io.quiver.conformance.local;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore.ObjectWriter;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.local.LocalObjectStore;
import io.quiver.store.local.LocalObjectStoreProvider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only a file system can get wrong, on the local store; the store contract itself runs on the local
 * fixture in the matrix ({@code ObjectStoreContractTest}, with and without fsync).
 */
class LocalObjectStoreTest {
  @TempDir Path tempDir;
  private ObjectStore store;

  @BeforeEach
  void openStore() {
    store = new LocalObjectStore(tempDir.resolve("store"));
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  private Path root() {
    return ((LocalObjectStore) store).root();
  }

  private List<Path> filesUnderRoot() throws IOException {
    if (!Files.exists(root())) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(root())) {
      return files.filter(Files::isRegularFile).toList();
    }
  }

  @Test
  void rootIsCreatedOnFirstWriteAndKeysAreFiles() throws IOException {
    assertTrue(Files.notExists(root()));
    store.write("a/b/c.bin", "x".getBytes(UTF_8));
    assertArrayEquals("x".getBytes(UTF_8), Files.readAllBytes(root().resolve("a/b/c.bin")));
    assertEquals(root().toUri().toString().replaceAll("/$", ""), store.location());
  }

  @Test
  void noTempFilesAreLeftBehind() throws IOException {
    store.write("w", new byte[10]);
    store.putIfAbsent("p", new byte[10]);
    store.putIfAbsent("p", new byte[10]);
    ObjectWriter aborted = store.openWriter("dir/aborted");
    aborted.write(new byte[100]);
    aborted.abort();
    try (ObjectWriter w = store.openWriter("dir/closed")) {
      w.write(new byte[100]);
    }
    assertEquals(
        List.of(root().resolve("dir/closed"), root().resolve("p"), root().resolve("w")),
        filesUnderRoot().stream().sorted().toList());
  }

  @Test
  void tempFilesOfWritersInProgressAreInvisible() throws IOException {
    ObjectWriter w = store.openWriter("dir/obj");
    w.write(new byte[100]);
    store.write("dir/other", new byte[1]);
    try (Stream<Path> dir = Files.list(root().resolve("dir"))) {
      assertEquals(2, dir.count(), "temp file plus the object");
    }
    assertEquals(List.of("dir/other"), store.listAll("").stream().map(ObjectInfo::key).toList());
    w.abort();
  }

  @Test
  void keysNamedLikeTempFilesAreRefused() {
    assertThrows(InvalidArgumentException.class, () -> store.write("a/" + LocalObjectStore.TEMP_PREFIX + "x", new byte[0]));
  }

  @Test
  void filesOutsideTheRootStayInvisible() throws IOException {
    Files.createDirectories(root().getParent());
    Files.writeString(root().getParent().resolve("sibling-secret"), "no");
    store.write("in", new byte[1]);
    assertEquals(List.of("in"), store.listAll("").stream().map(ObjectInfo::key).toList());
    assertThrows(InvalidArgumentException.class, () -> store.read("../sibling-secret"));
  }

  @Test
  void theFsyncOptionIsABooleanAndItsValueIsNamedWhenWrong() {
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> ObjectStores.defaultRegistry()
        .open(tempDir.resolve("x").toString(), Map.of(LocalObjectStoreProvider.FSYNC, "sometimes")));
    assertTrue(e.getMessage().contains("local.fsync") && e.getMessage().contains("sometimes"), e.getMessage());
    try (ObjectStore durable = ObjectStores.defaultRegistry()
        .open(tempDir.resolve("y").toString(), Map.of(LocalObjectStoreProvider.FSYNC, "TRUE"))) {
      durable.write("k", "v".getBytes(StandardCharsets.UTF_8));
      assertArrayEquals("v".getBytes(StandardCharsets.UTF_8), durable.read("k"));
      assertTrue(durable instanceof LocalObjectStore);
    }
  }
}
