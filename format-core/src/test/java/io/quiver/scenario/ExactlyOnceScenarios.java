package io.quiver.scenario;

import static io.quiver.dataset.SampleTable.range;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.checkpoint.CheckpointStatus.State;
import io.quiver.checkpoint.CheckpointStore;
import io.quiver.checkpoint.CheckpointedWriter.Finalized;
import io.quiver.checkpoint.CheckpointedWriter.Outcome;
import io.quiver.checkpoint.CheckpointedWriter;
import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.CommitLookup;
import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.DistributedWriter;
import io.quiver.dataset.SampleTable;
import io.quiver.dataset.Session;
import io.quiver.dataset.WriteMode;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.IdempotenceKeyConflictException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore.Op;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Catalogue section E1-E5 (exactly-once across restarts, re-opened handles and cleanup), written once
 * against a {@link ScenarioTable}. Each scenario starts from a table holding ids [0, 10) as version 1. A
 * "restarted process" is a handle opened with a fresh {@link Session} (nothing cached, no handle state), at
 * the latest version, as a restarted driver opens the table; the retry rewrites its rows into new files.
 */
public final class ExactlyOnceScenarios {
  private static final String KEY = "job-e/1";

  private final ScenarioTable t;

  private ExactlyOnceScenarios(ScenarioTable t) {
    this.t = t;
    t.create(0, 10).close();
  }

  /** A handle as a restarted process opens it: the latest version, nothing shared with earlier handles. */
  private Dataset restarted() {
    DatasetOptions fresh = t.options().toBuilder().session(new Session(1 << 20)).build();
    return Dataset.open(t.uri(), fresh);
  }

  private long keyedAppend(Dataset ds, long from, int rows, String key) {
    try (VectorSchemaRoot b = SampleTable.batch(t.allocator(), from, rows)) {
      return ds.append(List.of(b), t.options().commitOptions().withIdempotenceKey(key));
    }
  }

  /** A worker run: writes the rows into new files at the latest version. */
  private WriteResult worker(long from, int rows) {
    try (DistributedWriter w = DistributedWriter.open(t.uri(), t.options());
        VectorSchemaRoot b = SampleTable.batch(t.allocator(), from, rows)) {
      return w.write(List.of(b));
    }
  }

