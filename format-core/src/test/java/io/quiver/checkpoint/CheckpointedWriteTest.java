package io.quiver.checkpoint;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
    assertEquals(State.SEALED, checkpoints.seal(JOB, checkpointId).state());
  }

  @Test
  void stagingIsAtomicPerTaskAndSafeToRepeat() {
    CheckpointStore checkpoints = fx.checkpoints();
    WriteResult r = fx.worker(10, 3);
    checkpoints.stage(JOB, "1", "t0", List.of(r));
    checkpoints.stage(JOB, "1", "t0", List.of(WriteResult.decode(r.encode())));
    assertThrows(StagedResultConflictException.class, () -> checkpoints.stage(JOB, "1", "t0", List.of(fx.worker(10, 3))));
    CheckpointStatus status = checkpoints.status(JOB, "1");
    assertEquals(State.OPEN, status.state());
    assertEquals(List.of("t0"), status.tasks());
    assertEquals(State.ABSENT, checkpoints.status(JOB, "2").state());
    assertThrows(CheckpointStateException.class, () -> checkpoints.staged(JOB, "1"));
    assertThrows(InvalidArgumentException.class, () -> checkpoints.stage("../x", "1", "t0", List.of(r)));
    assertThrows(InvalidArgumentException.class, () -> checkpoints.stage(JOB, "1", "a/b", List.of(r)));
  }

  @Test
  void aSealFixesTheTasksAndLaterStagingIsRejected() {
    CheckpointStore checkpoints = fx.checkpoints();
    WriteResult r = fx.worker(10, 3);
    checkpoints.stage(JOB, "1", "t0", List.of(r));
    assertEquals(List.of("t0"), checkpoints.seal(JOB, "1").tasks());
    checkpoints.seal(JOB, "1");
    checkpoints.stage(JOB, "1", "t0", List.of(r)); // an identical repeat is still fine
    CheckpointStateException e = assertThrows(CheckpointStateException.class,
        () -> checkpoints.stage(JOB, "1", "t1", List.of(fx.worker(20, 3))));
    assertThat(e.getMessage()).contains("sealed");
    assertEquals(List.of(r), checkpoints.staged(JOB, "1"));
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
    assertEquals(List.of("9", "10"), checkpoints.pending(JOB));
    assertEquals(List.of(), checkpoints.pending("other-job"));
  }

  @Test
  void finalizeCommitsOneAppendAndMarksTheCheckpoint() {
    CheckpointStore checkpoints = fx.checkpoints();
    stageAndSeal(checkpoints, "1", 10);
    try (Dataset ds = fx.open()) {
      CheckpointedWriter driver = fx.driver(ds, checkpoints);
      assertEquals(new Finalized("1", 2, Outcome.COMMITTED), driver.finalize(JOB, "1"));
      assertEquals(new Finalized("1", 2, Outcome.ALREADY_MARKED), driver.finalize(JOB, "1"));
      assertEquals(2, ds.latestVersion());
      assertEquals(range(0, 22), scanIds(ds.checkoutLatest().newScan().open()));
      assertEquals(2, ds.distributed().findCommit(JOB + "/1", 0).version());
      assertEquals(State.COMMITTED, checkpoints.status(JOB, "1").state());
      assertEquals(List.of(), checkpoints.pending(JOB));
    }
  }

  @Test
  void finalizingAnUnsealedCheckpointIsAStateError() {
    CheckpointStore checkpoints = fx.checkpoints();
    checkpoints.stage(JOB, "1", "t0", List.of(fx.worker(10, 3)));
    try (Dataset ds = fx.open()) {
      CheckpointedWriter driver = fx.driver(ds, checkpoints);
      assertThrows(CheckpointStateException.class, () -> driver.finalize(JOB, "1"));
      assertThrows(CheckpointStateException.class, () -> driver.finalize(JOB, "absent"));
      assertEquals(1, ds.latestVersion());
    }
  }

  @Test
  void anEmptySealedCheckpointCommitsNothing() {
    CheckpointStore checkpoints = fx.checkpoints();
    checkpoints.seal(JOB, "1");
    try (Dataset ds = fx.open()) {
      assertEquals(new Finalized("1", 1, Outcome.EMPTY), fx.driver(ds, checkpoints).finalize(JOB, "1"));
      assertEquals(1, ds.latestVersion());
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
        assertThrows(IdempotenceKeyConflictException.class,
            () -> stale.distributed().commit(staged, WriteMode.APPEND, CommitOptions.defaults().withIdempotenceKey(JOB + "/1")));
      }
      assertEquals(2, ds.latestVersion());
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
      assertEquals(2, first.version());
      assertEquals(2, second.version());
      assertEquals(2, a.latestVersion(), "exactly one commit");
      assertEquals(range(0, 22), scanIds(a.checkoutLatest().newScan().open()));
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
      assertEquals(io.quiver.dataset.CommitLookup.Status.NOT_COMMITTED, b.distributed().findCommit(JOB + "/1", 0).status());
      // ... then driver a finalizes first ...
      assertEquals(Outcome.COMMITTED, fx.driver(a, checkpoints).finalize(JOB, "1").outcome());
      // ... and b's commit under the same key finds a's version instead of committing again.
      assertEquals(2, b.distributed().commit(staged, WriteMode.APPEND, CommitOptions.defaults().withIdempotenceKey(JOB + "/1")));
      assertEquals(2, a.latestVersion());
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
      assertEquals(before + 1, dataFiles());
      assertEquals(range(0, 10), scanIds(ds.newScan().open()));
      assertEquals(0, ds.cleanup(hourWindow()).dataFilesRemoved(), "within the safety window");
      fx.clock.advance(Duration.ofHours(2));
      assertEquals(1, ds.cleanup(hourWindow()).dataFilesRemoved());
      assertEquals(before, dataFiles());
      assertEquals(range(0, 10), scanIds(ds.checkoutLatest().newScan().open()));
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
      assertEquals(0, young.stagingFilesRemoved());
      assertEquals(0, young.dataFilesRemoved());
      fx.clock.advance(Duration.ofHours(1));
      CleanupReport report = ds.cleanup(hourWindow());
      assertEquals(1, report.stagingFilesRemoved());
      assertEquals(1, report.dataFilesRemoved());
      assertEquals(0, stagingFiles());
      assertEquals(before, dataFiles());
      assertEquals(State.ABSENT, checkpoints.status("abandoned", "1").state());
    }
  }

  @Test
  void b3_cleanupNeverRemovesTheFilesOfASealedUncommittedCheckpoint() {
    CheckpointStore checkpoints = fx.checkpoints();
    stageAndSeal(checkpoints, "1", 10);
    try (Dataset ds = fx.open()) {
      fx.clock.advance(Duration.ofDays(30));
      CleanupReport report = ds.cleanup(hourWindow());
      assertEquals(0, report.dataFilesRemoved());
      assertEquals(0, report.stagingFilesRemoved());
      // Much later, the job recovers and commits the checkpoint; its rows are all readable.
      assertEquals(Outcome.COMMITTED, fx.driver(ds, checkpoints).finalize(JOB, "1").outcome());
      assertEquals(range(0, 22), scanIds(ds.checkoutLatest().newScan().open()));
      // Once committed, the staging objects go after the safety window; the table's files stay.
      fx.clock.advance(Duration.ofHours(2));
      CleanupReport after = ds.cleanup(hourWindow());
      assertEquals(4, after.stagingFilesRemoved(), "two tasks, the seal and the commit marker");
      assertEquals(0, after.dataFilesRemoved());
      assertEquals(0, stagingFiles());
      assertEquals(range(0, 22), scanIds(ds.checkoutLatest().newScan().open()));
      // A late retry of the removed checkpoint still converges through the table's history.
      assertEquals(Outcome.FOUND_IN_HISTORY, fx.driver(ds, checkpoints).finalize(JOB, "1").outcome());
      assertEquals(2, ds.latestVersion());
    }
  }

  @Test
  void cleanupKeepsTheFilesOfAnOpenCheckpointStagingWithinTheWindow() {
    CheckpointStore checkpoints = fx.checkpoints();
    WriteResult early = fx.worker(10, 5);
    fx.clock.advance(Duration.ofMinutes(90)); // a slow task: its file is older than the window when it stages
    checkpoints.stage(JOB, "1", "t0", List.of(early));
    try (Dataset ds = fx.open()) {
      assertEquals(0, ds.cleanup(hourWindow()).dataFilesRemoved());
      checkpoints.seal(JOB, "1");
      fx.driver(ds, checkpoints).finalize(JOB, "1");
      assertEquals(range(0, 15), scanIds(ds.checkoutLatest().newScan().open()));
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
      assertEquals(List.of(2L), ds.versions().stream().map(v -> v.version()).toList());
      // Version 1 (the results' read version) is gone; the schema is unchanged and nothing replaced the table
      // since, so the append is committed on the latest version — once.
      assertEquals(new Finalized("1", 3, Outcome.COMMITTED), fx.driver(ds, checkpoints).finalize(JOB, "1"));
      assertEquals(new Finalized("1", 3, Outcome.ALREADY_MARKED), fx.driver(ds, checkpoints).finalize(JOB, "1"));
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
      io.quiver.exceptions.StaleReadVersionException e = assertThrows(
          io.quiver.exceptions.StaleReadVersionException.class, () -> fx.driver(ds, checkpoints).finalize(JOB, "1"));
      assertThat(e.getMessage()).contains("version 1").contains("removed").contains("replaced the table");
      assertEquals(2, ds.latestVersion());
      assertEquals(State.SEALED, checkpoints.status(JOB, "1").state());
    }
  }


  @Test
  void aTaskWhoseStagingRacedWithTheSealLearnsItWasNotIncluded() {
    io.quiver.store.ObjectStore racing = new SealingBeforePutStore(fx.store, JOB, "1");
    CheckpointStore checkpoints = CheckpointStore.in(racing);
    checkpoints.stage(JOB, "1", "t0", List.of(fx.worker(10, 3)));
    ((SealingBeforePutStore) racing).armed = true;
    CheckpointStateException e = assertThrows(CheckpointStateException.class,
        () -> checkpoints.stage(JOB, "1", "t1", List.of(fx.worker(20, 3))));
    assertThat(e.getMessage()).contains("was sealed while task t1 staged");
    assertEquals(List.of("t0"), checkpoints.status(JOB, "1").tasks());
    assertEquals(3, checkpoints.staged(JOB, "1").stream().mapToLong(WriteResult::rows).sum());
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
