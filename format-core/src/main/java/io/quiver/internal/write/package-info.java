/**
 * The write path: Arrow input checked and cut into fragments ({@code FragmentWriter}), per-fragment column
 * files ({@code FragmentColumnWriter}), struct validity and the multiset row digest.
 *
 * <p><b>Not API.</b> Public only so the engine's packages can reach each other; any release may change
 * or remove it. Use {@link io.quiver.dataset.Dataset} and the types it returns.
 */
package io.quiver.internal.write;
