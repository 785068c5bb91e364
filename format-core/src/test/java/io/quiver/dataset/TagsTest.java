package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.NotFoundException;
import io.quiver.exceptions.TagAlreadyExistsException;
import io.quiver.exceptions.TagNotFoundException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.internal.codec.RefCodec;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TagsTest {
  private static final String URI_ = "test://tags";
  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");
  private RootAllocator allocator;
  private MemoryObjectStore store;
  private CleanupTestClock clock;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    clock = new CleanupTestClock(T0);
    store = new MemoryObjectStore(URI_, clock);
    ObjectStoreProvider provider =
        TestStores.provider("test", () -> store);
    options =
        DatasetOptions.builder()
            .allocator(allocator)
            .session(new Session(1 << 20))
            .registry(ObjectStores.empty().register(provider))
            .rowsPerBatch(16)
            .clock(clock)
            .build();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** A table with versions 1 (ids 0..40), 2 (0..65), 3 (0..66). */
  private Dataset threeVersions() {
    Dataset ds;
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 40)) {
      ds = Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
    append(ds, 40, 25);
    append(ds, 65, 1);
    return ds;
  }

  private void append(Dataset ds, long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      ds.append(List.of(b));
    }
  }

  @Test
  void tagsNameVersionsListSortedAndCheckOut() {
    try (Dataset ds = threeVersions()) {
      ds.tags().create("release-1.0", 1);
      ds.tags().create("a_nightly", 2);
      ds.tags().create("Z.3", 3);
      assertThat(List.copyOf(ds.tags().list().keySet())).isEqualTo(List.of("Z.3", "a_nightly", "release-1.0"));
      assertThat(ds.tags().list()).isEqualTo(Map.of("release-1.0", 1L, "a_nightly", 2L, "Z.3", 3L));
      assertThat(ds.tags().version("a_nightly")).isEqualTo(2);
      try (Dataset v1 = ds.checkout("release-1.0")) {
        assertThat(v1.version()).isEqualTo(1);
        assertThat(scanIds(v1.newScan().open())).isEqualTo(range(0, 40));
      }
      try (Dataset v2 = ds.checkout("a_nightly")) {
        assertThat(scanIds(v2.newScan().open())).isEqualTo(range(0, 65));
      }
    }
    // Tags are on storage: a new handle sees them.
    try (Dataset reopened = Dataset.open(URI_, options)) {
      assertThat(reopened.tags().list().size()).isEqualTo(3);
      try (Dataset v1 = reopened.checkout("release-1.0")) {
        assertThat(v1.countRows()).isEqualTo(40);
      }
    }
  }

  @Test
  void creatingAnExistingTagFailsAndLeavesItUnchanged() {
    try (Dataset ds = threeVersions(); Dataset other = Dataset.open(URI_, options)) {
      ds.tags().create("prod", 2);
      TagAlreadyExistsException e =
          assertThatExceptionOfType(TagAlreadyExistsException.class).isThrownBy(() -> other.tags().create("prod", 3)).actual();
      assertThat(e.tag()).isEqualTo("prod");
      assertThat(e.getMessage()).contains("prod").contains("version 2").contains("delete it first");
      assertThatExceptionOfType(TagAlreadyExistsException.class).isThrownBy(() -> ds.tags().create("prod", 2));
      assertThat(ds.tags().list()).isEqualTo(Map.of("prod", 2L));
    }
  }

  @Test
  void taggingAMissingVersionFailsAndCreatesNothing() {
    try (Dataset ds = threeVersions()) {
      VersionNotFoundException e = assertThatExceptionOfType(VersionNotFoundException.class).isThrownBy(() -> ds.tags().create("future", 4)).actual();
      assertThat(e.version()).isEqualTo(4);
      assertThatExceptionOfType(VersionNotFoundException.class).isThrownBy(() -> ds.tags().create("zero", 0));
      assertThat(ds.tags().list()).isEqualTo(Map.of());
      assertThat(store.listAll(io.quiver.internal.table.TagStore.TAGS_PREFIX)).isEmpty();
    }
  }

  @Test
  void invalidNamesAreRejected() {
    try (Dataset ds = threeVersions()) {
      for (String bad : Arrays.asList("", "a/b", "..", ".", "x".repeat(129), "with space", "caf\u00e9", "a:b", "a\\b",
          null)) {
        assertThatExceptionOfType(InvalidArgumentException.class).as("name " + bad).isThrownBy(() -> ds.tags().create(bad, 1));
        assertThatExceptionOfType(InvalidArgumentException.class).as("name " + bad).isThrownBy(() -> ds.tags().delete(bad));
        assertThatExceptionOfType(InvalidArgumentException.class).as("name " + bad).isThrownBy(() -> ds.checkout(bad));
      }
      String longest = "x".repeat(128);
      ds.tags().create(longest, 1);
      ds.tags().create("...x", 1);
      assertThat(ds.tags().list()).isEqualTo(Map.of(longest, 1L, "...x", 1L));
    }
  }

  @Test
  void deleteRemovesTheTagButNotTheVersion() {
    try (Dataset ds = threeVersions()) {
      ds.tags().create("keep", 1);
      ds.tags().create("drop", 1);
      ds.tags().delete("drop");
      assertThat(ds.tags().list()).isEqualTo(Map.of("keep", 1L));
      TagNotFoundException missing = assertThatExceptionOfType(TagNotFoundException.class).isThrownBy(() -> ds.tags().delete("drop")).actual();
      assertThat(missing.tag()).isEqualTo("drop");
      assertThat(missing).isInstanceOf(NotFoundException.class);
      assertThatExceptionOfType(TagNotFoundException.class).isThrownBy(() -> ds.checkout("drop"));
      assertThatExceptionOfType(TagNotFoundException.class).isThrownBy(() -> ds.tags().version("never"));
      try (Dataset v1 = ds.checkout(1)) {
        assertThat(v1.countRows()).isEqualTo(40);
      }
      // The name can be taken again, for another version.
      ds.tags().create("drop", 3);
      assertThat(ds.tags().version("drop")).isEqualTo(3);
    }
  }

  @Test
  void tagFilesAreChecksummedEnvelopes() {
    try (Dataset ds = threeVersions()) {
      clock.advance(java.time.Duration.ofMinutes(5));
      ds.tags().create("t", 2);
      byte[] bytes = store.read("_refs/tags/t.tag");
      assertThat(Arrays.copyOf(bytes, 4)).containsExactly("QVG1".getBytes(StandardCharsets.US_ASCII));
      RefCodec.TagRef decoded = RefCodec.decodeTag(bytes, "t");
      assertThat(decoded.version()).isEqualTo(2);
      assertThat(decoded.created()).isEqualTo(T0.plus(java.time.Duration.ofMinutes(5)));
      assertThat(RefCodec.encodeTag(decoded)).containsExactly(bytes);

      byte[] flipped = bytes.clone();
      flipped[flipped.length - 1] ^= 1;
      store.write("_refs/tags/t.tag", flipped);
      CorruptFileException e = assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> ds.checkout("t")).actual();
      assertThat(e.path()).endsWith("_refs/tags/t.tag");
      assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> ds.tags().list());
      assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> RefCodec.decodeTag(Arrays.copyOf(bytes, 5), "short"));
      assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> RefCodec.decodeTag(store.read(
          io.quiver.store.ObjectStoreCommitStore.manifestKey(1)), "a manifest"));
    }
  }

  @Test
  void filesUnderTheTagsPrefixThatAreNotTagsAreIgnored() {
    try (Dataset ds = threeVersions()) {
      ds.tags().create("real", 1);
      store.write("_refs/tags/notes.txt", new byte[] {1, 2});
      store.write("_refs/tags/bad name.tag", new byte[] {1, 2});
      assertThat(ds.tags().list()).isEqualTo(Map.of("real", 1L));
    }
  }
}
