/**
 * The read path: scans over fragments with projection, deletions and overlays merged on read
 * ({@code ScanReader}, {@code FragmentReader}), and point reads by row address ({@code Take}).
 *
 * <p><b>Not API.</b> Public only so the engine's packages can reach each other; any release may change
 * or remove it. Use {@link io.quiver.dataset.Dataset} and the types it returns.
 */
package io.quiver.internal.read;
