package io.quiver.checkpoint;

import java.util.List;
import java.util.OptionalLong;

/**
 * Where a checkpoint stands.
 *
 * @param jobId the job
 * @param checkpointId the checkpoint
 * @param state its state
 * @param tasks ids of the tasks staged (when sealed: those the seal includes), sorted
 * @param committedVersion the table version holding its rows, once committed
 */
public record CheckpointStatus(
    String jobId, String checkpointId, State state, List<String> tasks, OptionalLong committedVersion) {

  public CheckpointStatus {
    tasks = List.copyOf(tasks);
  }

  /** The life of a checkpoint: ABSENT → OPEN (tasks staging) → SEALED → COMMITTED. */
  public enum State {
    /** Nothing was staged under it (or cleanup removed it after it was committed or abandoned). */
    ABSENT,
    /** Tasks are staging results; not sealed yet. */
    OPEN,
    /** Sealed: its staged results are final and wait for the driver's commit. */
    SEALED,
    /** Its results were committed to the table at {@link #committedVersion()}. */
    COMMITTED
  }
}
