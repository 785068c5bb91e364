package io.quiver.conformance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore.ObjectWriter;
import io.quiver.store.ObjectStore;
import io.quiver.store.local.LocalObjectStore;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The contract on the local file system, plus what only a file system can get wrong. */
class LocalObjectStoreContractTest extends ObjectStoreContractTest {
  @TempDir Path tempDir;

  @Override
  protected ObjectStore newStore(String name) {
    return new LocalObjectStore(tempDir.resolve(name));
  }

  @Override
  protected boolean supportsNonAsciiKeys() {
    String encoding = System.getProperty("sun.jnu.encoding", "UTF-8");
    return Charset.isSupported(encoding) && Charset.forName(encoding).newEncoder().canEncode("\u00e9\ue000\uD83D\uDE00");
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
}
