package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.StaleReadVersionException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.internal.maintenance.Cleaner;
import io.quiver.internal.table.CommitLoop;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.Transaction;
import io.quiver.internal.write.FragmentWriter;
import io.quiver.manifest.DeletionFile;
import io.quiver.manifest.Manifest;
import io.quiver.scenario.CommitScenarios;
import io.quiver.scenario.ScenarioTable;
import io.quiver.store.FaultInjectingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.buffer.MutableRoaringBitmap;

class CleanupTest {
  private static final String URI_ = "test://cleanup";
  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");
  private static final Duration DAY = Duration.ofDays(1);
  private RootAllocator allocator;
  private CleanupTestClock clock;
  private MemoryObjectStore memory;
  private FaultInjectingObjectStore store;
  private Session session;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    clock = new CleanupTestClock(T0);
    memory = new MemoryObjectStore(URI_, clock);
    store = new FaultInjectingObjectStore(memory);
    session = new Session(1 << 20);
    ObjectStoreProvider provider =
        TestStores.provider("test", () -> store);
    options =
        DatasetOptions.builder()
            .allocator(allocator)
            .session(session)
            .registry(ObjectStores.empty().register(provider))
            .rowsPerBatch(16)
            .clock(clock)
            .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
            .build();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  // ---------------------------------------------------------------- helpers

  private Dataset create(long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  private long append(Dataset ds, long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return ds.append(List.of(b));
    }
  }

