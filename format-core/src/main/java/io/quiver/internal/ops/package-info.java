/**
 * The operations that change a table: delete, update (overlays), compaction, column evolution and staged
 * column writes. Each prepares an operation, writing its files through the {@code TableIo} it is given (a
 * mutation's, which records them); none commits: {@code internal.table.Mutation} does, and deletes those
 * files when nothing was published.
 *
 * <p><b>Not API.</b> Public only so the engine's packages can reach each other; any release may change
 * or remove it. Use {@link io.quiver.dataset.Dataset} and the types it returns.
 */
package io.quiver.internal.ops;
