package io.quiver.conformance.local;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
  void rootIsCreatedOnFirstWriteAndKeysAreFiles() throws Exception {
    assertThat(Files.notExists(root())).isTrue();
    store.write("a/b/c.bin", "x".getBytes(UTF_8));
    assertThat(Files.readAllBytes(root().resolve("a/b/c.bin"))).containsExactly("x".getBytes(UTF_8));
    assertThat(store.location()).isEqualTo(root().toUri().toString().replaceAll("/$", ""));
  }

  @Test
  void noTempFilesAreLeftBehind() throws Exception {
    store.write("w", new byte[10]);
    store.putIfAbsent("p", new byte[10]);
    store.putIfAbsent("p", new byte[10]);
    ObjectWriter aborted = store.openWriter("dir/aborted");
    aborted.write(new byte[100]);
    aborted.abort();
    try (ObjectWriter w = store.openWriter("dir/closed")) {
      w.write(new byte[100]);
    }
    assertThat(filesUnderRoot().stream().sorted().toList()).isEqualTo(List.of(root().resolve("dir/closed"), root().resolve("p"), root().resolve("w")));
  }

  @Test
  void tempFilesOfWritersInProgressAreInvisible() throws Exception {
    ObjectWriter w = store.openWriter("dir/obj");
    w.write(new byte[100]);
    store.write("dir/other", new byte[1]);
    try (Stream<Path> dir = Files.list(root().resolve("dir"))) {
      assertThat(dir.count()).as("temp file plus the object").isEqualTo(2);
    }
    assertThat(store.listAll("").stream().map(ObjectInfo::key).toList()).isEqualTo(List.of("dir/other"));
    w.abort();
  }

  @Test
  void keysNamedLikeTempFilesAreRefused() {
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> store.write("a/" + LocalObjectStore.TEMP_PREFIX + "x", new byte[0]));
  }

  @Test
  void filesOutsideTheRootStayInvisible() throws Exception {
    Files.createDirectories(root().getParent());
    Files.writeString(root().getParent().resolve("sibling-secret"), "no");
    store.write("in", new byte[1]);
    assertThat(store.listAll("").stream().map(ObjectInfo::key).toList()).isEqualTo(List.of("in"));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> store.read("../sibling-secret"));
  }

  @Test
  void theFsyncOptionIsABooleanAndItsValueIsNamedWhenWrong() {
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ObjectStores.defaultRegistry()
        .open(tempDir.resolve("x").toString(), Map.of(LocalObjectStoreProvider.FSYNC, "sometimes"))).actual();
    assertThat(e.getMessage().contains("local.fsync") && e.getMessage().contains("sometimes")).as(e.getMessage()).isTrue();
    try (ObjectStore durable = ObjectStores.defaultRegistry()
        .open(tempDir.resolve("y").toString(), Map.of(LocalObjectStoreProvider.FSYNC, "TRUE"))) {
      durable.write("k", "v".getBytes(StandardCharsets.UTF_8));
      assertThat(durable.read("k")).containsExactly("v".getBytes(StandardCharsets.UTF_8));
      assertThat(durable).isInstanceOf(LocalObjectStore.class);
    }
  }
}
