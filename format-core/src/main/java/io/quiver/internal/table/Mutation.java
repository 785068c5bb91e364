package io.quiver.internal.table;

import io.quiver.dataset.CommitOptions;
import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.StoreException;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.Transaction;
import io.quiver.internal.txn.TransactionRebaser;
import io.quiver.manifest.Manifest;
import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.ObjectStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one path every change of a table takes: prepare (write the files the change needs, each recorded),
 * build the transaction, commit it through the {@link CommitLoop}, and on a definite failure delete what
 * was written. Every operation runs through {@link #run}: append, overwrite and create, delete, update,
 * compaction, column changes, staged column-write and distributed commits, restore and configuration. It
 * is the only place that creates a transaction to commit.
 *
 * <p><b>Which files a mutation owns.</b> Exactly the objects written through {@link #io()} while it runs:
 * the data, overlay and deletion files its prepare step writes (a partial one included), the deletion files
 * a rebase writes during the commit, and the transaction file the commit loop writes before its first
 * claim. Each of those keys is fresh (a new UUID in its name), so no object anyone else wrote is among
 * them. Files the caller brings are never owned: workers' write results and staged column writes were
 * written through other handles, and belong to the caller until a commit publishes them (a failed commit
 * leaves them for the caller to commit again; {@code cleanup} removes them once they are unreferenced and
 * older than its safety window).
 *
 * <p><b>When owned files are deleted.</b> When nothing of this mutation was published:
 * <ul>
 *   <li>any failure while preparing;
 *   <li>any failure of the commit loop that is not {@link CommitStateUnknownException} and was not raised
 *       while a claim was unsettled ({@link CommitLoop#claimInDoubt()}): a conflict, exhausted retries, a
 *       stale read version, an idempotence key conflict, a stale column write, a store error before or
 *       between claims;
 *   <li>the commit loop published nothing because another transaction had committed the same change under
 *       its idempotence key or application sequence (the files are unreferenced);
 *   <li>the work returned without committing (nothing to commit).
 * </ul>
 * Never when the outcome is unknown (the version may hold the commit and reference every one of them),
 * and never once a commit landed. Deleting is best effort: what could not be deleted is reported as a
 * suppressed exception on the failure (or logged), and cleanup removes it after its safety window.
 */
public final class Mutation {
  private static final Logger LOG = LoggerFactory.getLogger(Mutation.class);

  /** The work of one mutation: writes through {@link Mutation#io()} and commits at most once. */
  @FunctionalInterface
  public interface Work<T> {
    T run(Mutation mutation);
  }

  private enum State {
    PREPARING,
    COMMITTING,
    COMMITTED
  }

  private final TableIo table;
  private final Clock clock;
  private final Recording recording;
  private final TableIo io;
  private State state = State.PREPARING;
  private CommitLoop loop;

  private Mutation(TableIo table, Clock clock) {
    this.table = table;
    this.clock = clock;
    this.recording = new Recording(table.store());
    this.io = table.withStore(recording);
  }

  /**
   * Runs {@code work} as one mutation of {@code table}, and deletes what it wrote unless its commit may have
   * been published (see the class comment).
   */
  public static <T> T run(TableIo table, Clock clock, Work<T> work) {
    Mutation m = new Mutation(table, clock);
    T result;
    try {
      result = work.run(m);
    } catch (RuntimeException | Error e) {
      m.failed(e);
      throw e;
    }
    if (m.state == State.PREPARING) {
      m.deleteOwned(null); // nothing was committed: whatever was written is unreferenced
    }
    return result;
  }

  /** The table as this mutation writes it: every object written through it is recorded, and owned. */
  public TableIo io() {
    return io;
  }

  /** The objects written so far (and not deleted by the mutation itself), in the order written. */
  public List<String> written() {
    return recording.keys();
  }

  /** Commits {@code op}, computed at {@code base}, read at {@code base}'s version. */
  public CommitLoop.Committed commit(Manifest base, Operation op, CommitOptions options) {
    return commit(Optional.of(base), base.version(), op, options, Optional.empty(), TransactionRebaser.NONE);
  }

  /**
   * Commits {@code op} as a new transaction through the commit loop. Once per mutation.
   *
   * @param base the manifest the change was computed from (empty when creating the table)
   * @param readVersion the transaction's read version: it is checked against every version after it
   * @param contentDigest for a keyed commit, the digest of the rows it writes instead of the operation's
   * @param rebaser rewrites the transaction when the resolver asks for a rebase; it writes through {@link #io()}
   */
  public CommitLoop.Committed commit(Optional<Manifest> base, long readVersion, Operation op, CommitOptions options,
      Optional<String> contentDigest, TransactionRebaser rebaser) {
    if (state != State.PREPARING) {
      throw new IllegalStateException("a mutation commits once; this one is " + state);
    }
    Transaction txn = new Transaction(UUID.randomUUID().toString(), readVersion, op, options.properties());
    loop = new CommitLoop(io, options, clock, contentDigest);
    state = State.COMMITTING;
    CommitLoop.Committed committed = loop.commitDetailed(txn, base, rebaser);
    state = State.COMMITTED;
    if (committed.alreadyCommitted() && !committed.transaction().uuid().equals(txn.uuid())) {
      // Another transaction committed this change under its key or sequence; ours published nothing.
      deleteOwned(null);
    }
    return committed;
  }

  private void failed(Throwable e) {
    if (state == State.COMMITTED) {
      return; // published: its files are referenced
    }
    if (state == State.COMMITTING && (loop.claimInDoubt() || outcomeUnknown(e))) {
      LOG.debug("commit outcome unknown; keeping the {} objects it wrote", recording.keys().size());
      return;
    }
    deleteOwned(e);
  }

  private static boolean outcomeUnknown(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CommitStateUnknownException) {
        return true;
      }
    }
    return false;
  }

  private void deleteOwned(Throwable cause) {
    List<String> keys = recording.keys();
    if (keys.isEmpty()) {
      return;
    }
    List<String> left;
    RuntimeException failure = null;
    try {
      left = table.store().deleteAll(keys);
    } catch (RuntimeException e) {
      left = keys;
      failure = e;
    }
    if (left.isEmpty()) {
      LOG.debug("deleted the {} objects an uncommitted change wrote", keys.size());
      return;
    }
    StoreException leftOver = new StoreException(
        "could not delete " + left.size() + " of the " + keys.size() + " objects an uncommitted change wrote in "
            + table.location() + " (" + String.join(", ", left.subList(0, Math.min(5, left.size())))
            + (left.size() > 5 ? ", ..." : "") + "); they are unreferenced, and cleanup removes them after its"
            + " safety window",
        failure, false);
    if (cause != null) {
      cause.addSuppressed(leftOver);
    } else {
      LOG.warn(leftOver.getMessage(), failure);
    }
  }

  /** Delegates everything, recording the keys written (a writer's at its opening). Never closes the store. */
  private static final class Recording extends ForwardingObjectStore {
    private final Set<String> written = new LinkedHashSet<>();

    Recording(ObjectStore delegate) {
      super(delegate);
    }

    synchronized List<String> keys() {
      return new ArrayList<>(written);
    }

    private synchronized void record(String key) {
      written.add(key);
    }

    private synchronized void forget(Collection<String> keys) {
      written.removeAll(keys);
    }

    @Override
    public void write(String key, byte[] data) {
      record(key); // before the call: a failed write may still have landed
      delegate().write(key, data);
    }

    @Override
    public ObjectWriter openWriter(String key) {
      record(key);
      return delegate().openWriter(key);
    }

    @Override
    public PutResult putIfAbsent(String key, byte[] data) {
      PutResult result = delegate().putIfAbsent(key, data);
      if (result == PutResult.CREATED) {
        record(key);
      }
      return result;
    }

    @Override
    public void delete(String key) {
      delegate().delete(key);
      forget(List.of(key));
    }

    @Override
    public List<String> deleteAll(Collection<String> keys) {
      List<String> failed = delegate().deleteAll(keys);
      List<String> gone = new ArrayList<>(keys);
      gone.removeAll(failed);
      forget(gone);
      return failed;
    }

    /** The table's store outlives the change. */
    @Override
    public void close() {}
  }
}
