package io.quiver.scenario;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static io.quiver.predicate.Predicate.and;
import static io.quiver.predicate.Predicate.ge;
import static io.quiver.predicate.Predicate.lt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.CleanupReport;
import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DeleteResult;
import io.quiver.dataset.DistributedWriter;
import io.quiver.dataset.SampleTable;
import io.quiver.dataset.VersionInfo;
import io.quiver.dataset.WriteMode;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.CommitRetriesExhaustedException;
import io.quiver.exceptions.IncompatibleTransactionException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.exceptions.StaleReadVersionException;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore.Op;
import io.quiver.store.ObjectStoreCommitStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Catalogue section B (commit protocol), written once against a {@link ScenarioTable} so that format-core
 * runs them on the memory store and conformance-tests on every store fixture. Each scenario interleaves
 * its handles explicitly, then validates the table and scans every field of the latest version.
 */
public final class CommitScenarios {
  private CommitScenarios() {}

  private static List<Long> without(long from, long to, List<Long> ids) {
    return ids.stream().filter(id -> id < from || id >= to).toList();
  }

  private static List<Long> sorted(List<Long> ids) {
    return ids.stream().sorted().toList();
  }

  /** B1: N handles opened at the same version append in turn: distinct versions, no row lost or duplicated. */
  public static void b1_concurrentAppendsAllLandAtDistinctVersions(ScenarioTable t) {
    int writers = 4;
    List<Dataset> handles = new ArrayList<>();
    try (Dataset base = t.create(0, 10)) {
      for (int i = 0; i < writers; i++) {
        handles.add(t.open());
      }
      Set<Long> versions = new HashSet<>();
      for (int i = 0; i < writers; i++) {
        versions.add(t.append(handles.get(i), 100L * (i + 1), 5));
      }
      assertEquals(Set.of(2L, 3L, 4L, 5L), versions);
      assertEquals(5, base.latestVersion());
    } finally {
      handles.forEach(Dataset::close);
    }
    List<Long> expected = new ArrayList<>(range(0, 10));
    for (int i = 1; i <= writers; i++) {
      expected.addAll(range(100L * i, 100L * i + 5));
    }
    assertEquals(sorted(expected), sorted(t.validateAndScanLatest()));
  }

  /** B2: the claim of the version succeeded but the client saw an error; the retry recognises its own commit. */
  public static void b2_ambiguousAcknowledgementIsRecognisedAsOurOwnCommit(ScenarioTable t) {
    try (Dataset ds = t.create(0, 10)) {
      t.faults().armOnce(Op.PUT_IF_ABSENT, ObjectStoreCommitStore.manifestKey(2), Fault.FAIL_AFTER);
      assertEquals(2, t.append(ds, 10, 5));
      assertEquals(0, t.faults().pendingFaults());
      assertEquals(2, ds.latestVersion());
      assertEquals(List.of(2L, 1L), ds.versions().stream().map(VersionInfo::version).toList());
    }
    assertEquals(range(0, 15), t.validateAndScanLatest());
  }

  /**
   * B3: the writer wrote its data and transaction files, then crashed before claiming a version: nothing
   * is visible, and cleanup removes the orphans only after the safety window. The crash is modelled by a
   * refused claim whose clean-up is refused too (a live writer deletes what it wrote when its commit
   * definitely failed; a dead one never gets to).
   */
  public static void b3_crashBeforeCommitLeavesOrphansThatOnlyCleanupAfterTheSafetyWindowRemoves(ScenarioTable t) {
    try (Dataset ds = t.create(0, 40)) {
      t.append(ds, 40, 10);
      Set<String> before = t.keys();
      t.faults().arm(Op.PUT_IF_ABSENT, k -> k.startsWith(ObjectStoreCommitStore.VERSIONS_PREFIX), Fault.FAIL_BEFORE, 1);
      t.faults().arm(Op.DELETE, k -> true, Fault.FAIL_BEFORE, 2);
      try (VectorSchemaRoot b = SampleTable.batch(t.allocator(), 50, 10)) {
        assertThrows(CommitRetriesExhaustedException.class,
            () -> ds.append(List.of(b), CommitOptions.defaults().withMaxAttempts(1)));
      }
      t.faults().disarmAll();
      Set<String> orphans = new HashSet<>(t.keys());
      orphans.removeAll(before);
      assertEquals(2, orphans.size(), "one data file and one transaction file: " + orphans);
      assertThat(orphans).anyMatch(k -> k.startsWith("data/")).anyMatch(k -> k.startsWith("_transactions/"));
      assertEquals(2, ds.latestVersion());
      assertEquals(range(0, 50), t.validateAndScanLatest(), "no visible change");

      CleanupOptions keepVersions = CleanupOptions.builder().olderThan(Duration.ofDays(365)).build(); // window 1h
      t.clock().advance(Duration.ofMinutes(59));
      CleanupReport early = ds.cleanup(keepVersions);
      assertEquals(0, early.dataFilesRemoved() + early.transactionFilesRemoved());
      assertTrue(t.keys().containsAll(orphans), "orphans inside the safety window survive");

      t.clock().advance(Duration.ofMinutes(2));
      CleanupReport report = ds.cleanup(keepVersions);
      assertEquals(List.of(), report.versionsRemoved());
      assertEquals(1, report.dataFilesRemoved());
      assertEquals(1, report.transactionFilesRemoved());
      assertEquals(before, t.keys());
    }
    assertEquals(range(0, 50), t.validateAndScanLatest());
  }

