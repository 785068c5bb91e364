package io.quiver.checkpoint;

import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.WriteResult;
import io.quiver.internal.checkpoint.ObjectStoreCheckpointStore;
import io.quiver.store.ObjectStore;
import java.util.List;

/**
 * Durable staging of worker write results per checkpoint, so a job that fails after its workers wrote
 * data files — but before the table commit — can commit those files later without re-running the
 * workers. Ids are 1 to 128 characters of letters, digits, {@code . _ = -}, not starting with a
 * punctuation character.
 *
 * <p>Life of a checkpoint: tasks {@link #stage} their results (atomic per task, safe to repeat); the engine
 * {@link #seal}s it once every task of the checkpoint has staged; the driver commits the sealed results
 * (see {@link CheckpointedWriter#finalize}) and {@link #markCommitted marks} it committed.
 *
 * <p>{@link #open} and {@link #in} give the store Quiver provides, under {@code _staging/} of an object
 * store; every object is created with a conditional put, so concurrent or repeated calls converge. In the
 * table's own store (the table URI), {@link io.quiver.dataset.Dataset#cleanup cleanup} knows the staged
 * checkpoints and never removes the data files of a sealed, uncommitted one. A store at another URI is not
 * seen by cleanup: then the table's safety window must exceed the longest time between a worker's write
 * and the driver's commit.
 */
public interface CheckpointStore extends AutoCloseable {

  /**
   * The checkpoint store under {@code uri}'s {@code _staging/} (normally the table URI), opened with
   * {@code options}' store registry and options. Close it when done: it closes the store it opened.
   */
  static CheckpointStore open(String uri, DatasetOptions options) {
    return ObjectStoreCheckpointStore.open(uri, options);
  }

  /** The checkpoint store under {@code store}'s {@code _staging/}; closing it does not close {@code store}. */
  static CheckpointStore in(ObjectStore store) {
    return new ObjectStoreCheckpointStore(store);
  }

  /**
   * Stages one task's results, atomically: either all of them are staged or none. Staging the same
   * results again for the same task is a no-op.
   *
   * @throws io.quiver.exceptions.StagedResultConflictException if the task already staged different results
   * @throws io.quiver.exceptions.CheckpointStateException if the checkpoint is sealed and does not hold
   *     exactly these results for the task
   * @throws io.quiver.exceptions.InvalidArgumentException for an invalid id
   */
  void stage(String jobId, String checkpointId, String taskId, List<WriteResult> results);

  /**
   * Seals the checkpoint: the tasks staged now are the ones committed; later staging is rejected. Sealing
   * again is a no-op. Sealing a checkpoint with no staged task is allowed (it commits nothing).
   */
  CheckpointStatus seal(String jobId, String checkpointId);

  /**
   * The results the sealed checkpoint's tasks staged, in task-id order.
   *
   * @throws io.quiver.exceptions.CheckpointStateException if the checkpoint is not sealed
   */
  List<WriteResult> staged(String jobId, String checkpointId);

  /** Records that the checkpoint's results are in the table at {@code version}. Repeating it is a no-op. */
  void markCommitted(String jobId, String checkpointId, long version);

  /** The job's sealed, not yet committed checkpoints, in checkpoint order (numeric ids by value). */
  List<String> pending(String jobId);

  /** Where the checkpoint stands. */
  CheckpointStatus status(String jobId, String checkpointId);

  /** Releases what {@link #open} opened; a no-op for a store over a caller's {@link ObjectStore}. */
  @Override
  default void close() {}
}
