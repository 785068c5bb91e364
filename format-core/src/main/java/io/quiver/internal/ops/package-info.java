/**
 * The operations that change a table: delete, update (overlays), compaction, column evolution and staged
 * column writes. Each prepares files and a transaction; the commit loop publishes it.
 *
 * <p><b>Not API.</b> Public only so the engine's packages can reach each other; any release may change
 * or remove it. Use {@link io.quiver.dataset.Dataset} and the types it returns.
 */
package io.quiver.internal.ops;
