package io.quiver.store.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore.ObjectWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer killed mid-write ({@code kill -9}) leaves its temp file: the local store reports it, and deletes
 * it, only once it is older than the bound the caller gives (cleanup's safety window); a live writer's file
 * is young and stays.
 */
class LocalTemporariesTest {
  @TempDir Path dir;

  /** What a killed writer leaves: the store's own writer, opened and written, never closed nor aborted. */
  private static Path killedWriter(LocalObjectStore store, String key, int bytes) throws IOException {
    ObjectWriter w = store.openWriter(key);
    w.write(new byte[bytes]);
    w.flush();
    try (Stream<Path> files = Files.list(store.root().resolve(key).getParent())) {
      Path temp = files.filter(p -> p.getFileName().toString().startsWith(LocalObjectStore.TEMP_PREFIX))
          .findFirst().orElseThrow();
      return temp;
    }
  }

  @Test
  void abandonedTempFilesAreFoundAndDeletedOnlyOnceOld() throws Exception {
    LocalObjectStore store = new LocalObjectStore(dir.resolve("t"), false);
    store.write("data/kept.arrow", new byte[3]);
    Path old = killedWriter(store, "data/a.arrow", 100_000);
    Path young = killedWriter(store, "_versions/b.manifest", 10);
    Instant now = Instant.now();
    Files.setLastModifiedTime(old, FileTime.from(now.minus(Duration.ofHours(2))));
    long oldSize = Files.size(old);

    Instant window = now.minus(Duration.ofHours(1));
    List<ObjectInfo> found = store.abandonedTemporaries(window);
    assertThat(found.size()).isEqualTo(1);
    assertThat(found.get(0).key()).isEqualTo("data/" + old.getFileName());
    assertThat(found.get(0).size()).isEqualTo(oldSize);
    assertThat(store.listAll("").stream().map(ObjectInfo::key)).containsExactly("data/kept.arrow");

    assertThat(store.deleteAbandonedTemporaries(window)).isEqualTo(found);
    assertThat(old).doesNotExist();
    assertThat(young).exists();
    assertThat(store.abandonedTemporaries(window)).isEqualTo(List.of());

    // Later, the young one is old too.
    assertThat(store.deleteAbandonedTemporaries(now.plus(Duration.ofMinutes(1))).size()).isEqualTo(1);
    assertThat(young).doesNotExist();
    assertThat(store.root().resolve("data/kept.arrow")).exists();
  }

  @Test
  void aStoreWithoutARootHasNoTemporaries() {
    LocalObjectStore store = new LocalObjectStore(dir.resolve("never-written"));
    assertThat(store.abandonedTemporaries(Instant.now())).isEqualTo(List.of());
    assertThat(store.deleteAbandonedTemporaries(Instant.now())).isEqualTo(List.of());
  }
}
