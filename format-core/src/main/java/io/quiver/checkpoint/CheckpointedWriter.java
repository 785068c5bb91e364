package io.quiver.checkpoint;

import io.quiver.checkpoint.CheckpointStatus.State;
import io.quiver.dataset.CommitLookup;
import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.CommitRecord;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.WriteMode;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.CheckpointStateException;
import io.quiver.exceptions.IdempotenceKeyConflictException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.checkpoint.StagingLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The driver side of checkpointed, exactly-once appends: {@link #finalize(String, String)} commits a sealed
 * checkpoint's staged results as ONE append under the idempotence key {@code jobId/checkpointId}, then marks
 * the checkpoint committed. Every step is safe to repeat after a crash at any point: a commit already in
 * the table's history under the key is never made again (the checkpoint is only marked), and two drivers
 * finalizing the same checkpoint at once produce one commit.
 *
 * <p>Only appends can be checkpointed: an overwrite replayed after a partial failure would discard rows
 * committed by earlier checkpoints of the same job.
 */
public final class CheckpointedWriter {
  private final Dataset dataset;
  private final CheckpointStore store;
  private final CommitOptions commitOptions;

  private CheckpointedWriter(Dataset dataset, CheckpointStore store, CommitOptions commitOptions) {
    this.dataset = Objects.requireNonNull(dataset, "dataset");
    this.store = Objects.requireNonNull(store, "store");
    this.commitOptions = Objects.requireNonNull(commitOptions, "commitOptions");
  }

  /** An appending checkpointed writer with default commit options. */
  public static CheckpointedWriter create(Dataset dataset, CheckpointStore store) {
    return create(dataset, store, WriteMode.APPEND, CommitOptions.defaults());
  }

  /**
   * A checkpointed writer. {@code commitOptions}' own idempotence key is replaced by {@code jobId/checkpointId}
   * per checkpoint.
   *
   * @throws InvalidArgumentException for any mode but {@link WriteMode#APPEND}: checkpointed writes are
   *     append-only
   */
  public static CheckpointedWriter create(Dataset dataset, CheckpointStore store, WriteMode mode,
      CommitOptions commitOptions) {
    if (mode != WriteMode.APPEND) {
      throw new InvalidArgumentException(
          "checkpointed writes support only WriteMode.APPEND, got " + mode + ": a checkpoint's commit may be"
              + " replayed after a failure, and a replayed " + mode + " would discard the rows earlier checkpoints"
              + " committed. Write without checkpointing for " + mode + ", or append.");
    }
    return new CheckpointedWriter(dataset, store, commitOptions);
  }

  /** The idempotence key a checkpoint commits under. */
  public static String idempotenceKey(String jobId, String checkpointId) {
    StagingLayout.validId("job id", jobId);
    StagingLayout.validId("checkpoint id", checkpointId);
    return jobId + "/" + checkpointId;
  }

  /** What {@link #finalize} did. */
  public enum Outcome {
    /**
     * The checkpoint's results are committed: by this call, or by a driver racing with it whose commit this
     * call's commit loop found under the same key (either way, exactly once).
     */
    COMMITTED,
    /** The results were already in the table under the checkpoint's key; this call only marked it. */
    FOUND_IN_HISTORY,
    /** The checkpoint was already marked committed; nothing was done. */
    ALREADY_MARKED,
    /** The sealed checkpoint held no results; it was marked committed at the latest version. */
    EMPTY
  }

  /**
   * The result of finalizing one checkpoint.
   *
   * @param checkpointId the checkpoint
   * @param version the table version holding its rows
   * @param outcome what this call did
   */
  public record Finalized(String checkpointId, long version, Outcome outcome) {}

  /**
   * Commits the sealed checkpoint's staged results as one append under the key {@code jobId/checkpointId}
   * and marks it committed; converges after a crash at any step.
   *
   * @throws CheckpointStateException if the checkpoint is not sealed (or does not exist) and its key is not
   *     in the table's history
   * @throws IdempotenceKeyConflictException if the key was committed with other content than the staged results
   * @throws io.quiver.exceptions.SchemaMismatchException if the results no longer fit the table's schema
   */
  public Finalized finalize(String jobId, String checkpointId) {
    String key = idempotenceKey(jobId, checkpointId);
    CheckpointStatus status = store.status(jobId, checkpointId);
    if (status.state() == State.COMMITTED) {
      return new Finalized(checkpointId, status.committedVersion().orElseThrow(), Outcome.ALREADY_MARKED);
    }
    if (status.state() != State.SEALED) {
      CommitLookup found = dataset.distributed().findCommit(key, 0);
      if (found.isCommitted()) {
        store.markCommitted(jobId, checkpointId, found.version());
        return new Finalized(checkpointId, found.version(), Outcome.FOUND_IN_HISTORY);
      }
      throw new CheckpointStateException(
          "checkpoint " + checkpointId + " of job " + jobId + " is " + status.state().name().toLowerCase()
              + " and the table's idempotence ledger says of key '" + key + "': " + found + ". Seal the checkpoint"
              + " (after every task staged) before finalizing it.");
    }
    List<WriteResult> results = store.staged(jobId, checkpointId);
    long read = results.stream().mapToLong(WriteResult::readVersion).min().orElse(0);
    // The ledger of the latest version answers whatever was cleaned up since the results were written.
    CommitLookup found = dataset.distributed().findCommit(key, read);
    if (found.isCommitted()) {
      CommitRecord record = found.commit().orElseThrow();
      if (!results.isEmpty() && !WriteResult.appendDigest(results).equals(record.operationDigest())) {
        throw new IdempotenceKeyConflictException(key, record.version(),
            "checkpoint " + checkpointId + " of job " + jobId + ": version " + record.version() + " of "
                + dataset.uri() + " was committed under key '" + key + "' with other rows than the "
                + results.size() + " staged results hold. Nothing was committed or marked; a job id must not be"
                + " reused for different data.");
      }
      store.markCommitted(jobId, checkpointId, record.version());
      return new Finalized(checkpointId, record.version(), Outcome.FOUND_IN_HISTORY);
    }
    if (results.isEmpty()) {
      long latest = dataset.latestVersion();
      store.markCommitted(jobId, checkpointId, latest);
      return new Finalized(checkpointId, latest, Outcome.EMPTY);
    }
    // NOT_COMMITTED, or UNKNOWN (the ledger no longer covers the results' read version): the commit checks
    // the key again, against the ledger and, where it cannot answer, the versions since the read version —
    // and refuses (StaleReadVersionException) rather than risk a second commit.
    long version = dataset.distributed().commit(results, WriteMode.APPEND, commitOptions.withIdempotenceKey(key));
    store.markCommitted(jobId, checkpointId, version);
    return new Finalized(checkpointId, version, Outcome.COMMITTED);
  }

  /** Finalizes every pending (sealed, uncommitted) checkpoint of the job, in checkpoint order. */
  public List<Finalized> recover(String jobId) {
    List<Finalized> out = new ArrayList<>();
    for (String checkpointId : store.pending(jobId)) {
      out.add(finalize(jobId, checkpointId));
    }
    return out;
  }
}
