package io.quiver.txn;

import io.quiver.exceptions.IncompatibleTransactionException;
import io.quiver.exceptions.RetryableConflictException;
import java.util.List;

/**
 * Decides whether a transaction may still be committed on top of the transactions committed after its
 * read version. Pure: no I/O, no clock.
 *
 * <p>Rules of format 1.0 (see docs/format.md, "Conflicts"):
 *
 * <ul>
 *   <li>append after append: compatible; fragment ids are assigned when the manifest is built.
 *   <li>append after overwrite: incompatible; the table the rows were meant for was replaced.
 *   <li>overwrite after anything: retryable; an overwrite is computed from its read version and would
 *       otherwise silently discard a concurrent commit. Re-read and decide again.
 * </ul>
 */
public final class ConflictResolver {

  /** Outcome when no exception is thrown: the transaction can be rebuilt on the latest manifest. */
  public enum Verdict {
    COMPATIBLE
  }

  /**
   * Checks {@code ours} against each committed transaction newer than its read version, oldest first.
   *
   * @throws RetryableConflictException if re-reading and recomputing may succeed
   * @throws IncompatibleTransactionException if the transaction can no longer be meaningful
   */
  public Verdict check(Transaction ours, List<CommittedTransaction> committedSince) {
    for (CommittedTransaction theirs : committedSince) {
      checkPair(ours, theirs);
    }
    return Verdict.COMPATIBLE;
  }

  private static void checkPair(Transaction ours, CommittedTransaction committed) {
    Operation theirs = committed.transaction().operation();
    if (ours.operation() instanceof Operation.Append) {
      if (theirs instanceof Operation.Overwrite) {
        throw new IncompatibleTransactionException(
            "append read at version " + ours.readVersion() + " conflicts with the overwrite committed as version "
                + committed.version() + ": the table it appended to was replaced. Nothing was committed; "
                + "decide whether the rows belong in the new table and append them again.");
      }
    } else if (ours.operation() instanceof Operation.Overwrite) {
      throw new RetryableConflictException(
          "overwrite read at version " + ours.readVersion() + " conflicts with the " + theirs.name()
              + " committed as version " + committed.version()
              + ": committing would silently discard it. Nothing was committed; re-open the latest version and "
              + "overwrite again if that is still intended.");
    } else {
      throw new IllegalStateException("no conflict rule for operation " + ours.operation().name());
    }
  }
}
