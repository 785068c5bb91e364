package io.quiver.flink.sink;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.exceptions.StaleReadVersionException;
import io.quiver.exceptions.StoreException;
import io.quiver.manifest.CommitLedger;
import io.quiver.store.ObjectStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.connector.sink2.Committer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits each checkpoint's committable once, in checkpoint order, under the application sequence ({@code
 * jobId/operatorUid}, checkpoint id). A committable at or below that application's watermark in the latest
 * version's ledger was committed already (a restore re-delivers every committable it cannot know was
 * acknowledged): {@code signalAlreadyCommitted}, from any version and after any cleanup. A commit whose outcome
 * is unknown, or that lost to a concurrent commit, is retried later (and then found by the watermark if it did
 * land); the committer never deletes a file. Before committing a checkpoint not yet committed, it checks that
 * every data file of its results still exists ({@link ObjectStore#head}); when one is missing (a cleanup with
 * too short a safety window removed it) nothing is committed and the job fails with {@link
 * MissingDataFilesException}. What a commit is — an append, an upsert — is the subclass's.
 *
 * @param <C> the committable
 */
abstract class CheckpointCommitter<C> implements Committer<C> {
  private static final Logger LOG = LoggerFactory.getLogger(CheckpointCommitter.class);

  final String uri;
  private final DatasetOptions options;
  private Dataset dataset;
  /** The table's store, to check that a checkpoint's files still exist before committing them. */
  private ObjectStore store;

  CheckpointCommitter(String uri, DatasetOptions options) {
    this.uri = uri;
    this.options = options;
  }

  /** The checkpoint a committable belongs to: its sequence number under its application. */
  abstract long checkpointId(C c);

  /** The application the committable's checkpoint is committed under ({@code jobId/operatorUid}). */
  abstract String applicationId(C c);

  /** The data files' write results the commit publishes (checked to exist before committing). */
  abstract List<WriteResult> results(C c);

  /** True when the committable changes nothing: then nothing is committed. */
  abstract boolean changesNothing(C c);

  /** Rows the committable writes, for messages. */
  abstract long rows(C c);

  /**
   * Commits {@code c}, not yet committed, on {@code table} (at the latest version) under the application
   * sequence ({@code applicationId(c)}, {@code checkpointId(c)}); returns the version.
   */
  abstract long commitNew(Dataset table, C c, CommitOptions sequence) throws InterruptedException;

  @Override
  public void commit(Collection<CommitRequest<C>> requests) throws InterruptedException {
    List<CommitRequest<C>> ordered = new ArrayList<>(requests);
    ordered.sort(Comparator.comparingLong(r -> checkpointId(r.getCommittable())));
    for (CommitRequest<C> request : ordered) {
      commit(request);
    }
  }

  private void commit(CommitRequest<C> request) throws InterruptedException {
    C c = request.getCommittable();
    String app = applicationId(c);
    long checkpoint = checkpointId(c);
    try {
      Dataset table = dataset();
      SinkFaults faults = SinkFaults.current();
      Optional<CommitLedger.SequenceWatermark> mark = faults.ledgerIgnored()
          ? Optional.empty()
          : table.distributed().applicationWatermark(app);
      if (mark.isPresent() && mark.get().sequence() >= checkpoint) {
        LOG.info("{} is already in {} (watermark {} at version {})", c, uri, mark.get().sequence(),
            mark.get().version());
        request.signalAlreadyCommitted();
        return;
      }
      if (changesNothing(c)) {
        return;
      }
      requireFiles(c);
      long version = commitNew(table, c, faults.ledgerIgnored()
          ? CommitOptions.defaults()
          : CommitOptions.defaults().withApplicationSequence(app, checkpoint));
      LOG.info("committed {} to {} as version {}", c, uri, version);
      faults.afterTableCommit(app, checkpoint, version);
    } catch (StaleReadVersionException e) {
      throw e; // retrying cannot bring removed versions back
    } catch (StoreException | RetryableConflictException e) {
      if (interrupted(e)) {
        // The task is being cancelled (a failover, a stop): the restored committer asks the watermark.
        closeDataset();
        InterruptedException stop = new InterruptedException("commit of " + c + " interrupted");
        stop.initCause(e);
        throw stop;
      }
      // Unknown outcome, an unreachable store, a lost race: the next attempt first asks the watermark.
      LOG.warn("commit of {} to {} did not complete ({}); retrying (attempt {})", c, uri, e.getMessage(),
          request.getNumberOfRetries() + 1);
      closeDataset();
      request.retryLater();
    }
  }

  /**
   * Fails with {@link MissingDataFilesException} unless every data file of {@code c}'s results exists: a cleanup
   * with too short a safety window may have removed them as orphans, and committing would publish a version
   * whose files are gone. (A cleanup racing with this check can still remove a file before the commit lands;
   * the safety window is what rules that out.)
   */
  private void requireFiles(C c) {
    ObjectStore files = store();
    List<String> missing = new ArrayList<>();
    int total = 0;
    for (WriteResult result : results(c)) {
      for (String key : result.files()) { // relative to the table's location: data/...
        total++;
        if (files.head(key).isEmpty()) {
          missing.add(key);
        }
      }
    }
    if (!missing.isEmpty()) {
      throw new MissingDataFilesException(uri, applicationId(c), checkpointId(c), missing, total, rows(c));
    }
  }

  private static boolean interrupted(Throwable e) {
    if (Thread.currentThread().isInterrupted()) {
      return true;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InterruptedException || t instanceof java.io.InterruptedIOException) {
        return true;
      }
    }
    return false;
  }

  /** The table, at the version it was opened or last moved to. */
  Dataset dataset() {
    if (dataset == null) {
      dataset = Dataset.open(uri, options);
    }
    return dataset;
  }

  private ObjectStore store() {
    if (store == null) {
      store = options.registry().open(uri, options.storeOptions());
    }
    return store;
  }

  void closeDataset() {
    try {
      if (dataset != null) {
        dataset.close();
      }
    } finally {
      dataset = null;
      try {
        if (store != null) {
          store.close();
        }
      } catch (RuntimeException e) {
        LOG.warn("closing the store of {} failed: {}", uri, e.toString());
      } finally {
        store = null;
      }
    }
  }

  @Override
  public void close() {
    closeDataset();
  }
}
