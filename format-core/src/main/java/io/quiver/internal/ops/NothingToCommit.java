package io.quiver.internal.ops;

import io.quiver.exceptions.StaleReadVersionException;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.CommittedTransaction;
import io.quiver.internal.txn.ConflictResolver;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.Transaction;
import io.quiver.manifest.Manifest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The conflict check of a change that found nothing to do at its read version (a delete or an update
 * whose predicate matched no live row), so commits nothing.
 *
 * <p>Such a change still read the table: its answer ("0 rows") is only as good as what it read. It is
 * checked against every version committed since its read version exactly as its commit would have been,
 * through the {@link ConflictResolver}'s matrix, with the operation it would have committed holding no
 * rows. A concurrent projection that dropped a column the predicate read (or, for an update, a column it
 * sets) makes it a {@link io.quiver.exceptions.RetryableConflictException}, an overwrite or restore an
 * {@link io.quiver.exceptions.IncompatibleTransactionException}; what concerns only rows (a concurrent
 * update or compaction of some fragment) cannot meet a change that touches no fragment. Nothing is written
 * either way, and no transaction file: this is a read of the history, not a commit.
 */
final public class NothingToCommit {
  private NothingToCommit() {}

  /**
   * Checks {@code op} (touching no fragment), computed at {@code base}, against the versions committed
   * since.
   *
   * @throws io.quiver.exceptions.CommitConflictException as the commit of {@code op} would have
   * @throws StaleReadVersionException if a cleanup removed versions committed since {@code base}
   */
  static public void check(TableIo io, Manifest base, Operation op) {
    if (!op.touchedFragments().isEmpty()) {
      throw new IllegalArgumentException(op.name() + " touches fragments " + op.touchedFragments()
          + "; only a change that commits nothing is checked here");
    }
    long known = base.version();
    List<Long> newer = io.commitStore().versionsAfter(known);
    if (newer.isEmpty()) {
      return;
    }
    if (newer.get(0) != known + 1) {
      throw new StaleReadVersionException(known, newer.get(0),
          op.name() + " read at version " + known + " of " + io.location() + " found nothing to change, but versions "
              + (known + 1) + ".." + (newer.get(0) - 1) + " committed since were removed by a cleanup, so"
              + " whether it still applies cannot be checked. Nothing was committed; re-open the latest version ("
              + newer.get(newer.size() - 1) + ") and redo the change.");
    }
    List<CommittedTransaction> since = new ArrayList<>();
    for (long version : newer) {
      since.add(new CommittedTransaction(version, io.loadTransaction(version)));
    }
    Transaction ours = new Transaction(UUID.randomUUID().toString(), known, op, Map.of());
    // Nothing to rebase: the operation touches no fragment, so a rebase verdict has nothing to merge.
    new ConflictResolver().check(ours, since);
  }
}