  /** A worker: with only the URI and options, writes ids [from, from + rows) at {@code version}; the encoded result. */
  public static byte[] worker(ScenarioTable t, long version, long from, int rows) {
    try (DistributedWriter w = DistributedWriter.open(t.uri(), t.options(), version);
        VectorSchemaRoot b = SampleTable.batch(t.allocator(), from, rows)) {
      return w.write(List.of(b)).encode();
    }
  }

  public static List<WriteResult> decode(byte[]... bytes) {
    return Arrays.stream(bytes).map(WriteResult::decode).toList();
  }

  /** B4: the driver committed, then crashed before learning it; the retry with the same key does not commit twice. */
  public static void b4_crashAfterCommittingThenRetryWithTheSameKeyDoesNotCommitTwice(ScenarioTable t) {
    List<Long> expected = new ArrayList<>(range(0, 20));
    expected.addAll(range(100, 102));
    try (Dataset ds = t.create(0, 10)) {
      List<WriteResult> results = decode(worker(t, 1, 10, 5), worker(t, 1, 15, 5));
      CommitOptions keyed = CommitOptions.defaults().withIdempotenceKey("job-b4/1");
      assertEquals(2, ds.distributed().commit(results, WriteMode.APPEND, keyed)); // the driver "crashes" before learning this
      // Other writers commit meanwhile.
      assertEquals(3, t.append(ds, 100, 2));
      // A new driver process re-reads the staged results and commits again with the same key.
      try (Dataset driver = t.open()) {
        assertEquals(2, driver.distributed().commit(decode(results.get(0).encode(), results.get(1).encode()), WriteMode.APPEND, keyed));
        assertEquals(3, driver.version(), "the handle does not move backwards");
        assertEquals(3, driver.latestVersion());
        assertThat(scanIds(driver.newScan().open())).containsExactlyInAnyOrderElementsOf(expected);
      }
      VersionInfo v2 = ds.versions().stream().filter(v -> v.version() == 2).findFirst().orElseThrow();
      assertEquals("job-b4/1", v2.properties().get(CommitOptions.IDEMPOTENCE_KEY_PROPERTY));
      assertEquals(WriteResult.appendDigest(results), v2.properties().get(CommitOptions.OPERATION_DIGEST_PROPERTY));
    }
    assertThat(t.validateAndScanLatest()).containsExactlyInAnyOrderElementsOf(expected);
  }

  /** B5: deletes of disjoint rows in one fragment from two handles: the second rebases, both are kept. */
  public static void b5_deletesOfDisjointRowsInOneFragmentAreBothKept(ScenarioTable t) {
    try (Dataset a = t.create(0, 100); Dataset b = t.open()) {
      assertEquals(new DeleteResult(2, 5), a.delete(lt("id", 5)));
      assertEquals(new DeleteResult(3, 5), b.delete(and(ge("id", 30), lt("id", 35))));
      assertEquals(without(0, 5, without(30, 35, range(0, 100))), scanIds(b.newScan().open()));
      assertEquals(90, b.countRows());
    }
    assertEquals(without(0, 5, without(30, 35, range(0, 100))), t.validateAndScanLatest());
  }

  /** B6: deletes of overlapping rows from two handles never resurrect a row. */
  public static void b6_deletesOfTheSameRowsNeverResurrectARow(ScenarioTable t) {
    try (Dataset a = t.create(0, 100); Dataset b = t.open()) {
      a.delete(lt("id", 10));
      assertEquals(new DeleteResult(3, 5), b.delete(and(ge("id", 5), lt("id", 15))), "ids 5..9 were deleted by a already");
      assertEquals(range(15, 100), scanIds(b.newScan().open()));
      assertEquals(85, b.countRows());
    }
    assertEquals(range(15, 100), t.validateAndScanLatest());
  }

