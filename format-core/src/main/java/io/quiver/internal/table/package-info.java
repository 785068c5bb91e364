/**
 * The table and its commit loop: reading versions through the ports ({@code TableIo}), the one mutation
 * pipeline every change runs through ({@code Mutation}: prepare, transaction, commit, clean-up), the
 * optimistic commit loop with idempotence checks ({@code CommitLoop}, {@code Idempotence}),
 * distributed-commit rules, table config and tag storage.
 *
 * <p><b>Not API.</b> Public only so the engine's packages can reach each other; any release may change
 * or remove it. Use {@link io.quiver.dataset.Dataset} and the types it returns.
 */
package io.quiver.internal.table;
