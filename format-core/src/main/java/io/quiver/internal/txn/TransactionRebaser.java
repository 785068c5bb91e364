package io.quiver.internal.txn;

import io.quiver.manifest.Manifest;
import java.util.Set;

/**
 * Rewrites a transaction so that it applies on the latest manifest, when the conflict resolver found it
 * compatible only after a rebase (for example, concurrent deletes on one fragment whose deletion files
 * must be merged). Implementations may write files; they never change what the transaction means.
 */
@FunctionalInterface
public interface TransactionRebaser {
  /** For transactions that never need a rebase. */
  TransactionRebaser NONE =
      (txn, latest, fragments) -> {
        throw new IllegalStateException(
            txn.operation().name() + " cannot be rebased, but the resolver asked to rebase fragments " + fragments);
      };

  Transaction rebase(Transaction txn, Manifest latest, Set<Long> fragments);
}
