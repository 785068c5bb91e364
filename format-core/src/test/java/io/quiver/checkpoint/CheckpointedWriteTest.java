package io.quiver.checkpoint;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.checkpoint.CheckpointStatus.State;
import io.quiver.checkpoint.CheckpointedWriter.Finalized;
import io.quiver.checkpoint.CheckpointedWriter.Outcome;
import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.CleanupReport;
import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.WriteMode;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.CheckpointStateException;
import io.quiver.exceptions.IdempotenceKeyConflictException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.StagedResultConflictException;
import io.quiver.internal.checkpoint.StagingLayout;
import io.quiver.scenario.CheckpointScenarios;
import io.quiver.scenario.ScenarioTable;
import io.quiver.store.MemoryObjectStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Checkpointed staging of worker results and the driver's exactly-once finalize (C1–C4, B3). */
class CheckpointedWriteTest {
  private static final String JOB = "job-1";
  private Fixture fx;

  @BeforeEach
  void setUp() {
    fx = new Fixture().create();
  }

  @AfterEach
  void tearDown() {
    fx.close();
  }

  /** Two workers stage ids [from, from + 5) and [from + 5, from + 12) under the checkpoint, which is sealed. */
  private void stageAndSeal(CheckpointStore checkpoints, String checkpointId, long from) {
    checkpoints.stage(JOB, checkpointId, "t0", List.of(fx.worker(from, 5)));
    checkpoints.stage(JOB, checkpointId, "t1", List.of(fx.worker(from + 5, 7)));
    assertThat(checkpoints.seal(JOB, checkpointId).state()).isEqualTo(State.SEALED);
  }

