package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.TableNotFoundException;
import io.quiver.store.CommitStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link CommitStore} port is the only way the core reaches versions: with a commit store that keeps
 * versions outside the object store (as one backed by a database would), a table is created, appended to,
 * tagged, time-travelled, validated and cleaned up, and the object store never holds a version.
 */
class CommitStorePortTest {
  private static final String URI_ = "test://port";
  private RootAllocator allocator;
  private MemoryObjectStore store;
  private VersionsInAMap commits;
  private DatasetOptions options;

  /** Versions in a sorted map, claimed atomically with {@code putIfAbsent}; nothing in the object store. */
  static final class VersionsInAMap implements CommitStore {
    final NavigableMap<Long, byte[]> versions = new ConcurrentSkipListMap<>();

    @Override
    public ClaimResult claim(long version, byte[] manifestBytes) {
      return versions.putIfAbsent(version, manifestBytes.clone()) == null ? ClaimResult.CLAIMED
          : ClaimResult.ALREADY_CLAIMED;
    }

    @Override
    public Optional<byte[]> read(long version) {
      return Optional.ofNullable(versions.get(version)).map(byte[]::clone);
    }

    @Override
    public Optional<Long> latestVersion() {
      return versions.isEmpty() ? Optional.empty() : Optional.of(versions.lastKey());
    }

    @Override
    public List<Long> listVersions(int limit) {
      return versions.descendingKeySet().stream().limit(limit).toList();
    }

    @Override
    public List<Long> versionsAfter(long afterVersion) {
      return new ArrayList<>(versions.tailMap(afterVersion, false).keySet());
    }

    @Override
    public void remove(long version) {
      versions.remove(version);
    }

    @Override
    public String locationOf(long version) {
      return "db://versions/" + version;
    }

    @Override
    public String location() {
      return "db://versions";
    }
  }

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(URI_);
    commits = new VersionsInAMap();
    options = DatasetOptions.builder()
        .allocator(allocator)
        .registry(ObjectStores.empty().register(TestStores.provider("test", () -> TestStores.keepOpen(store))))
        .session(new Session(1 << 20))
        .commitStore(ignored -> commits)
        .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
        .build();
  }

  @AfterEach
  void tearDown() {
    store.close();
    allocator.close();
  }

  @Test
  void aTableLivesThroughTheCommitStoreOnly() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 10)) {
      try (Dataset ds = Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options)) {
        try (VectorSchemaRoot more = SampleTable.batch(allocator, 10, 5)) {
          assertThat(ds.append(List.of(more))).isEqualTo(2);
        }
        ds.tags().create("first", 1);
        assertThat(ds.versions().stream().map(VersionInfo::version).toList()).isEqualTo(List.of(2L, 1L));
        assertThat(ds.validate().problems()).isEmpty();
      }
    }
    try (Dataset ds = Dataset.open(URI_, options)) {
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(0, 15));
      assertThat(scanIds(ds.checkout("first").newScan().open())).isEqualTo(range(0, 10));
      CleanupReport report = ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).build());
      assertThat(report.versionsRemoved()).as("the latest and the tagged version are kept").isEqualTo(List.of());
    }
    assertThat(new ArrayList<>(commits.versions.keySet())).isEqualTo(List.of(1L, 2L));
    List<String> keys = store.listAll("").stream().map(ObjectInfo::key).toList();
    assertThat(keys).noneMatch(k -> k.startsWith("_versions/"));
    assertThat(keys).anyMatch(k -> k.startsWith("data/")).anyMatch(k -> k.startsWith("_transactions/"));
  }

  @Test
  void cleanupRemovesVersionsThroughThePort() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 10)) {
      try (Dataset ds = Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options)) {
        try (VectorSchemaRoot more = SampleTable.batch(allocator, 10, 5)) {
          ds.overwrite(SampleTable.SCHEMA, List.of(more));
        }
        CleanupReport report = ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO)
            .safetyWindow(Duration.ZERO).build());
        assertThat(report.versionsRemoved()).isEqualTo(List.of(1L));
        assertThat(new ArrayList<>(commits.versions.keySet())).isEqualTo(List.of(2L));
        assertThat(scanIds(ds.newScan().open())).isEqualTo(range(10, 15));
      }
    }
  }

  @Test
  void aMissingTableNamesWhereTheCommitStoreLooked() {
    TableNotFoundException e = assertThatExceptionOfType(TableNotFoundException.class).isThrownBy(() -> Dataset.open(URI_, options)).actual();
    assertThat(e.getMessage()).contains("db://versions");
    assertThat(Collections.unmodifiableMap(commits.versions)).isEqualTo(Map.of());
  }
}
