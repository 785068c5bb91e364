package io.quiver.scenario;

import static io.quiver.dataset.SampleTable.range;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
    assertThat(checkpoints.seal(JOB, checkpointId).state()).isEqualTo(State.SEALED);
  }

  /** C1: workers staged, the table commit failed, the job retries: committed once, workers not re-run. */
  public static void c1_tableCommitFailed_jobRetries_stagedResultsCommittedOnceWithoutRerunningWorkers(ScenarioTable t) {
    CheckpointScenarios s = new CheckpointScenarios(t);
    CheckpointStore checkpoints = s.checkpoints();
    s.stageAndSeal(checkpoints, "1", 10);
    int runs = s.workerRuns.get();
    t.faults().arm(Op.WRITE, k -> k.startsWith("_transactions/"), Fault.FAIL_BEFORE, 1);
    try (Dataset ds = t.open()) {
      assertThatExceptionOfType(StoreException.class).isThrownBy(() -> s.driver(ds, checkpoints).finalize(JOB, "1"));
      assertThat(ds.latestVersion()).isEqualTo(1);
    }
    // The job restarts from scratch: a new driver recovers the pending checkpoint from the staged results.
    try (Dataset ds = t.open()) {
      CheckpointStore fresh = s.checkpoints();
      assertThat(fresh.pending(JOB)).isEqualTo(List.of("1"));
      assertThat(s.driver(ds, fresh).recover(JOB)).isEqualTo(List.of(new Finalized("1", 2, Outcome.COMMITTED)));
      assertThat(s.workerRuns.get()).as("workers are not re-run").isEqualTo(runs);
      assertThat(ds.latestVersion()).isEqualTo(2);
      assertThat(fresh.pending(JOB)).isEqualTo(List.of());
    }
    assertThat(t.validateAndScanLatest()).isEqualTo(range(0, 22));
  }

  /** C2: the table commit succeeded, marking the checkpoint failed; the retry finds the key and only marks. */
  public static void c2_commitSucceeded_markingFailed_retryFindsTheKeyAndOnlyMarks(ScenarioTable t) {
    CheckpointScenarios s = new CheckpointScenarios(t);
    CheckpointStore checkpoints = s.checkpoints();
    s.stageAndSeal(checkpoints, "1", 10);
    t.faults().arm(Op.PUT_IF_ABSENT, k -> k.endsWith("/committed.qvc"), Fault.FAIL_BEFORE, 1);
    try (Dataset ds = t.open()) {
      assertThatExceptionOfType(StoreException.class).isThrownBy(() -> s.driver(ds, checkpoints).finalize(JOB, "1"));
      assertThat(ds.latestVersion()).as("the table commit happened").isEqualTo(2);
      assertThat(checkpoints.status(JOB, "1").state()).isEqualTo(State.SEALED);
    }
    try (Dataset ds = t.open()) {
      assertThat(s.driver(ds, s.checkpoints()).recover(JOB)).isEqualTo(List.of(new Finalized("1", 2, Outcome.FOUND_IN_HISTORY)));
      assertThat(ds.latestVersion()).as("no second commit").isEqualTo(2);
      assertThat(checkpoints.status(JOB, "1").state()).isEqualTo(State.COMMITTED);
      assertThat(checkpoints.status(JOB, "1").committedVersion().orElseThrow()).isEqualTo(2);
    }
    assertThat(t.validateAndScanLatest()).isEqualTo(range(0, 22));
  }

  /** C3: the same idempotence key with different content is a typed error, not a silent skip. */
  public static void c3_aReusedKeyWithDifferentContentIsATypedErrorNotASilentSkip(ScenarioTable t) {
    CheckpointScenarios s = new CheckpointScenarios(t);
    CheckpointStore checkpoints = s.checkpoints();
    try (Dataset ds = t.open()) {
      // Another run of a job with the same id committed other rows under key job-1/1.
      ds.distributed().commit(List.of(s.worker(500, 4)), WriteMode.APPEND, CommitOptions.defaults().withIdempotenceKey(JOB + "/1"));
      s.stageAndSeal(checkpoints, "1", 10);
      IdempotenceKeyConflictException e = assertThatExceptionOfType(IdempotenceKeyConflictException.class).isThrownBy(() -> s.driver(ds, checkpoints).finalize(JOB, "1")).actual();
      assertThat(e.key()).isEqualTo(JOB + "/1");
      assertThat(e.committedVersion()).isEqualTo(2);
      assertThat(checkpoints.status(JOB, "1").state()).as("not marked committed").isEqualTo(State.SEALED);
      assertThat(ds.latestVersion()).isEqualTo(2);
    }
    List<Long> expected = new java.util.ArrayList<>(range(0, 10));
    expected.addAll(range(500, 504));
    assertThat(t.validateAndScanLatest()).containsExactlyInAnyOrderElementsOf(expected);
  }

  /** C4: a checkpointed write in a mode other than append is rejected up front. */
  public static void c4_checkpointedOverwriteIsRejectedUpFront(ScenarioTable t) {
    CheckpointScenarios s = new CheckpointScenarios(t);
    try (Dataset ds = t.open()) {
      InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> CheckpointedWriter.create(ds, s.checkpoints(), WriteMode.OVERWRITE, CommitOptions.defaults())).actual();
      assertThat(e.getMessage()).contains("APPEND").contains("OVERWRITE");
      assertThat(ds.latestVersion()).isEqualTo(1);
    }
    assertThat(t.validateAndScanLatest()).isEqualTo(range(0, 10));
  }
}