  @Test
  void stagingIsAtomicPerTaskAndSafeToRepeat() {
    CheckpointStore checkpoints = fx.checkpoints();
    WriteResult r = fx.worker(10, 3);
    checkpoints.stage(JOB, "1", "t0", List.of(r));
    checkpoints.stage(JOB, "1", "t0", List.of(WriteResult.decode(r.encode())));
    assertThatExceptionOfType(StagedResultConflictException.class).isThrownBy(() -> checkpoints.stage(JOB, "1", "t0", List.of(fx.worker(10, 3))));
    CheckpointStatus status = checkpoints.status(JOB, "1");
    assertThat(status.state()).isEqualTo(State.OPEN);
    assertThat(status.tasks()).isEqualTo(List.of("t0"));
    assertThat(checkpoints.status(JOB, "2").state()).isEqualTo(State.ABSENT);
    assertThatExceptionOfType(CheckpointStateException.class).isThrownBy(() -> checkpoints.staged(JOB, "1"));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> checkpoints.stage("../x", "1", "t0", List.of(r)));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> checkpoints.stage(JOB, "1", "a/b", List.of(r)));
  }

  @Test
  void aSealFixesTheTasksAndLaterStagingIsRejected() {
    CheckpointStore checkpoints = fx.checkpoints();
    WriteResult r = fx.worker(10, 3);
    checkpoints.stage(JOB, "1", "t0", List.of(r));
    assertThat(checkpoints.seal(JOB, "1").tasks()).isEqualTo(List.of("t0"));
    checkpoints.seal(JOB, "1");
    checkpoints.stage(JOB, "1", "t0", List.of(r)); // an identical repeat is still fine
    CheckpointStateException e = assertThatExceptionOfType(CheckpointStateException.class).isThrownBy(() -> checkpoints.stage(JOB, "1", "t1", List.of(fx.worker(20, 3)))).actual();
    assertThat(e.getMessage()).contains("sealed");
    assertThat(checkpoints.staged(JOB, "1")).isEqualTo(List.of(r));
  }

  @Test
  void pendingListsSealedUncommittedCheckpointsInOrder() {
    CheckpointStore checkpoints = fx.checkpoints();
    for (String id : List.of("10", "9", "2", "11")) {
      checkpoints.stage(JOB, id, "t", List.of(fx.worker(100, 1)));
    }
    checkpoints.seal(JOB, "10");
    checkpoints.seal(JOB, "9");
    checkpoints.seal(JOB, "2");
    checkpoints.markCommitted(JOB, "2", 1);
    assertThat(checkpoints.pending(JOB)).isEqualTo(List.of("9", "10"));
    assertThat(checkpoints.pending("other-job")).isEqualTo(List.of());
  }

  @Test
  void finalizeCommitsOneAppendAndMarksTheCheckpoint() {
    CheckpointStore checkpoints = fx.checkpoints();
    stageAndSeal(checkpoints, "1", 10);
    try (Dataset ds = fx.open()) {
      CheckpointedWriter driver = fx.driver(ds, checkpoints);
      assertThat(driver.finalize(JOB, "1")).isEqualTo(new Finalized("1", 2, Outcome.COMMITTED));
      assertThat(driver.finalize(JOB, "1")).isEqualTo(new Finalized("1", 2, Outcome.ALREADY_MARKED));
      assertThat(ds.latestVersion()).isEqualTo(2);
      assertThat(scanIds(ds.checkoutLatest().newScan().open())).isEqualTo(range(0, 22));
      assertThat(ds.distributed().findCommit(JOB + "/1", 0).version()).isEqualTo(2);
      assertThat(checkpoints.status(JOB, "1").state()).isEqualTo(State.COMMITTED);
      assertThat(checkpoints.pending(JOB)).isEqualTo(List.of());
    }
  }

  @Test
  void finalizingAnUnsealedCheckpointIsAStateError() {
    CheckpointStore checkpoints = fx.checkpoints();
    checkpoints.stage(JOB, "1", "t0", List.of(fx.worker(10, 3)));
    try (Dataset ds = fx.open()) {
      CheckpointedWriter driver = fx.driver(ds, checkpoints);
      assertThatExceptionOfType(CheckpointStateException.class).isThrownBy(() -> driver.finalize(JOB, "1"));
      assertThatExceptionOfType(CheckpointStateException.class).isThrownBy(() -> driver.finalize(JOB, "absent"));
      assertThat(ds.latestVersion()).isEqualTo(1);
    }
  }

  @Test
  void anEmptySealedCheckpointCommitsNothing() {
    CheckpointStore checkpoints = fx.checkpoints();
    checkpoints.seal(JOB, "1");
    try (Dataset ds = fx.open()) {
      assertThat(fx.driver(ds, checkpoints).finalize(JOB, "1")).isEqualTo(new Finalized("1", 1, Outcome.EMPTY));
      assertThat(ds.latestVersion()).isEqualTo(1);
    }
  }

  @Test
  void c1_tableCommitFailed_jobRetries_stagedResultsCommittedOnceWithoutRerunningWorkers() {
    try (ScenarioTable t = ScenarioTable.on(new MemoryObjectStore("memory://ckpt"), fx.allocator)) {
      CheckpointScenarios.c1_tableCommitFailed_jobRetries_stagedResultsCommittedOnceWithoutRerunningWorkers(t);
    }
  }

  @Test
  void c2_commitSucceeded_markingFailed_retryFindsTheKeyAndOnlyMarks() {
    try (ScenarioTable t = ScenarioTable.on(new MemoryObjectStore("memory://ckpt"), fx.allocator)) {
      CheckpointScenarios.c2_commitSucceeded_markingFailed_retryFindsTheKeyAndOnlyMarks(t);
    }
  }

  @Test
  void c3_aReusedKeyWithDifferentContentIsATypedErrorNotASilentSkip() {
    try (ScenarioTable t = ScenarioTable.on(new MemoryObjectStore("memory://ckpt"), fx.allocator)) {
      CheckpointScenarios.c3_aReusedKeyWithDifferentContentIsATypedErrorNotASilentSkip(t);
    }
  }

  @Test
  void c3_theCommitLoopAlsoRejectsAReusedKeyItMeetsWhileRacing() {
    CheckpointStore checkpoints = fx.checkpoints();
    stageAndSeal(checkpoints, "1", 10);
    try (Dataset ds = fx.open()) {
      List<WriteResult> staged = checkpoints.staged(JOB, "1");
      ds.distributed().commit(List.of(fx.worker(500, 4)), WriteMode.APPEND, CommitOptions.defaults().withIdempotenceKey(JOB + "/1"));
      // The stale handle commits the staged results under the same key: the loop meets version 2 first.
      try (Dataset stale = ds.checkout(1)) {
        assertThatExceptionOfType(IdempotenceKeyConflictException.class).isThrownBy(() -> stale.distributed().commit(staged, WriteMode.APPEND, CommitOptions.defaults().withIdempotenceKey(JOB + "/1")));
      }
      assertThat(ds.latestVersion()).isEqualTo(2);
    }
  }

  @Test
  void c4_checkpointedOverwriteIsRejectedUpFront() {
    try (ScenarioTable t = ScenarioTable.on(new MemoryObjectStore("memory://ckpt"), fx.allocator)) {
      CheckpointScenarios.c4_checkpointedOverwriteIsRejectedUpFront(t);
    }
  }

  @Test
  void twoDriversRacingToFinalizeTheSameCheckpointCommitOnce() throws Exception {
    CheckpointStore checkpoints = fx.checkpoints();
    stageAndSeal(checkpoints, "1", 10);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    CountDownLatch start = new CountDownLatch(1);
    try (Dataset a = fx.open(); Dataset b = fx.open()) {
      List<Future<Finalized>> futures = new ArrayList<>();
      for (Dataset ds : List.of(a, b)) {
        futures.add(pool.submit(() -> {
          start.await();
          return fx.driver(ds, fx.checkpoints()).finalize(JOB, "1");
        }));
      }
      start.countDown();
      Finalized first = futures.get(0).get();
      Finalized second = futures.get(1).get();
      assertThat(first.version()).isEqualTo(2);
      assertThat(second.version()).isEqualTo(2);
      assertThat(a.latestVersion()).as("exactly one commit").isEqualTo(2);
      assertThat(scanIds(a.checkoutLatest().newScan().open())).isEqualTo(range(0, 22));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void twoDriversInterleavedExplicitlyCommitOnce() {
    CheckpointStore checkpoints = fx.checkpoints();
    stageAndSeal(checkpoints, "1", 10);
    try (Dataset a = fx.open(); Dataset b = fx.open()) {
      // Driver b read the staged results and found no commit yet ...
      List<WriteResult> staged = checkpoints.staged(JOB, "1");
      assertThat(b.distributed().findCommit(JOB + "/1", 0).status()).isEqualTo(io.quiver.dataset.CommitLookup.Status.NOT_COMMITTED);
      // ... then driver a finalizes first ...
      assertThat(fx.driver(a, checkpoints).finalize(JOB, "1").outcome()).isEqualTo(Outcome.COMMITTED);
      // ... and b's commit under the same key finds a's version instead of committing again.
      assertThat(b.distributed().commit(staged, WriteMode.APPEND, CommitOptions.defaults().withIdempotenceKey(JOB + "/1"))).isEqualTo(2);
      assertThat(a.latestVersion()).isEqualTo(2);
    }
  }

  // ---------------------------------------------------------------- cleanup (B3)

  private static CleanupOptions hourWindow() {
    return CleanupOptions.builder().safetyWindow(Duration.ofHours(1)).build();
  }

  private long dataFiles() {
    return fx.memory.listAll("data/").size();
  }

  private long stagingFiles() {
    return fx.memory.listAll(StagingLayout.PREFIX).size();
  }

  @Test
  void b3_writerCrashBeforeCommitLeavesOrphansThatCleanupRemovesOnlyAfterTheWindow() {
    try (Dataset ds = fx.open()) {
      long before = dataFiles();
      fx.worker(10, 5); // written, never staged nor committed
      assertThat(dataFiles()).isEqualTo(before + 1);
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(0, 10));
      assertThat(ds.cleanup(hourWindow()).dataFilesRemoved()).as("within the safety window").isEqualTo(0);
      fx.clock.advance(Duration.ofHours(2));
      assertThat(ds.cleanup(hourWindow()).dataFilesRemoved()).isEqualTo(1);
      assertThat(dataFiles()).isEqualTo(before);
      assertThat(scanIds(ds.checkoutLatest().newScan().open())).isEqualTo(range(0, 10));
    }
  }

  @Test
  void b3_abandonedStagedResultsAreRemovedAfterTheSafetyWindow() {
    CheckpointStore checkpoints = fx.checkpoints();
    long before = dataFiles();
    checkpoints.stage("abandoned", "1", "t0", List.of(fx.worker(10, 5)));
    try (Dataset ds = fx.open()) {
      fx.clock.advance(Duration.ofMinutes(30));
      CleanupReport young = ds.cleanup(hourWindow());
      assertThat(young.stagingFilesRemoved()).isEqualTo(0);
      assertThat(young.dataFilesRemoved()).isEqualTo(0);
      fx.clock.advance(Duration.ofHours(1));
      CleanupReport report = ds.cleanup(hourWindow());
      assertThat(report.stagingFilesRemoved()).isEqualTo(1);
      assertThat(report.dataFilesRemoved()).isEqualTo(1);
      assertThat(stagingFiles()).isEqualTo(0);
      assertThat(dataFiles()).isEqualTo(before);
      assertThat(checkpoints.status("abandoned", "1").state()).isEqualTo(State.ABSENT);
    }
  }

  @Test
  void b3_cleanupNeverRemovesTheFilesOfASealedUncommittedCheckpoint() {
    CheckpointStore checkpoints = fx.checkpoints();
    stageAndSeal(checkpoints, "1", 10);
    try (Dataset ds = fx.open()) {
      fx.clock.advance(Duration.ofDays(30));
      CleanupReport report = ds.cleanup(hourWindow());
      assertThat(report.dataFilesRemoved()).isEqualTo(0);
      assertThat(report.stagingFilesRemoved()).isEqualTo(0);
      // Much later, the job recovers and commits the checkpoint; its rows are all readable.
      assertThat(fx.driver(ds, checkpoints).finalize(JOB, "1").outcome()).isEqualTo(Outcome.COMMITTED);
      assertThat(scanIds(ds.checkoutLatest().newScan().open())).isEqualTo(range(0, 22));
      // Once committed, the staging objects go after the safety window; the table's files stay.
      fx.clock.advance(Duration.ofHours(2));
      CleanupReport after = ds.cleanup(hourWindow());
      assertThat(after.stagingFilesRemoved()).as("two tasks, the seal and the commit marker").isEqualTo(4);
      assertThat(after.dataFilesRemoved()).isEqualTo(0);
      assertThat(stagingFiles()).isEqualTo(0);
      assertThat(scanIds(ds.checkoutLatest().newScan().open())).isEqualTo(range(0, 22));
      // A late retry of the removed checkpoint still converges through the table's history.
      assertThat(fx.driver(ds, checkpoints).finalize(JOB, "1").outcome()).isEqualTo(Outcome.FOUND_IN_HISTORY);
      assertThat(ds.latestVersion()).isEqualTo(2);
    }
  }

  @Test
  void cleanupKeepsTheFilesOfAnOpenCheckpointStagingWithinTheWindow() {
    CheckpointStore checkpoints = fx.checkpoints();
    WriteResult early = fx.worker(10, 5);
    fx.clock.advance(Duration.ofMinutes(90)); // a slow task: its file is older than the window when it stages
    checkpoints.stage(JOB, "1", "t0", List.of(early));
    try (Dataset ds = fx.open()) {
      assertThat(ds.cleanup(hourWindow()).dataFilesRemoved()).isEqualTo(0);
      checkpoints.seal(JOB, "1");
      fx.driver(ds, checkpoints).finalize(JOB, "1");
      assertThat(scanIds(ds.checkoutLatest().newScan().open())).isEqualTo(range(0, 15));
    }
  }

  @Test
  void c1_resultsWhoseReadVersionACleanupRemovedAreStillCommittedOnceWhenProvablySafe() {
    CheckpointStore checkpoints = fx.checkpoints();
    stageAndSeal(checkpoints, "1", 10);
    try (Dataset ds = fx.open()) {
      try (org.apache.arrow.vector.VectorSchemaRoot b = io.quiver.dataset.SampleTable.batch(fx.allocator, 100, 1)) {
        ds.append(List.of(b));
      }
      fx.clock.advance(Duration.ofMinutes(1));
      ds.cleanup(CleanupOptions.builder().before(fx.clock.instant()).safetyWindow(Duration.ofHours(1)).build());
      assertThat(ds.versions().stream().map(v -> v.version()).toList()).isEqualTo(List.of(2L));
      // Version 1 (the results' read version) is gone; the schema is unchanged and nothing replaced the table
      // since, so the append is committed on the latest version — once.
      assertThat(fx.driver(ds, checkpoints).finalize(JOB, "1")).isEqualTo(new Finalized("1", 3, Outcome.COMMITTED));
      assertThat(fx.driver(ds, checkpoints).finalize(JOB, "1")).isEqualTo(new Finalized("1", 3, Outcome.ALREADY_MARKED));
      List<Long> ids = new ArrayList<>(range(0, 22));
      ids.add(100L);
      assertThat(scanIds(ds.checkoutLatest().newScan().open())).containsExactlyInAnyOrderElementsOf(ids);
    }
  }

  @Test
  void resultsWhoseReadVersionACleanupRemovedAfterAnOverwriteAreAStaleReadVersionError() {
    CheckpointStore checkpoints = fx.checkpoints();
    stageAndSeal(checkpoints, "1", 10);
    try (Dataset ds = fx.open()) {
      try (org.apache.arrow.vector.VectorSchemaRoot b = io.quiver.dataset.SampleTable.batch(fx.allocator, 100, 1)) {
        ds.overwrite(io.quiver.dataset.SampleTable.SCHEMA, List.of(b));
      }
      fx.clock.advance(Duration.ofMinutes(1));
      ds.cleanup(CleanupOptions.builder().before(fx.clock.instant()).safetyWindow(Duration.ofHours(1)).build());
      io.quiver.exceptions.StaleReadVersionException e = assertThatExceptionOfType(io.quiver.exceptions.StaleReadVersionException.class).isThrownBy(() -> fx.driver(ds, checkpoints).finalize(JOB, "1")).actual();
      assertThat(e.getMessage()).contains("version 1").contains("removed").contains("replaced the table");
      assertThat(ds.latestVersion()).isEqualTo(2);
      assertThat(checkpoints.status(JOB, "1").state()).isEqualTo(State.SEALED);
    }
  }


  @Test
  void aTaskWhoseStagingRacedWithTheSealLearnsItWasNotIncluded() {
    io.quiver.store.ObjectStore racing = new SealingBeforePutStore(fx.store, JOB, "1");
    CheckpointStore checkpoints = CheckpointStore.in(racing);
    checkpoints.stage(JOB, "1", "t0", List.of(fx.worker(10, 3)));
    ((SealingBeforePutStore) racing).armed = true;
    CheckpointStateException e = assertThatExceptionOfType(CheckpointStateException.class).isThrownBy(() -> checkpoints.stage(JOB, "1", "t1", List.of(fx.worker(20, 3)))).actual();
    assertThat(e.getMessage()).contains("was sealed while task t1 staged");
    assertThat(checkpoints.status(JOB, "1").tasks()).isEqualTo(List.of("t0"));
    assertThat(checkpoints.staged(JOB, "1").stream().mapToLong(WriteResult::rows).sum()).isEqualTo(3);
  }

  /** Seals the checkpoint (with the tasks present) right before the next task object is put. */
  private static final class SealingBeforePutStore extends io.quiver.store.ForwardingObjectStore {
    private final String job;
    private final String checkpoint;
    volatile boolean armed;

    SealingBeforePutStore(io.quiver.store.ObjectStore delegate, String job, String checkpoint) {
      super(delegate);
      this.job = job;
      this.checkpoint = checkpoint;
    }

    @Override
    public PutResult putIfAbsent(String key, byte[] data) {
      if (armed && key.contains("/task-")) {
        armed = false;
        CheckpointStore.in(delegate()).seal(job, checkpoint);
      }
      return super.putIfAbsent(key, data);
    }
  }
}
