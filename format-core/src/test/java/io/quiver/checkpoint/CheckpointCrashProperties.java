package io.quiver.checkpoint;

import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.checkpoint.CheckpointStatus.State;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.WriteResult;
import io.quiver.testing.DepthTries;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * A checkpointed job whose driver crashes (throws) at step boundaries — after a task staged, after a
 * seal, after the table commit (before marking the checkpoint committed), after marking — and restarts
 * from scratch with the same job id (and the first table commits may fail outright): whatever the crash schedule, the table ends with every staged row
 * exactly once, one commit per checkpoint, and every checkpoint marked committed.
 */
class CheckpointCrashProperties {
  private static final String JOB = "crashy-job";

  /** Thrown at a scheduled step boundary: the driver process "dies". */
  static final class Crash extends RuntimeException {
    Crash(int step) {
      super("crash at step " + step, null, false, false);
    }
  }

  /** A checkpoint store that crashes right after (or, for markCommitted, also right before) scheduled calls. */
  static final class CrashingStore implements CheckpointStore {
    private final CheckpointStore delegate;
    private final Set<Integer> schedule;
    private final int[] step;

    CrashingStore(CheckpointStore delegate, Set<Integer> schedule, int[] step) {
      this.delegate = delegate;
      this.schedule = schedule;
      this.step = step;
    }

    private void boundary() {
      int s = step[0]++;
      if (schedule.contains(s)) {
        throw new Crash(s);
      }
    }

    @Override
    public void stage(String jobId, String checkpointId, String taskId, List<WriteResult> results) {
      delegate.stage(jobId, checkpointId, taskId, results);
      boundary(); // after staging
    }

    @Override
    public CheckpointStatus seal(String jobId, String checkpointId) {
      CheckpointStatus s = delegate.seal(jobId, checkpointId);
      boundary(); // after sealing
      return s;
    }

    @Override
    public List<WriteResult> staged(String jobId, String checkpointId) {
      return delegate.staged(jobId, checkpointId);
    }

    @Override
    public void markCommitted(String jobId, String checkpointId, long version) {
      boundary(); // after the table commit, before marking
      delegate.markCommitted(jobId, checkpointId, version);
      boundary(); // after marking
    }

    @Override
    public List<String> pending(String jobId) {
      return delegate.pending(jobId);
    }

    @Override
    public CheckpointStatus status(String jobId, String checkpointId) {
      return delegate.status(jobId, checkpointId);
    }
  }

  private static long firstId(int checkpoint, int task) {
    return 1000L * (checkpoint + 1) + 100L * task;
  }

  private static int rows(int task) {
    return 2 + task;
  }

  /** One driver run from scratch: recover pending checkpoints, then run the job's checkpoints in order. */
  private static void driverRun(Fixture fx, CheckpointStore checkpoints, int nCheckpoints, int nTasks) {
    try (Dataset ds = fx.open()) {
      CheckpointedWriter driver = fx.driver(ds, checkpoints);
      driver.recover(JOB);
      for (int c = 1; c <= nCheckpoints; c++) {
        String id = Integer.toString(c);
        CheckpointStatus status = checkpoints.status(JOB, id);
        if (status.state() == State.COMMITTED) {
          continue;
        }
        if (status.state() == State.ABSENT || status.state() == State.OPEN) {
          for (int t = 0; t < nTasks; t++) {
            String task = "t" + t;
            if (!status.tasks().contains(task)) { // a staged task is never re-run
              checkpoints.stage(JOB, id, task, List.of(fx.worker(firstId(c, t), rows(t))));
            }
          }
          checkpoints.seal(JOB, id);
        }
        driver.finalize(JOB, id);
      }
    }
  }

  @Property
  @DepthTries(quick = 60, deep = 600)
  void everyStagedRowLandsExactlyOnceWhateverTheCrashSchedule(
      @ForAll @IntRange(min = 1, max = 3) int nCheckpoints,
      @ForAll @IntRange(min = 1, max = 3) int nTasks,
      @ForAll @Size(max = 8) Set<@IntRange(min = 0, max = 30) Integer> crashSteps,
      @ForAll @IntRange(min = 0, max = 2) int failedTableCommits) {
    try (Fixture fx = new Fixture().create()) {
      // The first table commits fail outright (the transaction file cannot be written): C1.
      if (failedTableCommits > 0) {
        fx.store.arm(io.quiver.store.FaultInjectingObjectStore.Op.WRITE, k -> k.startsWith("_transactions/"),
            io.quiver.store.FaultInjectingObjectStore.Fault.FAIL_BEFORE, failedTableCommits);
      }
      int[] step = {0};
      int crashes = 0;
      while (true) {
        CheckpointStore checkpoints = new CrashingStore(fx.checkpoints(), crashSteps, step);
        try {
          driverRun(fx, checkpoints, nCheckpoints, nTasks);
          break;
        } catch (Crash | io.quiver.exceptions.StoreException expected) {
          crashes++;
          assertThat(crashes).isLessThanOrEqualTo(crashSteps.size() + failedTableCommits);
        }
      }
      List<Long> expected = new ArrayList<>();
      for (long id = 0; id < 10; id++) {
        expected.add(id);
      }
      for (int c = 1; c <= nCheckpoints; c++) {
        for (int t = 0; t < nTasks; t++) {
          for (long id = firstId(c, t); id < firstId(c, t) + rows(t); id++) {
            expected.add(id);
          }
        }
      }
      try (Dataset ds = fx.open()) {
        List<Long> ids = scanIds(ds.newScan().open());
        assertThat(ids.size()).as("no row twice").isEqualTo(new HashSet<>(ids).size());
        assertThat(new TreeSet<>(ids)).isEqualTo(new TreeSet<>(expected));
        assertThat(ds.latestVersion()).as("one commit per checkpoint").isEqualTo(1 + nCheckpoints);
        assertThat(fx.workerRuns.get()).as("every task ran exactly once").isEqualTo(nCheckpoints * nTasks);
        CheckpointStore checkpoints = fx.checkpoints();
        for (int c = 1; c <= nCheckpoints; c++) {
          assertThat(checkpoints.status(JOB, Integer.toString(c)).state()).isEqualTo(State.COMMITTED);
        }
        assertThat(checkpoints.pending(JOB)).isEqualTo(List.of());
      }
    }
  }
}