  private long overwrite(Dataset ds, long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return ds.overwrite(SampleTable.SCHEMA, List.of(b));
    }
  }

  /**
   * Commits a delete of {@code offsets} of fragment {@code fragmentId} on top of {@code base} through the
   * real commit loop (this branch has no public delete): writes a portable RoaringBitmap deletion file.
   */
  static Manifest commitDelete(ObjectStore store, Session session, Clock clock, Manifest base, long fragmentId,
      int... offsets) {
    RoaringBitmap bitmap = RoaringBitmap.bitmapOf(offsets);
    ByteBuffer buffer = ByteBuffer.allocate(bitmap.serializedSizeInBytes());
    bitmap.serialize(buffer);
    String path = DeletionFile.DELETIONS_PREFIX + UUID.randomUUID() + ".bin";
    store.write(path, buffer.array());
    DeletionFile file = new DeletionFile(path, bitmap.getLongCardinality(), buffer.array().length);
    Operation.Delete delete =
        new Operation.Delete(
            List.of(new Operation.FragmentDeletion(
                fragmentId, Optional.empty(), file, MutableRoaringBitmap.bitmapOf(offsets))),
            Set.of(), "test delete");
    Transaction txn = new Transaction(UUID.randomUUID().toString(), base.version(), delete, Map.of());
    TableIo io = new TableIo(store, new ObjectStoreCommitStore(store), session);
    return new CommitLoop(io, CommitOptions.defaults(), clock).commit(txn, Optional.of(base));
  }

  private Map<String, Long> sizes(String prefix) {
    Map<String, Long> out = new java.util.TreeMap<>();
    for (ObjectInfo info : memory.listAll(prefix)) {
      out.put(info.key(), info.size());
    }
    return out;
  }

  private long size(String key) {
    return memory.head(key).orElseThrow().size();
  }

  private Set<String> allKeys() {
    Set<String> out = new HashSet<>();
    memory.listAll("").forEach(i -> out.add(i.key()));
    return out;
  }

  private void assertReferencedFilesExist(Dataset ds, long version) {
    try (Dataset v = ds.checkout(version)) {
      for (String key : Cleaner.referencedBy(v.manifest())) {
        assertThat(memory.head(key).isPresent()).as("version " + version + " references " + key + ", which is gone").isTrue();
      }
      assertThat(v.validate().isValid()).as(() -> "version " + version + ": " + v.validate()).isTrue();
    }
  }

  private static void assertNothingRemoved(CleanupReport r) {
    assertThat(r.versionsRemoved()).isEqualTo(List.of());
    assertThat(r.filesRemoved()).isEqualTo(0);
    assertThat(r.bytesFreed()).isEqualTo(0);
    assertThat(r.failed()).isEqualTo(List.of());
  }

  // ---------------------------------------------------------------- tests

  @Test
  void removesExpiredVersionsAndExactlyTheFilesNoKeptVersionReferences() {
    try (Dataset ds = create(0, 40)) { // v1: A
      clock.advance(DAY);
      overwrite(ds, 100, 30); // v2: B
      clock.advance(DAY);
      append(ds, 130, 10); // v3: B C
      clock.advance(DAY);
      overwrite(ds, 200, 10); // v4: D
      clock.advance(DAY);
      append(ds, 210, 10); // v5: D E
      ds.tags().create("keep", 2);
      clock.advance(Duration.ofDays(6).plusHours(1)); // v5 is 6 days old, v4 7 days and an hour

      Map<Long, String> dataOf = new java.util.HashMap<>();
      Map<Long, String> txnOf = new java.util.HashMap<>();
      Map<Long, String> rootOf = new java.util.HashMap<>();
      for (long v = 1; v <= 5; v++) {
        try (Dataset h = ds.checkout(v)) {
          dataOf.put(v, h.manifest().fragments().get(h.manifest().fragments().size() - 1).files().get(0).path());
          txnOf.put(v, h.manifest().transactionPath());
          rootOf.put(v, io.quiver.internal.codec.MetadataCodec.rootPath(v, h.manifest().transactionUuid()));
        }
      }
      long expectedBytes = size(dataOf.get(1L)) + size(dataOf.get(3L));
      for (long v : List.of(1L, 3L, 4L)) {
        expectedBytes += size(txnOf.get(v)) + size(ObjectStoreCommitStore.manifestKey(v)) + size(rootOf.get(v));
      }

      CleanupReport report = ds.cleanup(CleanupOptions.builder().olderThan(Duration.ofDays(7)).build());

      assertThat(report.versionsRemoved()).isEqualTo(List.of(1L, 3L, 4L));
      assertThat(report.manifestsRemoved()).isEqualTo(3);
      assertThat(report.transactionFilesRemoved()).isEqualTo(3);
      assertThat(report.dataFilesRemoved()).isEqualTo(2);
      assertThat(report.deletionFilesRemoved()).isEqualTo(0);
      assertThat(report.segmentFilesRemoved()).as("the removed versions' roots").isEqualTo(3);
      assertThat(report.filesRemoved()).isEqualTo(11);
      assertThat(report.bytesFreed()).isEqualTo(expectedBytes);
      assertThat(report.failed()).isEqualTo(List.of());
      assertThat(report.dryRun()).isFalse();

      assertThat(ds.versions().stream().map(VersionInfo::version).toList()).isEqualTo(List.of(5L, 2L));
      for (long v : List.of(1L, 3L)) {
        assertThat(memory.head(dataOf.get(v)).isPresent()).as("data file of removed version " + v).isFalse();
      }
      for (long v : List.of(1L, 3L, 4L)) {
        assertThat(memory.head(txnOf.get(v)).isPresent()).as("transaction file of removed version " + v).isFalse();
        final long removed = v;
        assertThatExceptionOfType(VersionNotFoundException.class).isThrownBy(() -> ds.checkout(removed));
      }
      assertReferencedFilesExist(ds, 2);
      assertReferencedFilesExist(ds, 5);
      try (Dataset v2 = ds.checkout("keep")) {
        assertThat(scanIds(v2.newScan().open())).isEqualTo(range(100, 130));
      }
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(200, 220));

      // A second run finds nothing more to do.
      assertNothingRemoved(ds.cleanup(CleanupOptions.builder().olderThan(Duration.ofDays(7)).build()));
    }
  }

  @Test
  void neverRemovesTheLatestOrATaggedVersionAndTheirDeletionFiles() {
    Manifest afterDelete;
    try (Dataset ds = create(0, 40)) { // v1
      afterDelete = commitDelete(store, session, clock, ds.manifest(), 0, 0, 1, 2, 39); // v2
    }
    String deletionFile = afterDelete.fragments().get(0).deletionFile().orElseThrow().path();
    try (Dataset ds = Dataset.open(URI_, options)) {
      assertThat(ds.version()).isEqualTo(2);
      overwrite(ds, 100, 10); // v3
      append(ds, 110, 5); // v4
      ds.tags().create("with-deletes", 2);
      clock.advance(Duration.ofSeconds(1));

      CleanupOptions everything = CleanupOptions.builder().olderThan(Duration.ZERO).safetyWindow(Duration.ZERO).build();
      CleanupReport first = ds.cleanup(everything);
      assertThat(first.versionsRemoved()).isEqualTo(List.of(1L, 3L));
      assertThat(first.transactionFilesRemoved()).isEqualTo(2);
      assertThat(first.dataFilesRemoved()).isEqualTo(0); // v1's file is v2's; v3's is v4's
      assertThat(first.deletionFilesRemoved()).isEqualTo(0);
      assertReferencedFilesExist(ds, 2);
      assertReferencedFilesExist(ds, 4);
      try (Dataset v2 = ds.checkout("with-deletes")) {
        assertThat(scanIds(v2.newScan().open())).isEqualTo(range(3, 39));
      }
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(100, 115));

      // Untagged, version 2 goes with its data file, its deletion file and its transaction file.
      String v1Data = afterDelete.fragments().get(0).files().get(0).path();
      long expectedBytes =
          size(v1Data) + size(deletionFile) + size(afterDelete.transactionPath())
              + size(ObjectStoreCommitStore.manifestKey(2))
              + size(io.quiver.internal.codec.MetadataCodec.rootPath(2, afterDelete.transactionUuid()));
      ds.tags().delete("with-deletes");
      CleanupReport second = ds.cleanup(everything);
      assertThat(second.versionsRemoved()).isEqualTo(List.of(2L));
      assertThat(second.manifestsRemoved()).isEqualTo(1);
      assertThat(second.dataFilesRemoved()).isEqualTo(1);
      assertThat(second.deletionFilesRemoved()).isEqualTo(1);
      assertThat(second.transactionFilesRemoved()).isEqualTo(1);
      assertThat(second.bytesFreed()).isEqualTo(expectedBytes);
      assertThat(memory.head(deletionFile).isPresent()).isFalse();
      assertThat(ds.versions().stream().map(VersionInfo::version).toList()).isEqualTo(List.of(4L));
      assertReferencedFilesExist(ds, 4);
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(100, 115));
    }
  }

  @Test
  void b3_crashBeforeCommitLeavesOrphansThatOnlyCleanupAfterTheSafetyWindowRemoves() {
    try (ScenarioTable t = ScenarioTable.on(new MemoryObjectStore(URI_), allocator)) {
      CommitScenarios.b3_crashBeforeCommitLeavesOrphansThatOnlyCleanupAfterTheSafetyWindowRemoves(t);
    }
  }

  @Test
  void anUncommittedFileFromAWriterStillWritingIsProtectedByItsAgeNotByTheVersions() {
    try (Dataset ds = create(0, 40)) {
      clock.advance(Duration.ofDays(30));
      // A writer that has written a data file but not committed yet.
      String pending;
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 40, 5)) {
        pending = new FragmentWriter(store, ds.schema(), allocator, 16, 1 << 20)
            .write(List.of(b).iterator()).get(0).files().get(0).path();
      }
      CleanupOptions tenMinutes =
          CleanupOptions.builder().olderThan(Duration.ZERO).safetyWindow(Duration.ofMinutes(10)).build();
      assertNothingRemoved(ds.cleanup(tenMinutes));
      assertThat(memory.head(pending).isPresent()).isTrue();
      clock.advance(Duration.ofMinutes(11));
      CleanupReport report = ds.cleanup(tenMinutes);
      assertThat(report.dataFilesRemoved()).isEqualTo(1);
      assertThat(report.filesRemoved()).isEqualTo(1);
      assertThat(memory.head(pending).isPresent()).isFalse();
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(0, 40));
    }
  }

  @Test
  void aTableWithNothingToRemoveReportsZeros() {
    try (Dataset ds = create(0, 10)) {
      append(ds, 10, 10);
      Set<String> before = allKeys();
      assertNothingRemoved(ds.cleanup(CleanupOptions.defaults()));
      clock.advance(Duration.ofDays(3));
      CleanupReport report = ds.cleanup(CleanupOptions.defaults());
      assertNothingRemoved(report);
      assertThat(report.manifestsRemoved()).isEqualTo(0);
      assertThat(report.dataFilesRemoved()).isEqualTo(0);
      assertThat(report.deletionFilesRemoved()).isEqualTo(0);
      assertThat(report.transactionFilesRemoved()).isEqualTo(0);
      assertThat(allKeys()).isEqualTo(before);
      assertThat(ds.versions().stream().map(VersionInfo::version).toList()).isEqualTo(List.of(2L, 1L));
    }
  }

  @Test
  void aDryRunReportsWhatARealRunRemovesAndDeletesNothing() {
    try (Dataset ds = create(0, 20)) {
      clock.advance(DAY);
      overwrite(ds, 20, 20);
      clock.advance(DAY);
      append(ds, 40, 5);
      clock.advance(Duration.ofDays(10));
      Set<String> before = allKeys();
      CleanupReport dry = ds.cleanup(CleanupOptions.builder().before(clock.instant()).dryRun(true).build());
      assertThat(dry.dryRun()).isTrue();
      assertThat(allKeys()).isEqualTo(before);
      assertThat(ds.versions().stream().map(VersionInfo::version).toList()).isEqualTo(List.of(3L, 2L, 1L));
      CleanupReport real = ds.cleanup(CleanupOptions.builder().before(clock.instant()).build());
      assertThat(real.versionsRemoved()).isEqualTo(List.of(1L, 2L));
      assertThat(real.versionsRemoved()).isEqualTo(dry.versionsRemoved());
      assertThat(real.filesRemoved()).isEqualTo(dry.filesRemoved());
      assertThat(real.dataFilesRemoved()).isEqualTo(dry.dataFilesRemoved());
      assertThat(real.bytesFreed()).isEqualTo(dry.bytesFreed());
      assertThat(real.dataFilesRemoved()).isEqualTo(1); // v1's file; v2's is part of v3
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(20, 45));
    }
  }

  @Test
  void filesOutsideTheKnownPrefixesAreLeftAlone() {
    try (Dataset ds = create(0, 10)) {
      memory.write("notes/readme.txt", new byte[] {1});
      memory.write("_versions/not-a-manifest", new byte[] {2});
      memory.write("_refs/other", new byte[] {3});
      memory.write("database.bin", new byte[] {4});
      clock.advance(Duration.ofDays(30));
      Set<String> before = allKeys();
      assertNothingRemoved(
          ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).safetyWindow(Duration.ZERO).build()));
      assertThat(allKeys()).isEqualTo(before);
    }
  }

  @Test
  void anUnreadableManifestStopsCleanupBeforeAnythingIsDeleted() {
    try (Dataset ds = create(0, 10)) {
      append(ds, 10, 10);
      memory.write("data/orphan.arrow", new byte[] {1, 2, 3});
      String v1 = ObjectStoreCommitStore.manifestKey(1);
      byte[] bytes = memory.read(v1);
      bytes[bytes.length - 1] ^= 1;
      memory.write(v1, bytes);
      clock.advance(Duration.ofDays(30));
      Set<String> before = allKeys();
      CorruptFileException e = assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).build())).actual();
      assertThat(e.path()).endsWith(v1);
      assertThat(allKeys()).isEqualTo(before);
    }
  }

  @Test
  void b9_commitWithAReadVersionOlderThanTheOldestRetainedVersionFailsClearly() {
    try (ScenarioTable t = ScenarioTable.on(new MemoryObjectStore(URI_), allocator)) {
      CommitScenarios.b9_commitWithAReadVersionOlderThanTheOldestRetainedVersionFailsClearly(t);
    }
  }

  @Test
  void b9_aTaggedReadVersionWhoseSuccessorsWereRemovedAlsoFailsClearly() {
    try (Dataset ds = create(0, 10); Dataset stale = Dataset.open(URI_, options)) {
      ds.tags().create("base", 1);
      for (int i = 1; i <= 3; i++) {
        clock.advance(DAY);
        append(ds, 10L * i, 10); // v2, v3, v4
      }
      clock.advance(Duration.ofDays(10));
      assertThat(ds.cleanup(CleanupOptions.defaults()).versionsRemoved()).isEqualTo(List.of(2L, 3L));
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 100, 5)) {
        StaleReadVersionException e = assertThatExceptionOfType(StaleReadVersionException.class).isThrownBy(() -> stale.append(List.of(b))).actual();
        assertThat(e.getMessage()).contains("versions 2..3 were committed after version 1");
        assertThat(e.oldestAvailable()).isEqualTo(4);
      }
      assertThat(ds.versions().stream().map(VersionInfo::version).toList()).isEqualTo(List.of(4L, 1L));
      try (Dataset base = ds.checkout("base")) {
        assertThat(scanIds(base.newScan().open())).isEqualTo(range(0, 10));
      }
    }
  }
}
