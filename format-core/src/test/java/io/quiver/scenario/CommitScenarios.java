package io.quiver.scenario;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static io.quiver.predicate.Predicate.and;
import static io.quiver.predicate.Predicate.ge;
import static io.quiver.predicate.Predicate.lt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
      assertThat(versions).isEqualTo(Set.of(2L, 3L, 4L, 5L));
      assertThat(base.latestVersion()).isEqualTo(5);
    } finally {
      handles.forEach(Dataset::close);
    }
    List<Long> expected = new ArrayList<>(range(0, 10));
    for (int i = 1; i <= writers; i++) {
      expected.addAll(range(100L * i, 100L * i + 5));
    }
    assertThat(sorted(t.validateAndScanLatest())).isEqualTo(sorted(expected));
  }

  /** B2: the claim of the version succeeded but the client saw an error; the retry recognises its own commit. */
  public static void b2_ambiguousAcknowledgementIsRecognisedAsOurOwnCommit(ScenarioTable t) {
    try (Dataset ds = t.create(0, 10)) {
      t.faults().armOnce(Op.PUT_IF_ABSENT, ObjectStoreCommitStore.manifestKey(2), Fault.FAIL_AFTER);
      assertThat(t.append(ds, 10, 5)).isEqualTo(2);
      assertThat(t.faults().pendingFaults()).isEqualTo(0);
      assertThat(ds.latestVersion()).isEqualTo(2);
      assertThat(ds.versions().stream().map(VersionInfo::version).toList()).isEqualTo(List.of(2L, 1L));
    }
    assertThat(t.validateAndScanLatest()).isEqualTo(range(0, 15));
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
        assertThatExceptionOfType(CommitRetriesExhaustedException.class).isThrownBy(() -> ds.append(List.of(b), CommitOptions.defaults().withMaxAttempts(1)));
      }
      t.faults().disarmAll();
      Set<String> orphans = new HashSet<>(t.keys());
      orphans.removeAll(before);
      assertThat(orphans.size()).as("one data file and one transaction file: " + orphans).isEqualTo(2);
      assertThat(orphans).anyMatch(k -> k.startsWith("data/")).anyMatch(k -> k.startsWith("_transactions/"));
      assertThat(ds.latestVersion()).isEqualTo(2);
      assertThat(t.validateAndScanLatest()).as("no visible change").isEqualTo(range(0, 50));

      CleanupOptions keepVersions = CleanupOptions.builder().olderThan(Duration.ofDays(365)).build(); // window 1h
      t.clock().advance(Duration.ofMinutes(59));
      CleanupReport early = ds.cleanup(keepVersions);
      assertThat(early.dataFilesRemoved() + early.transactionFilesRemoved()).isEqualTo(0);
      assertThat(t.keys().containsAll(orphans)).as("orphans inside the safety window survive").isTrue();

      t.clock().advance(Duration.ofMinutes(2));
      CleanupReport report = ds.cleanup(keepVersions);
      assertThat(report.versionsRemoved()).isEqualTo(List.of());
      assertThat(report.dataFilesRemoved()).isEqualTo(1);
      assertThat(report.transactionFilesRemoved()).isEqualTo(1);
      assertThat(t.keys()).isEqualTo(before);
    }
    assertThat(t.validateAndScanLatest()).isEqualTo(range(0, 50));
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
      assertThat(ds.distributed().commit(results, WriteMode.APPEND, keyed)).isEqualTo(2); // the driver "crashes" before learning this
      // Other writers commit meanwhile.
      assertThat(t.append(ds, 100, 2)).isEqualTo(3);
      // A new driver process re-reads the staged results and commits again with the same key.
      try (Dataset driver = t.open()) {
        assertThat(driver.distributed().commit(decode(results.get(0).encode(), results.get(1).encode()), WriteMode.APPEND, keyed)).isEqualTo(2);
        assertThat(driver.version()).as("the handle does not move backwards").isEqualTo(3);
        assertThat(driver.latestVersion()).isEqualTo(3);
        assertThat(scanIds(driver.newScan().open())).containsExactlyInAnyOrderElementsOf(expected);
      }
      VersionInfo v2 = ds.versions().stream().filter(v -> v.version() == 2).findFirst().orElseThrow();
      assertThat(v2.properties().get(CommitOptions.IDEMPOTENCE_KEY_PROPERTY)).isEqualTo("job-b4/1");
      assertThat(v2.properties().get(CommitOptions.OPERATION_DIGEST_PROPERTY)).isEqualTo(WriteResult.appendDigest(results));
    }
    assertThat(t.validateAndScanLatest()).containsExactlyInAnyOrderElementsOf(expected);
  }

  /** B5: deletes of disjoint rows in one fragment from two handles: the second rebases, both are kept. */
  public static void b5_deletesOfDisjointRowsInOneFragmentAreBothKept(ScenarioTable t) {
    try (Dataset a = t.create(0, 100); Dataset b = t.open()) {
      assertThat(a.delete(lt("id", 5))).isEqualTo(new DeleteResult(2, 5));
      assertThat(b.delete(and(ge("id", 30), lt("id", 35)))).isEqualTo(new DeleteResult(3, 5));
      assertThat(scanIds(b.newScan().open())).isEqualTo(without(0, 5, without(30, 35, range(0, 100))));
      assertThat(b.countRows()).isEqualTo(90);
    }
    assertThat(t.validateAndScanLatest()).isEqualTo(without(0, 5, without(30, 35, range(0, 100))));
  }

  /** B6: deletes of overlapping rows from two handles never resurrect a row. */
  public static void b6_deletesOfTheSameRowsNeverResurrectARow(ScenarioTable t) {
    try (Dataset a = t.create(0, 100); Dataset b = t.open()) {
      a.delete(lt("id", 10));
      assertThat(b.delete(and(ge("id", 5), lt("id", 15)))).as("ids 5..9 were deleted by a already").isEqualTo(new DeleteResult(3, 5));
      assertThat(scanIds(b.newScan().open())).isEqualTo(range(15, 100));
      assertThat(b.countRows()).isEqualTo(85);
    }
    assertThat(t.validateAndScanLatest()).isEqualTo(range(15, 100));
  }

  /** B7: an append after a concurrent overwrite is incompatible and commits nothing. */
  public static void b7_appendAfterAConcurrentOverwriteIsIncompatibleAndCommitsNothing(ScenarioTable t) {
    try (Dataset a = t.create(0, 10); Dataset b = t.open()) {
      try (VectorSchemaRoot batch = SampleTable.batch(t.allocator(), 1000, 2)) {
        a.overwrite(SampleTable.SCHEMA, List.of(batch));
      }
      IncompatibleTransactionException e =
          assertThatExceptionOfType(IncompatibleTransactionException.class).isThrownBy(() -> t.append(b, 10, 5)).actual();
      assertThat(e.getMessage()).contains("overwrite committed as version 2");
      assertThat(b.latestVersion()).isEqualTo(2);
      assertThat(b.version()).as("a failed commit leaves the handle where it was").isEqualTo(1);
    }
    assertThat(t.validateAndScanLatest()).isEqualTo(range(1000, 1002));
  }

  /** B7: an overwrite after a concurrent append is retryable and discards nothing. */
  public static void b7_overwriteAfterAConcurrentAppendIsRetryableAndDiscardsNothing(ScenarioTable t) {
    try (Dataset a = t.create(0, 10); Dataset b = t.open()) {
      t.append(a, 10, 5);
      try (VectorSchemaRoot batch = SampleTable.batch(t.allocator(), 1000, 2)) {
        RetryableConflictException e =
            assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> b.overwrite(SampleTable.SCHEMA, List.of(batch))).actual();
        assertThat(e.getMessage()).contains("append committed as version 2");
      }
      assertThat(b.latestVersion()).isEqualTo(2);
    }
    assertThat(t.validateAndScanLatest()).isEqualTo(range(0, 15));
  }

  /** B8: a restore after a concurrent append is retryable and loses nothing; an append after a restore fails. */
  public static void b8_restoreRacingAnAppendNeverSilentlyLosesAWrite(ScenarioTable t) {
    try (Dataset a = t.create(0, 50); Dataset b = t.open()) {
      t.append(a, 50, 10); // v2
      RetryableConflictException e = assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> b.restore(1)).actual();
      assertThat(e.getMessage()).contains("append committed as version 2");
      assertThat(t.validateAndScanLatest()).as("the concurrent append is intact").isEqualTo(range(0, 60));
      // a, still at version 2, restores version 1; a stale append then must not land on the restored table.
      try (Dataset c = t.open()) {
        assertThat(a.restore(1)).isEqualTo(3);
        IncompatibleTransactionException ie =
            assertThatExceptionOfType(IncompatibleTransactionException.class).isThrownBy(() -> t.append(c, 100, 5)).actual();
        assertThat(ie.getMessage()).contains("restore committed as version 3");
        assertThat(c.latestVersion()).as("the append committed nothing").isEqualTo(3);
        try (Dataset v2 = c.checkout(2)) {
          assertThat(scanIds(v2.newScan().open())).as("the appended rows stay in the history").isEqualTo(range(0, 60));
        }
      }
    }
    assertThat(t.validateAndScanLatest()).isEqualTo(range(0, 50));
  }

  /** B9: a commit whose read version is older than the oldest retained version fails clearly, committing nothing. */
  public static void b9_commitWithAReadVersionOlderThanTheOldestRetainedVersionFailsClearly(ScenarioTable t) {
    Duration day = Duration.ofDays(1);
    try (Dataset ds = t.create(0, 10); Dataset stale = t.open()) {
      assertThat(stale.version()).isEqualTo(1);
      t.clock().advance(day);
      t.append(ds, 10, 10); // v2
      t.clock().advance(day);
      t.append(ds, 20, 10); // v3
      t.clock().advance(Duration.ofDays(10));
      CleanupReport report = ds.cleanup(CleanupOptions.builder().olderThan(Duration.ofDays(7)).build());
      assertThat(report.versionsRemoved()).isEqualTo(List.of(1L, 2L));

      StaleReadVersionException e;
      try (VectorSchemaRoot b = SampleTable.batch(t.allocator(), 100, 5)) {
        e = assertThatExceptionOfType(StaleReadVersionException.class).isThrownBy(() -> stale.append(List.of(b))).actual();
      }
      assertThat(e).isInstanceOf(RetryableConflictException.class);
      assertThat(e.isRetryable()).isTrue();
      assertThat(e.readVersion()).isEqualTo(1);
      assertThat(e.oldestAvailable()).isEqualTo(3);
      assertThat(e.getMessage()).contains("version 2 was committed after version 1").contains("cleanup")
          .contains("Nothing was committed");
      assertThat(ds.latestVersion()).isEqualTo(3);
      assertThat(t.validateAndScanLatest()).isEqualTo(range(0, 30));
      try (Dataset fresh = stale.checkoutLatest()) {
        assertThat(t.append(fresh, 100, 5)).isEqualTo(4);
      }
    }
    assertThat(sorted(t.validateAndScanLatest())).isEqualTo(sorted(concat(range(0, 30), range(100, 105))));
  }

  private static List<Long> concat(List<Long> a, List<Long> b) {
    List<Long> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }
}
