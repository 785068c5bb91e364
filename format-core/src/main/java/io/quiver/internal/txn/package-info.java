/**
 * Transactions and the conflict resolver: {@code Operation} kinds, {@code ConflictResolver} (the table that
 * {@code docs/conflict-matrix.md} is generated from), rebasing, the staged-write witness check and the
 * idempotence ledger update. {@code ManifestBuilder} applies a transaction to a base manifest.
 *
 * <p><b>Not API.</b> Public only so the engine's packages can reach each other; any release may change
 * or remove it. Use {@link io.quiver.dataset.Dataset} and the types it returns.
 */
package io.quiver.internal.txn;
