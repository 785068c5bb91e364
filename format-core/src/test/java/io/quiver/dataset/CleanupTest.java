package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        assertTrue(memory.head(key).isPresent(), "version " + version + " references " + key + ", which is gone");
      }
      assertTrue(v.validate().isValid(), () -> "version " + version + ": " + v.validate());
    }
  }

  private static void assertNothingRemoved(CleanupReport r) {
    assertEquals(List.of(), r.versionsRemoved());
    assertEquals(0, r.filesRemoved());
    assertEquals(0, r.bytesFreed());
    assertEquals(List.of(), r.failed());
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
      for (long v = 1; v <= 5; v++) {
        try (Dataset h = ds.checkout(v)) {
          dataOf.put(v, h.manifest().fragments().get(h.manifest().fragments().size() - 1).files().get(0).path());
          txnOf.put(v, h.manifest().transactionPath());
        }
      }
      long expectedBytes = size(dataOf.get(1L)) + size(dataOf.get(3L));
      for (long v : List.of(1L, 3L, 4L)) {
        expectedBytes += size(txnOf.get(v)) + size(ObjectStoreCommitStore.manifestKey(v));
      }

      CleanupReport report = ds.cleanup(CleanupOptions.builder().olderThan(Duration.ofDays(7)).build());

      assertEquals(List.of(1L, 3L, 4L), report.versionsRemoved());
      assertEquals(3, report.manifestsRemoved());
      assertEquals(3, report.transactionFilesRemoved());
      assertEquals(2, report.dataFilesRemoved());
      assertEquals(0, report.deletionFilesRemoved());
      assertEquals(8, report.filesRemoved());
      assertEquals(expectedBytes, report.bytesFreed());
      assertEquals(List.of(), report.failed());
      assertFalse(report.dryRun());

      assertEquals(List.of(5L, 2L), ds.versions().stream().map(VersionInfo::version).toList());
      for (long v : List.of(1L, 3L)) {
        assertFalse(memory.head(dataOf.get(v)).isPresent(), "data file of removed version " + v);
      }
      for (long v : List.of(1L, 3L, 4L)) {
        assertFalse(memory.head(txnOf.get(v)).isPresent(), "transaction file of removed version " + v);
        final long removed = v;
        assertThrows(VersionNotFoundException.class, () -> ds.checkout(removed));
      }
      assertReferencedFilesExist(ds, 2);
      assertReferencedFilesExist(ds, 5);
      try (Dataset v2 = ds.checkout("keep")) {
        assertEquals(range(100, 130), scanIds(v2.newScan().open()));
      }
      assertEquals(range(200, 220), scanIds(ds.newScan().open()));

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
      assertEquals(2, ds.version());
      overwrite(ds, 100, 10); // v3
      append(ds, 110, 5); // v4
      ds.tags().create("with-deletes", 2);
      clock.advance(Duration.ofSeconds(1));

      CleanupOptions everything = CleanupOptions.builder().olderThan(Duration.ZERO).safetyWindow(Duration.ZERO).build();
      CleanupReport first = ds.cleanup(everything);
      assertEquals(List.of(1L, 3L), first.versionsRemoved());
      assertEquals(2, first.transactionFilesRemoved());
      assertEquals(0, first.dataFilesRemoved()); // v1's file is v2's; v3's is v4's
      assertEquals(0, first.deletionFilesRemoved());
      assertReferencedFilesExist(ds, 2);
      assertReferencedFilesExist(ds, 4);
      try (Dataset v2 = ds.checkout("with-deletes")) {
        assertEquals(range(3, 39), scanIds(v2.newScan().open()));
      }
      assertEquals(range(100, 115), scanIds(ds.newScan().open()));

      // Untagged, version 2 goes with its data file, its deletion file and its transaction file.
      String v1Data = afterDelete.fragments().get(0).files().get(0).path();
      long expectedBytes =
          size(v1Data) + size(deletionFile) + size(afterDelete.transactionPath())
              + size(ObjectStoreCommitStore.manifestKey(2));
      ds.tags().delete("with-deletes");
      CleanupReport second = ds.cleanup(everything);
      assertEquals(List.of(2L), second.versionsRemoved());
      assertEquals(1, second.manifestsRemoved());
      assertEquals(1, second.dataFilesRemoved());
      assertEquals(1, second.deletionFilesRemoved());
      assertEquals(1, second.transactionFilesRemoved());
      assertEquals(expectedBytes, second.bytesFreed());
      assertFalse(memory.head(deletionFile).isPresent());
      assertEquals(List.of(4L), ds.versions().stream().map(VersionInfo::version).toList());
      assertReferencedFilesExist(ds, 4);
      assertEquals(range(100, 115), scanIds(ds.newScan().open()));
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
      assertTrue(memory.head(pending).isPresent());
      clock.advance(Duration.ofMinutes(11));
      CleanupReport report = ds.cleanup(tenMinutes);
      assertEquals(1, report.dataFilesRemoved());
      assertEquals(1, report.filesRemoved());
      assertFalse(memory.head(pending).isPresent());
      assertEquals(range(0, 40), scanIds(ds.newScan().open()));
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
      assertEquals(0, report.manifestsRemoved());
      assertEquals(0, report.dataFilesRemoved());
      assertEquals(0, report.deletionFilesRemoved());
      assertEquals(0, report.transactionFilesRemoved());
      assertEquals(before, allKeys());
      assertEquals(List.of(2L, 1L), ds.versions().stream().map(VersionInfo::version).toList());
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
      assertTrue(dry.dryRun());
      assertEquals(before, allKeys());
      assertEquals(List.of(3L, 2L, 1L), ds.versions().stream().map(VersionInfo::version).toList());
      CleanupReport real = ds.cleanup(CleanupOptions.builder().before(clock.instant()).build());
      assertEquals(List.of(1L, 2L), real.versionsRemoved());
      assertEquals(dry.versionsRemoved(), real.versionsRemoved());
      assertEquals(dry.filesRemoved(), real.filesRemoved());
      assertEquals(dry.dataFilesRemoved(), real.dataFilesRemoved());
      assertEquals(dry.bytesFreed(), real.bytesFreed());
      assertEquals(1, real.dataFilesRemoved()); // v1's file; v2's is part of v3
      assertEquals(range(20, 45), scanIds(ds.newScan().open()));
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
      assertEquals(before, allKeys());
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
      CorruptFileException e = assertThrows(CorruptFileException.class,
          () -> ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).build()));
      assertThat(e.path()).endsWith(v1);
      assertEquals(before, allKeys());
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
      assertEquals(List.of(2L, 3L), ds.cleanup(CleanupOptions.defaults()).versionsRemoved());
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 100, 5)) {
        StaleReadVersionException e = assertThrows(StaleReadVersionException.class, () -> stale.append(List.of(b)));
        assertThat(e.getMessage()).contains("versions 2..3 were committed after version 1");
        assertEquals(4, e.oldestAvailable());
      }
      assertEquals(List.of(4L, 1L), ds.versions().stream().map(VersionInfo::version).toList());
      try (Dataset base = ds.checkout("base")) {
        assertEquals(range(0, 10), scanIds(base.newScan().open()));
      }
    }
  }
}
