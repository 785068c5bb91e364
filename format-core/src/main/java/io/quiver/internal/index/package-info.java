/**
 * Scalar indices (docs/format.md §13): building a segment ({@code IndexBuilder}), the segment file's pages and
 * footer ({@code SegmentFile}), which fragments a segment still answers for and the offsets it selects for a
 * filter ({@code IndexSelection}), and whole-file checks for {@code validate()} ({@code IndexFiles}). The public
 * {@code Indices} and {@code Scanner} call them; nothing here imports those.
 *
 * <p><b>Not API.</b> Public only so the engine's packages can reach each other; any release may change
 * or remove it. Use {@link io.quiver.dataset.Dataset#indices()} and the types it returns.
 */
package io.quiver.internal.index;