  /** B7: an append after a concurrent overwrite is incompatible and commits nothing. */
  public static void b7_appendAfterAConcurrentOverwriteIsIncompatibleAndCommitsNothing(ScenarioTable t) {
    try (Dataset a = t.create(0, 10); Dataset b = t.open()) {
      try (VectorSchemaRoot batch = SampleTable.batch(t.allocator(), 1000, 2)) {
        a.overwrite(SampleTable.SCHEMA, List.of(batch));
      }
      IncompatibleTransactionException e =
          assertThrows(IncompatibleTransactionException.class, () -> t.append(b, 10, 5));
      assertThat(e.getMessage()).contains("overwrite committed as version 2");
      assertEquals(2, b.latestVersion());
      assertEquals(1, b.version(), "a failed commit leaves the handle where it was");
    }
    assertEquals(range(1000, 1002), t.validateAndScanLatest());
  }

  /** B7: an overwrite after a concurrent append is retryable and discards nothing. */
  public static void b7_overwriteAfterAConcurrentAppendIsRetryableAndDiscardsNothing(ScenarioTable t) {
    try (Dataset a = t.create(0, 10); Dataset b = t.open()) {
      t.append(a, 10, 5);
      try (VectorSchemaRoot batch = SampleTable.batch(t.allocator(), 1000, 2)) {
        RetryableConflictException e =
            assertThrows(RetryableConflictException.class, () -> b.overwrite(SampleTable.SCHEMA, List.of(batch)));
        assertThat(e.getMessage()).contains("append committed as version 2");
      }
      assertEquals(2, b.latestVersion());
    }
    assertEquals(range(0, 15), t.validateAndScanLatest());
  }

  /** B8: a restore after a concurrent append is retryable and loses nothing; an append after a restore fails. */
  public static void b8_restoreRacingAnAppendNeverSilentlyLosesAWrite(ScenarioTable t) {
    try (Dataset a = t.create(0, 50); Dataset b = t.open()) {
      t.append(a, 50, 10); // v2
      RetryableConflictException e = assertThrows(RetryableConflictException.class, () -> b.restore(1));
      assertThat(e.getMessage()).contains("append committed as version 2");
      assertEquals(range(0, 60), t.validateAndScanLatest(), "the concurrent append is intact");
      // a, still at version 2, restores version 1; a stale append then must not land on the restored table.
      try (Dataset c = t.open()) {
        assertEquals(3, a.restore(1));
        IncompatibleTransactionException ie =
            assertThrows(IncompatibleTransactionException.class, () -> t.append(c, 100, 5));
        assertThat(ie.getMessage()).contains("restore committed as version 3");
        assertEquals(3, c.latestVersion(), "the append committed nothing");
        try (Dataset v2 = c.checkout(2)) {
          assertEquals(range(0, 60), scanIds(v2.newScan().open()), "the appended rows stay in the history");
        }
      }
    }
    assertEquals(range(0, 50), t.validateAndScanLatest());
  }

  /** B9: a commit whose read version is older than the oldest retained version fails clearly, committing nothing. */
  public static void b9_commitWithAReadVersionOlderThanTheOldestRetainedVersionFailsClearly(ScenarioTable t) {
    Duration day = Duration.ofDays(1);
    try (Dataset ds = t.create(0, 10); Dataset stale = t.open()) {
      assertEquals(1, stale.version());
      t.clock().advance(day);
      t.append(ds, 10, 10); // v2
      t.clock().advance(day);
      t.append(ds, 20, 10); // v3
      t.clock().advance(Duration.ofDays(10));
      CleanupReport report = ds.cleanup(CleanupOptions.builder().olderThan(Duration.ofDays(7)).build());
      assertEquals(List.of(1L, 2L), report.versionsRemoved());

      StaleReadVersionException e;
      try (VectorSchemaRoot b = SampleTable.batch(t.allocator(), 100, 5)) {
        e = assertThrows(StaleReadVersionException.class, () -> stale.append(List.of(b)));
      }
      assertThat(e).isInstanceOf(RetryableConflictException.class);
      assertTrue(e.isRetryable());
      assertEquals(1, e.readVersion());
      assertEquals(3, e.oldestAvailable());
      assertThat(e.getMessage()).contains("version 2 was committed after version 1").contains("cleanup")
          .contains("Nothing was committed");
      assertEquals(3, ds.latestVersion());
      assertEquals(range(0, 30), t.validateAndScanLatest());
      try (Dataset fresh = stale.checkoutLatest()) {
        assertEquals(4, t.append(fresh, 100, 5));
      }
    }
    assertEquals(sorted(concat(range(0, 30), range(100, 105))), sorted(t.validateAndScanLatest()));
  }

  private static List<Long> concat(List<Long> a, List<Long> b) {
    List<Long> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }
}
