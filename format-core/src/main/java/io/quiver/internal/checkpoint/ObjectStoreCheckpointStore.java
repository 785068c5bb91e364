package io.quiver.internal.checkpoint;

import io.quiver.checkpoint.CheckpointStatus.State;
import io.quiver.checkpoint.CheckpointStatus;
import io.quiver.checkpoint.CheckpointStore;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.WorkerResults;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.CheckpointStateException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.exceptions.StagedResultConflictException;
import io.quiver.internal.codec.WriteResultCodec;
import io.quiver.store.ObjectStore.PutResult;
import io.quiver.store.ObjectStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;

/**
 * The {@link CheckpointStore} behind {@link CheckpointStore#open} and {@link CheckpointStore#in}: objects
 * under {@code _staging/} (see {@link StagingLayout}), each created with {@code putIfAbsent}, so concurrent
 * or repeated calls converge: a task's results, the seal and the commit marker are each written once, and
 * a repeat with the same content is a no-op.
 */
public final class ObjectStoreCheckpointStore implements CheckpointStore, AutoCloseable {
  private final ObjectStore store;
  private final boolean ownsStore;

  /** A checkpoint store in {@code store} (not closed by {@link #close()}). */
  public ObjectStoreCheckpointStore(ObjectStore store) {
    this(store, false);
  }

  private ObjectStoreCheckpointStore(ObjectStore store, boolean ownsStore) {
    this.store = Objects.requireNonNull(store, "store");
    this.ownsStore = ownsStore;
  }

  /** A checkpoint store under {@code uri}'s {@code _staging/} (normally the table URI); close it when done. */
  public static ObjectStoreCheckpointStore open(String uri, DatasetOptions options) {
    return new ObjectStoreCheckpointStore(options.registry().open(uri, options.storeOptions()), true);
  }

  @Override
  public void stage(String jobId, String checkpointId, String taskId, List<WriteResult> results) {
    Objects.requireNonNull(results, "results");
    String key = StagingLayout.taskKey(jobId, checkpointId, taskId);
    byte[] bytes = WorkerResults.of(results).encode();
    String prefix = StagingLayout.checkpointPrefix(jobId, checkpointId);
    if (store.head(prefix + StagingLayout.SEALED).isPresent()) {
      if (sameContent(key, bytes)) {
        return;
      }
      throw new CheckpointStateException(
          "checkpoint " + checkpointId + " of job " + jobId + " is sealed; task " + taskId + " cannot stage results"
              + " into it any more (the seal fixed its tasks). Stage them under a later checkpoint.");
    }
    if (store.putIfAbsent(key, bytes) == PutResult.CREATED) {
      // A seal that raced with this put may not include the task: then its results would never commit.
      Optional<WriteResultCodec.Marker> seal = StagingLayout.marker(store, prefix + StagingLayout.SEALED);
      if (seal.isPresent() && !seal.get().tasks().contains(taskId)) {
        throw new CheckpointStateException(
            "checkpoint " + checkpointId + " of job " + jobId + " was sealed while task " + taskId + " staged; the"
                + " seal does not include the task, so its results will not be committed with the checkpoint."
                + " Stage them under a later checkpoint.");
      }
      return;
    }
    if (!sameContent(key, bytes)) {
      throw new StagedResultConflictException(
          "task " + taskId + " of checkpoint " + checkpointId + " of job " + jobId + " already staged different"
              + " results (" + store.locationOf(key) + "); the first results stand. A re-run task must not stage"
              + " again under the same checkpoint: skip tasks listed in status(" + jobId + ", " + checkpointId
              + ").tasks().");
    }
  }

  private boolean sameContent(String key, byte[] bytes) {
    try {
      return Arrays.equals(store.read(key), bytes);
    } catch (ObjectNotFoundException e) {
      return false;
    }
  }

  @Override
  public CheckpointStatus seal(String jobId, String checkpointId) {
    String prefix = StagingLayout.checkpointPrefix(jobId, checkpointId);
    List<String> tasks = new ArrayList<>(new TreeSet<>(taskIds(jobId, checkpointId)));
    store.putIfAbsent(prefix + StagingLayout.SEALED, WriteResultCodec.encodeMarker(new WriteResultCodec.Marker(tasks, 0)));
    return status(jobId, checkpointId);
  }

  private List<String> taskIds(String jobId, String checkpointId) {
    String prefix = StagingLayout.checkpointPrefix(jobId, checkpointId);
    List<String> out = new ArrayList<>();
    for (StagingLayout.Checkpoint c : StagingLayout.inventory(store, prefix)) {
      out.addAll(c.tasks().keySet());
    }
    return out;
  }

  @Override
  public List<WriteResult> staged(String jobId, String checkpointId) {
    String prefix = StagingLayout.checkpointPrefix(jobId, checkpointId);
    Optional<WriteResultCodec.Marker> seal = StagingLayout.marker(store, prefix + StagingLayout.SEALED);
    if (seal.isEmpty()) {
      throw new CheckpointStateException(
          "checkpoint " + checkpointId + " of job " + jobId + " is not sealed; its staged results are not final."
              + " Seal it once every task has staged, then read or finalize it.");
    }
    List<WriteResult> out = new ArrayList<>();
    for (String task : seal.get().tasks()) {
      out.addAll(StagingLayout.taskResults(store, StagingLayout.taskKey(jobId, checkpointId, task)));
    }
    return out;
  }

  @Override
  public void markCommitted(String jobId, String checkpointId, long version) {
    if (version < 0) {
      throw new InvalidArgumentException("a committed version must be >= 0, got " + version);
    }
    String prefix = StagingLayout.checkpointPrefix(jobId, checkpointId);
    store.putIfAbsent(prefix + StagingLayout.COMMITTED,
        WriteResultCodec.encodeMarker(new WriteResultCodec.Marker(List.of(), version)));
  }

  @Override
  public List<String> pending(String jobId) {
    String prefix = StagingLayout.PREFIX + StagingLayout.validId("job id", jobId) + "/";
    List<String> out = new ArrayList<>();
    for (StagingLayout.Checkpoint c : StagingLayout.inventory(store, prefix)) {
      if (c.sealed().isPresent() && c.committed().isEmpty()) {
        out.add(c.checkpointId());
      }
    }
    out.sort(StagingLayout.CHECKPOINT_ORDER);
    return out;
  }

  @Override
  public CheckpointStatus status(String jobId, String checkpointId) {
    String prefix = StagingLayout.checkpointPrefix(jobId, checkpointId);
    List<StagingLayout.Checkpoint> found = StagingLayout.inventory(store, prefix);
    if (found.isEmpty()) {
      return new CheckpointStatus(jobId, checkpointId, State.ABSENT, List.of(), OptionalLong.empty());
    }
    StagingLayout.Checkpoint c = found.get(0);
    List<String> tasks = new ArrayList<>(new TreeSet<>(c.tasks().keySet()));
    if (c.committed().isPresent()) {
      long version = StagingLayout.marker(store, prefix + StagingLayout.COMMITTED).orElseThrow().committedVersion();
      return new CheckpointStatus(jobId, checkpointId, State.COMMITTED, tasks, OptionalLong.of(version));
    }
    if (c.sealed().isPresent()) {
      return new CheckpointStatus(jobId, checkpointId, State.SEALED, StagingLayout.sealedTasks(store, c),
          OptionalLong.empty());
    }
    return new CheckpointStatus(jobId, checkpointId, State.OPEN, tasks, OptionalLong.empty());
  }

  @Override
  public void close() {
    if (ownsStore) {
      store.close();
    }
  }
}
