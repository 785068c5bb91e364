package io.quiver.scenario;

import static io.quiver.dataset.SampleTable.range;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.quiver.checkpoint.CheckpointStatus.State;
import io.quiver.checkpoint.CheckpointStore;
import io.quiver.checkpoint.CheckpointedWriter.Finalized;
import io.quiver.checkpoint.CheckpointedWriter.Outcome;
import io.quiver.checkpoint.CheckpointedWriter;
import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DistributedWriter;
import io.quiver.dataset.SampleTable;
import io.quiver.dataset.WriteMode;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.IdempotenceKeyConflictException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore.Op;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Catalogue section C (checkpointed distributed writes), written once against a {@link ScenarioTable}.
 * Each scenario starts from a table holding ids [0, 10) as version 1 and ends by validating the table and
 * scanning every field of the latest version.
 */
public final class CheckpointScenarios {
  private static final String JOB = "job-1";

  private final ScenarioTable t;
  private final AtomicInteger workerRuns = new AtomicInteger();

  private CheckpointScenarios(ScenarioTable t) {
    this.t = t;
    t.create(0, 10).close();
  }

  private CheckpointStore checkpoints() {
    return CheckpointStore.in(t.faults());
  }

  private CheckpointedWriter driver(Dataset ds, CheckpointStore checkpoints) {
    return CheckpointedWriter.create(ds, checkpoints, WriteMode.APPEND, t.options().commitOptions());
  }

  private WriteResult worker(long from, int rows) {
    workerRuns.incrementAndGet();
    try (DistributedWriter w = DistributedWriter.open(t.uri(), t.options());
        VectorSchemaRoot b = SampleTable.batch(t.allocator(), from, rows)) {
      return w.write(List.of(b));
    }
  }

  /** Two workers stage ids [from, from + 5) and [from + 5, from + 12) under the checkpoint, which is sealed. */
  private void stageAndSeal(CheckpointStore checkpoints, String checkpointId, long from) {
    checkpoints.stage(JOB, checkpointId, "t0", List.of(worker(from, 5)));
    checkpoints.stage(JOB, checkpointId, "t1", List.of(worker(from + 5, 7)));
    assertEquals(State.SEALED, checkpoints.seal(JOB, checkpointId).state());
  }

  /** C1: workers staged, the table commit failed, the job retries: committed once, workers not re-run. */
  public static void c1_tableCommitFailed_jobRetries_stagedResultsCommittedOnceWithoutRerunningWorkers(ScenarioTable t) {
    CheckpointScenarios s = new CheckpointScenarios(t);
    CheckpointStore checkpoints = s.checkpoints();
    s.stageAndSeal(checkpoints, "1", 10);
    int runs = s.workerRuns.get();
    t.faults().arm(Op.WRITE, k -> k.startsWith("_transactions/"), Fault.FAIL_BEFORE, 1);
    try (Dataset ds = t.open()) {
      assertThrows(StoreException.class, () -> s.driver(ds, checkpoints).finalize(JOB, "1"));
      assertEquals(1, ds.latestVersion());
    }
    // The job restarts from scratch: a new driver recovers the pending checkpoint from the staged results.
    try (Dataset ds = t.open()) {
      CheckpointStore fresh = s.checkpoints();
      assertEquals(List.of("1"), fresh.pending(JOB));
      assertEquals(List.of(new Finalized("1", 2, Outcome.COMMITTED)), s.driver(ds, fresh).recover(JOB));
      assertEquals(runs, s.workerRuns.get(), "workers are not re-run");
      assertEquals(2, ds.latestVersion());
      assertEquals(List.of(), fresh.pending(JOB));
    }
    assertEquals(range(0, 22), t.validateAndScanLatest());
  }

  /** C2: the table commit succeeded, marking the checkpoint failed; the retry finds the key and only marks. */
  public static void c2_commitSucceeded_markingFailed_retryFindsTheKeyAndOnlyMarks(ScenarioTable t) {
    CheckpointScenarios s = new CheckpointScenarios(t);
    CheckpointStore checkpoints = s.checkpoints();
    s.stageAndSeal(checkpoints, "1", 10);
    t.faults().arm(Op.PUT_IF_ABSENT, k -> k.endsWith("/committed.qvc"), Fault.FAIL_BEFORE, 1);
    try (Dataset ds = t.open()) {
      assertThrows(StoreException.class, () -> s.driver(ds, checkpoints).finalize(JOB, "1"));
      assertEquals(2, ds.latestVersion(), "the table commit happened");
      assertEquals(State.SEALED, checkpoints.status(JOB, "1").state());
    }
    try (Dataset ds = t.open()) {
      assertEquals(List.of(new Finalized("1", 2, Outcome.FOUND_IN_HISTORY)), s.driver(ds, s.checkpoints()).recover(JOB));
      assertEquals(2, ds.latestVersion(), "no second commit");
      assertEquals(State.COMMITTED, checkpoints.status(JOB, "1").state());
      assertEquals(2, checkpoints.status(JOB, "1").committedVersion().orElseThrow());
    }
    assertEquals(range(0, 22), t.validateAndScanLatest());
  }

  /** C3: the same idempotence key with different content is a typed error, not a silent skip. */
  public static void c3_aReusedKeyWithDifferentContentIsATypedErrorNotASilentSkip(ScenarioTable t) {
    CheckpointScenarios s = new CheckpointScenarios(t);
    CheckpointStore checkpoints = s.checkpoints();
    try (Dataset ds = t.open()) {
      // Another run of a job with the same id committed other rows under key job-1/1.
      ds.distributed().commit(List.of(s.worker(500, 4)), WriteMode.APPEND, CommitOptions.defaults().withIdempotenceKey(JOB + "/1"));
      s.stageAndSeal(checkpoints, "1", 10);
      IdempotenceKeyConflictException e = assertThrows(IdempotenceKeyConflictException.class,
          () -> s.driver(ds, checkpoints).finalize(JOB, "1"));
      assertEquals(JOB + "/1", e.key());
      assertEquals(2, e.committedVersion());
      assertEquals(State.SEALED, checkpoints.status(JOB, "1").state(), "not marked committed");
      assertEquals(2, ds.latestVersion());
    }
    List<Long> expected = new java.util.ArrayList<>(range(0, 10));
    expected.addAll(range(500, 504));
    assertThat(t.validateAndScanLatest()).containsExactlyInAnyOrderElementsOf(expected);
  }

  /** C4: a checkpointed write in a mode other than append is rejected up front. */
  public static void c4_checkpointedOverwriteIsRejectedUpFront(ScenarioTable t) {
    CheckpointScenarios s = new CheckpointScenarios(t);
    try (Dataset ds = t.open()) {
      InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
          () -> CheckpointedWriter.create(ds, s.checkpoints(), WriteMode.OVERWRITE, CommitOptions.defaults()));
      assertThat(e.getMessage()).contains("APPEND").contains("OVERWRITE");
      assertEquals(1, ds.latestVersion());
    }
    assertEquals(range(0, 10), t.validateAndScanLatest());
  }
}