  private void cleanupToLatest() {
    t.clock().advance(Duration.ofHours(2));
    try (Dataset ds = t.open()) {
      ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).safetyWindow(Duration.ofHours(1)).build());
      assertEquals(1, ds.versions().size(), "cleanup down to the latest version");
    }
  }

  private List<Long> expected(long[][] ranges) {
    List<Long> ids = new ArrayList<>();
    for (long[] r : ranges) {
      ids.addAll(range(r[0], r[1]));
    }
    return ids;
  }

  /** E1: a keyed append committed; the process restarts, opens the latest version and retries the same rows. */
  public static void e1_aKeyedAppendRetriedByARestartedProcessIsRecognisedAsCommitted(ScenarioTable t) {
    ExactlyOnceScenarios s = new ExactlyOnceScenarios(t);
    try (Dataset ds = t.open()) {
      assertEquals(2, s.keyedAppend(ds, 10, 12, KEY));
    }
    // The driver crashed before learning the version; a new process opens the latest version and retries.
    try (Dataset ds = s.restarted()) {
      assertEquals(2, s.keyedAppend(ds, 10, 12, KEY), "the commit that already happened");
      assertEquals(2, ds.latestVersion(), "nothing published");
      assertEquals(2, ds.distributed().findCommit(KEY, 0).version());
      assertEquals(2, ds.distributed().findCommit(KEY, 2).version());
    }
    // The same through worker results: the workers re-ran and rewrote the same rows into new files.
    try (Dataset ds = s.restarted()) {
      assertEquals(3, ds.distributed().commit(List.of(s.worker(30, 4), s.worker(34, 3)), WriteMode.APPEND,
          t.options().commitOptions().withIdempotenceKey("job-e/2")));
    }
    try (Dataset ds = s.restarted()) {
      // Re-run workers split the same rows differently: still the same rows, so the same commit.
      assertEquals(3, ds.distributed().commit(List.of(s.worker(30, 2), s.worker(32, 5)), WriteMode.APPEND,
          t.options().commitOptions().withIdempotenceKey("job-e/2")));
      assertEquals(3, ds.latestVersion());
      assertEquals(CommitLookup.Status.NOT_COMMITTED, ds.distributed().findCommit("job-e/never", 0).status());
    }
    assertThat(t.validateAndScanLatest()).containsExactlyInAnyOrderElementsOf(
        s.expected(new long[][] {{0, 22}, {30, 37}}));
  }

  /** E2: E1, after 20 other commits and a cleanup down to the latest version. */
  public static void e2_aKeyedRetryAfterTwentyCommitsAndACleanupToTheLatestIsRecognised(ScenarioTable t) {
    ExactlyOnceScenarios s = new ExactlyOnceScenarios(t);
    WriteResult first = s.worker(10, 6);
    try (Dataset ds = t.open()) {
      assertEquals(2, ds.distributed().commit(List.of(first), WriteMode.APPEND,
          t.options().commitOptions().withIdempotenceKey(KEY)));
      for (int i = 0; i < 20; i++) {
        t.append(ds, 100 + i, 1);
      }
      assertEquals(22, ds.latestVersion());
    }
    s.cleanupToLatest();
    try (Dataset ds = s.restarted()) {
      CommitLookup found = ds.distributed().findCommit(KEY, first.readVersion());
      assertTrue(found.isCommitted(), () -> "findCommit after the cleanup: " + found);
      assertEquals(2, found.version());
      // The original results (their read version is gone) and a re-run of the worker: both recognised.
      assertEquals(2, ds.distributed().commit(List.of(first), WriteMode.APPEND,
          t.options().commitOptions().withIdempotenceKey(KEY)));
      assertEquals(2, ds.distributed().commit(List.of(s.worker(10, 6)), WriteMode.APPEND,
          t.options().commitOptions().withIdempotenceKey(KEY)));
      assertEquals(2, s.keyedAppend(ds, 10, 6, KEY));
      assertEquals(22, ds.latestVersion(), "nothing published");
      // Never a false "not committed" for a key the ledger can vouch for, and a true one for a fresh key.
      assertEquals(CommitLookup.Status.NOT_COMMITTED, ds.distributed().findCommit("job-e/other", first.readVersion()).status());
    }
    assertThat(t.validateAndScanLatest()).containsExactlyInAnyOrderElementsOf(
        s.expected(new long[][] {{0, 16}, {100, 120}}));
  }

  /** E3: a later job reuses a committed key for different rows, from any version. */
  public static void e3_aReusedKeyWithDifferentRowsFailsFromAnyVersion(ScenarioTable t) {
    ExactlyOnceScenarios s = new ExactlyOnceScenarios(t);
    try (Dataset ds = t.open(); Dataset stale = t.open()) {
      assertEquals(2, s.keyedAppend(ds, 10, 5, KEY));
      t.append(ds, 50, 2); // v3
      // From a stale handle (version 1), from the latest, and through worker results.
      IdempotenceKeyConflictException e = assertThrows(IdempotenceKeyConflictException.class,
          () -> s.keyedAppend(stale, 60, 5, KEY));
      assertEquals(2, e.committedVersion());
      assertThat(e.getMessage()).contains(KEY).contains("version 2").contains("Nothing was committed");
      try (Dataset latest = s.restarted()) {
        assertThrows(IdempotenceKeyConflictException.class, () -> s.keyedAppend(latest, 10, 6, KEY));
        assertThrows(IdempotenceKeyConflictException.class, () -> latest.distributed().commit(
            List.of(s.worker(70, 5)), WriteMode.APPEND, t.options().commitOptions().withIdempotenceKey(KEY)));
        assertEquals(3, latest.latestVersion(), "nothing published");
      }
    }
    s.cleanupToLatest();
    try (Dataset ds = s.restarted()) {
      assertThrows(IdempotenceKeyConflictException.class, () -> s.keyedAppend(ds, 80, 5, KEY));
      assertEquals(3, ds.latestVersion());
    }
    assertThat(t.validateAndScanLatest()).containsExactlyInAnyOrderElementsOf(
        s.expected(new long[][] {{0, 15}, {50, 52}}));
  }

  /**
   * E4: case C2 (table commit done, checkpoint not marked) for checkpoint 1 and case C1 (sealed, table commit
   * failed) for checkpoint 2, then a cleanup down to the latest version, then recovery from a new process:
   * checkpoint 1 is found in the ledger and only marked, checkpoint 2 is committed once.
   */
  public static void e4_checkpointCommittedButNotMarkedThenCleanupRecoversThroughTheLedger(ScenarioTable t) {
    ExactlyOnceScenarios s = new ExactlyOnceScenarios(t);
    CheckpointStore checkpoints = CheckpointStore.in(t.faults());
    checkpoints.stage("job-e4", "1", "t0", List.of(s.worker(10, 5)));
    checkpoints.stage("job-e4", "1", "t1", List.of(s.worker(15, 7)));
    checkpoints.seal("job-e4", "1");
    checkpoints.stage("job-e4", "2", "t0", List.of(s.worker(300, 4)));
    checkpoints.seal("job-e4", "2");
    t.faults().arm(Op.PUT_IF_ABSENT, k -> k.endsWith("/committed.qvc"), Fault.FAIL_BEFORE, 1);
    try (Dataset ds = t.open()) {
      CheckpointedWriter driver =
          CheckpointedWriter.create(ds, checkpoints, WriteMode.APPEND, t.options().commitOptions());
      assertThrows(StoreException.class, () -> driver.finalize("job-e4", "1"));
      assertEquals(2, ds.latestVersion(), "the table commit happened");
      for (int i = 0; i < 5; i++) {
        t.append(ds, 200 + i, 1);
      }
    }
    s.cleanupToLatest();
    try (Dataset ds = s.restarted()) {
      CheckpointStore reopened = CheckpointStore.in(t.faults());
      CheckpointedWriter driver =
          CheckpointedWriter.create(ds, reopened, WriteMode.APPEND, t.options().commitOptions());
      assertEquals(List.of(new Finalized("1", 2, Outcome.FOUND_IN_HISTORY), new Finalized("2", 8, Outcome.COMMITTED)),
          driver.recover("job-e4"));
      assertEquals(State.COMMITTED, reopened.status("job-e4", "1").state());
      assertEquals(State.COMMITTED, reopened.status("job-e4", "2").state());
      assertEquals(List.of(), driver.recover("job-e4"));
      assertEquals(new Finalized("2", 8, Outcome.ALREADY_MARKED), driver.finalize("job-e4", "2"));
      assertEquals(8, ds.latestVersion(), "one commit, for checkpoint 2 only");
    }
    assertThat(t.validateAndScanLatest()).containsExactlyInAnyOrderElementsOf(
        s.expected(new long[][] {{0, 22}, {200, 205}, {300, 304}}));
  }

  /** E5: application sequences re-delivered in order, out of order, after a restore and after a cleanup. */
  public static void e5_applicationSequencesAtOrBelowTheWatermarkAreSkipped(ScenarioTable t) {
    ExactlyOnceScenarios s = new ExactlyOnceScenarios(t);
    String app = "query-e5";
    try (Dataset ds = t.open()) {
      for (int epoch = 1; epoch <= 3; epoch++) {
        assertEquals(1 + epoch, s.epoch(ds, app, epoch));
      }
      assertEquals(3, ds.distributed().applicationWatermark(app).orElseThrow().sequence());
      assertEquals(4, ds.distributed().applicationWatermark(app).orElseThrow().version());
    }
    try (Dataset ds = s.restarted()) {
      // Replayed in order (epoch 3 again) and out of order (epoch 1): skipped, the watermark's version.
      assertEquals(4, s.epoch(ds, app, 3));
      assertEquals(4, s.epoch(ds, app, 1));
      assertEquals(4, ds.latestVersion());
      assertEquals(5, s.epoch(ds, app, 5), "sequences need not be contiguous");
      // A restore brings back old content, not an old watermark.
      assertEquals(6, ds.restore(2));
      assertEquals(5, ds.distributed().applicationWatermark(app).orElseThrow().sequence());
      assertEquals(5, s.epoch(ds, app, 4), "below the watermark: skipped even though the restore removed its rows");
      assertEquals(7, s.epoch(ds, app, 6));
    }
    s.cleanupToLatest();
    try (Dataset ds = s.restarted()) {
      assertEquals(7, s.epoch(ds, app, 6));
      assertEquals(7, s.epoch(ds, app, 2));
      assertEquals(8, s.epoch(ds, app, 7));
      assertEquals(7, ds.distributed().applicationWatermark(app).orElseThrow().sequence());
      assertEquals(8, ds.latestVersion());
    }
    // Version 2 (epoch 1's rows) was restored; epochs 6 and 7 appended after it.
    assertThat(t.validateAndScanLatest()).containsExactlyInAnyOrderElementsOf(
        s.expected(new long[][] {{0, 10}, {1000, 1003}, {6000, 6003}, {7000, 7003}}));
  }

  /** Commits epoch {@code n}'s rows [n * 1000, n * 1000 + 3) under {@code app}'s sequence n. */
  private long epoch(Dataset ds, String app, long n) {
    try (VectorSchemaRoot b = SampleTable.batch(t.allocator(), n * 1000, 3)) {
      CommitOptions options = t.options().commitOptions().withApplicationSequence(app, n);
      return ds.append(List.of(b), options);
    }
  }
}
