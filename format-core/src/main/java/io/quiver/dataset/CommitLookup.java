package io.quiver.dataset;

import java.util.Optional;

/**
 * The answer of {@link DistributedWrites#findCommit(String, long)}: whether a commit was made under an
 * idempotence key, read from the latest version's idempotence ledger. What is safe in each case:
 *
 * <ul>
 *   <li>{@link Status#COMMITTED}: the key's commit is in the table at {@link #version()}. Do not commit
 *       again; mark your own bookkeeping (a checkpoint) done with that version. (A retry with the same key
 *       and the same rows would also be recognised and publish nothing.)
 *   <li>{@link Status#NOT_COMMITTED}: the ledger is complete back to before your attempt could have committed,
 *       and the key is not in it. Committing (again) is safe — with the same key, so that a commit racing
 *       with this lookup is still caught.
 *   <li>{@link Status#UNKNOWN}: the key is not in the ledger, but the ledger no longer covers every commit
 *       since your attempt's read version (its entries expired after {@code idempotence.retention}, or were
 *       dropped beyond {@code idempotence.max-keys}). The attempt may have committed. Do not commit blindly:
 *       check the table's content, or accept the risk explicitly.
 * </ul>
 *
 * @param status the answer
 * @param commit the commit found, when {@code COMMITTED}
 * @param latestVersion the version whose ledger answered
 * @param completeFromVersion the ledger lists every key committed at this version or later
 * @param attemptReadVersion the read version the caller's attempt was computed from (0 for "any time")
 */
public record CommitLookup(
    Status status, Optional<CommitRecord> commit, long latestVersion, long completeFromVersion,
    long attemptReadVersion) {

  /** The three answers. */
  public enum Status { COMMITTED, NOT_COMMITTED, UNKNOWN }

  static public CommitLookup committed(CommitRecord record, long latest, long completeFrom, long attemptReadVersion) {
    return new CommitLookup(Status.COMMITTED, Optional.of(record), latest, completeFrom, attemptReadVersion);
  }

  static public CommitLookup absent(long latest, long completeFrom, long attemptReadVersion) {
    Status status = completeFrom <= attemptReadVersion + 1 ? Status.NOT_COMMITTED : Status.UNKNOWN;
    return new CommitLookup(status, Optional.empty(), latest, completeFrom, attemptReadVersion);
  }

  /** Whether the key's commit is in the table. */
  public boolean isCommitted() {
    return status == Status.COMMITTED;
  }

  /**
   * The version the key committed.
   *
   * @throws IllegalStateException unless {@link #isCommitted()}
   */
  public long version() {
    return commit.orElseThrow(() -> new IllegalStateException("no commit was found: " + this)).version();
  }

  @Override
  public String toString() {
    return switch (status) {
      case COMMITTED -> "committed at version " + version() + " (" + commit.get().operation() + ")";
      case NOT_COMMITTED -> "not committed as of version " + latestVersion + " (the ledger is complete from version "
          + completeFromVersion + ")";
      case UNKNOWN -> "unknown: not in the ledger of version " + latestVersion + ", which is complete only from version "
          + completeFromVersion + ", after the attempt's read version " + attemptReadVersion
          + " (the key may have expired)";
    };
  }
}
