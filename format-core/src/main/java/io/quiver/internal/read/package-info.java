/**
 * The read path: what a scan reads ({@code ScanSpec}: projection, exact filter, row addresses, batch
 * size, limit; {@code Projection}), over which rows ({@code FragmentRange}, split into tasks by
 * {@code ScanPlanner}), read with deletions and overlays merged ({@code ScanReader},
 * {@code FragmentReader}), and point reads by row address ({@code Take}). The public {@code Scanner} and
 * {@code ScanTask} build a spec and ranges; nothing here imports them.
 *
 * <p><b>Not API.</b> Public only so the engine's packages can reach each other; any release may change
 * or remove it. Use {@link io.quiver.dataset.Dataset} and the types it returns.
 */
package io.quiver.internal.read;
