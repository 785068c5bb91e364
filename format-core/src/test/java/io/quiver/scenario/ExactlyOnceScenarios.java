package io.quiver.scenario;

import static io.quiver.dataset.SampleTable.range;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
      assertThat(ds.versions().size()).as("cleanup down to the latest version").isEqualTo(1);
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
      assertThat(s.keyedAppend(ds, 10, 12, KEY)).isEqualTo(2);
    }
    // The driver crashed before learning the version; a new process opens the latest version and retries.
    try (Dataset ds = s.restarted()) {
      assertThat(s.keyedAppend(ds, 10, 12, KEY)).as("the commit that already happened").isEqualTo(2);
      assertThat(ds.latestVersion()).as("nothing published").isEqualTo(2);
      assertThat(ds.distributed().findCommit(KEY, 0).version()).isEqualTo(2);
      assertThat(ds.distributed().findCommit(KEY, 2).version()).isEqualTo(2);
    }
    // The same through worker results: the workers re-ran and rewrote the same rows into new files.
    try (Dataset ds = s.restarted()) {
      assertThat(ds.distributed().commit(List.of(s.worker(30, 4), s.worker(34, 3)), WriteMode.APPEND,
          t.options().commitOptions().withIdempotenceKey("job-e/2"))).isEqualTo(3);
    }
    try (Dataset ds = s.restarted()) {
      // Re-run workers split the same rows differently: still the same rows, so the same commit.
      assertThat(ds.distributed().commit(List.of(s.worker(30, 2), s.worker(32, 5)), WriteMode.APPEND,
          t.options().commitOptions().withIdempotenceKey("job-e/2"))).isEqualTo(3);
      assertThat(ds.latestVersion()).isEqualTo(3);
      assertThat(ds.distributed().findCommit("job-e/never", 0).status()).isEqualTo(CommitLookup.Status.NOT_COMMITTED);
    }
    assertThat(t.validateAndScanLatest()).containsExactlyInAnyOrderElementsOf(
        s.expected(new long[][] {{0, 22}, {30, 37}}));
  }

  /** E2: E1, after 20 other commits and a cleanup down to the latest version. */
  public static void e2_aKeyedRetryAfterTwentyCommitsAndACleanupToTheLatestIsRecognised(ScenarioTable t) {
    ExactlyOnceScenarios s = new ExactlyOnceScenarios(t);
    WriteResult first = s.worker(10, 6);
    try (Dataset ds = t.open()) {
      assertThat(ds.distributed().commit(List.of(first), WriteMode.APPEND,
          t.options().commitOptions().withIdempotenceKey(KEY))).isEqualTo(2);
      for (int i = 0; i < 20; i++) {
        t.append(ds, 100 + i, 1);
      }
      assertThat(ds.latestVersion()).isEqualTo(22);
    }
    s.cleanupToLatest();
    try (Dataset ds = s.restarted()) {
      CommitLookup found = ds.distributed().findCommit(KEY, first.readVersion());
      assertThat(found.isCommitted()).as(() -> "findCommit after the cleanup: " + found).isTrue();
      assertThat(found.version()).isEqualTo(2);
      // The original results (their read version is gone) and a re-run of the worker: both recognised.
      assertThat(ds.distributed().commit(List.of(first), WriteMode.APPEND,
          t.options().commitOptions().withIdempotenceKey(KEY))).isEqualTo(2);
      assertThat(ds.distributed().commit(List.of(s.worker(10, 6)), WriteMode.APPEND,
          t.options().commitOptions().withIdempotenceKey(KEY))).isEqualTo(2);
      assertThat(s.keyedAppend(ds, 10, 6, KEY)).isEqualTo(2);
      assertThat(ds.latestVersion()).as("nothing published").isEqualTo(22);
      // Never a false "not committed" for a key the ledger can vouch for, and a true one for a fresh key.
      assertThat(ds.distributed().findCommit("job-e/other", first.readVersion()).status()).isEqualTo(CommitLookup.Status.NOT_COMMITTED);
    }
    assertThat(t.validateAndScanLatest()).containsExactlyInAnyOrderElementsOf(
        s.expected(new long[][] {{0, 16}, {100, 120}}));
  }

  /** E3: a later job reuses a committed key for different rows, from any version. */
  public static void e3_aReusedKeyWithDifferentRowsFailsFromAnyVersion(ScenarioTable t) {
    ExactlyOnceScenarios s = new ExactlyOnceScenarios(t);
    try (Dataset ds = t.open(); Dataset stale = t.open()) {
      assertThat(s.keyedAppend(ds, 10, 5, KEY)).isEqualTo(2);
      t.append(ds, 50, 2); // v3
      // From a stale handle (version 1), from the latest, and through worker results.
      IdempotenceKeyConflictException e = assertThatExceptionOfType(IdempotenceKeyConflictException.class).isThrownBy(() -> s.keyedAppend(stale, 60, 5, KEY)).actual();
      assertThat(e.committedVersion()).isEqualTo(2);
      assertThat(e.getMessage()).contains(KEY).contains("version 2").contains("Nothing was committed");
      try (Dataset latest = s.restarted()) {
        assertThatExceptionOfType(IdempotenceKeyConflictException.class).isThrownBy(() -> s.keyedAppend(latest, 10, 6, KEY));
        assertThatExceptionOfType(IdempotenceKeyConflictException.class).isThrownBy(() -> latest.distributed().commit(
            List.of(s.worker(70, 5)), WriteMode.APPEND, t.options().commitOptions().withIdempotenceKey(KEY)));
        assertThat(latest.latestVersion()).as("nothing published").isEqualTo(3);
      }
    }
    s.cleanupToLatest();
    try (Dataset ds = s.restarted()) {
      assertThatExceptionOfType(IdempotenceKeyConflictException.class).isThrownBy(() -> s.keyedAppend(ds, 80, 5, KEY));
      assertThat(ds.latestVersion()).isEqualTo(3);
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
      assertThatExceptionOfType(StoreException.class).isThrownBy(() -> driver.finalize("job-e4", "1"));
      assertThat(ds.latestVersion()).as("the table commit happened").isEqualTo(2);
      for (int i = 0; i < 5; i++) {
        t.append(ds, 200 + i, 1);
      }
    }
    s.cleanupToLatest();
    try (Dataset ds = s.restarted()) {
      CheckpointStore reopened = CheckpointStore.in(t.faults());
      CheckpointedWriter driver =
          CheckpointedWriter.create(ds, reopened, WriteMode.APPEND, t.options().commitOptions());
      assertThat(driver.recover("job-e4")).isEqualTo(List.of(new Finalized("1", 2, Outcome.FOUND_IN_HISTORY), new Finalized("2", 8, Outcome.COMMITTED)));
      assertThat(reopened.status("job-e4", "1").state()).isEqualTo(State.COMMITTED);
      assertThat(reopened.status("job-e4", "2").state()).isEqualTo(State.COMMITTED);
      assertThat(driver.recover("job-e4")).isEqualTo(List.of());
      assertThat(driver.finalize("job-e4", "2")).isEqualTo(new Finalized("2", 8, Outcome.ALREADY_MARKED));
      assertThat(ds.latestVersion()).as("one commit, for checkpoint 2 only").isEqualTo(8);
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
        assertThat(s.epoch(ds, app, epoch)).isEqualTo(1 + epoch);
      }
      assertThat(ds.distributed().applicationWatermark(app).orElseThrow().sequence()).isEqualTo(3);
      assertThat(ds.distributed().applicationWatermark(app).orElseThrow().version()).isEqualTo(4);
    }
    try (Dataset ds = s.restarted()) {
      // Replayed in order (epoch 3 again) and out of order (epoch 1): skipped, the watermark's version.
      assertThat(s.epoch(ds, app, 3)).isEqualTo(4);
      assertThat(s.epoch(ds, app, 1)).isEqualTo(4);
      assertThat(ds.latestVersion()).isEqualTo(4);
      assertThat(s.epoch(ds, app, 5)).as("sequences need not be contiguous").isEqualTo(5);
      // A restore brings back old content, not an old watermark.
      assertThat(ds.restore(2)).isEqualTo(6);
      assertThat(ds.distributed().applicationWatermark(app).orElseThrow().sequence()).isEqualTo(5);
      assertThat(s.epoch(ds, app, 4)).as("below the watermark: skipped even though the restore removed its rows").isEqualTo(5);
      assertThat(s.epoch(ds, app, 6)).isEqualTo(7);
    }
    s.cleanupToLatest();
    try (Dataset ds = s.restarted()) {
      assertThat(s.epoch(ds, app, 6)).isEqualTo(7);
      assertThat(s.epoch(ds, app, 2)).isEqualTo(7);
      assertThat(s.epoch(ds, app, 7)).isEqualTo(8);
      assertThat(ds.distributed().applicationWatermark(app).orElseThrow().sequence()).isEqualTo(7);
      assertThat(ds.latestVersion()).isEqualTo(8);
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
