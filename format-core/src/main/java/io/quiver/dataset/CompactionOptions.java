package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.manifest.Fragment;

/**
 * What {@link Dataset#compact(CompactionOptions)} rewrites and how big the new fragments are.
 *
 * <p>A fragment qualifies when it has fewer live rows than {@code smallFragmentRows}, or has deleted rows
 * (if {@code materializeDeletions}), or has overlays (if {@code materializeOverlays}). Runs of adjacent
 * qualifying fragments are rewritten together into fragments of up to {@code targetRowsPerFragment}
 * rows; a run of one fragment that qualifies only for being small is left alone (rewriting it would
 * change nothing).
 *
 * @param targetRowsPerFragment most rows per new fragment (default 1,048,576)
 * @param smallFragmentRows fragments with fewer live rows qualify (default: the target)
 * @param materializeDeletions fragments with deleted rows qualify (default true)
 * @param materializeOverlays fragments with overlays qualify (default true)
 */
public record CompactionOptions(
    long targetRowsPerFragment, long smallFragmentRows, boolean materializeDeletions, boolean materializeOverlays) {

  /** Default most rows per new fragment. */
  public static final long DEFAULT_TARGET_ROWS_PER_FRAGMENT = 1L << 20;

  public CompactionOptions {
    if (targetRowsPerFragment < 1 || targetRowsPerFragment > Fragment.MAX_ROWS) {
      throw new InvalidArgumentException(
          "target rows per fragment must be in [1, " + Fragment.MAX_ROWS + "], got " + targetRowsPerFragment);
    }
    if (smallFragmentRows < 0) {
      throw new InvalidArgumentException("small-fragment threshold must be >= 0, got " + smallFragmentRows);
    }
  }

  public static CompactionOptions defaults() {
    return new CompactionOptions(DEFAULT_TARGET_ROWS_PER_FRAGMENT, DEFAULT_TARGET_ROWS_PER_FRAGMENT, true, true);
  }

  /** These options with another target size (the small-fragment threshold follows it). */
  public CompactionOptions withTargetRowsPerFragment(long rows) {
    return new CompactionOptions(rows, rows, materializeDeletions, materializeOverlays);
  }

  public CompactionOptions withSmallFragmentRows(long rows) {
    return new CompactionOptions(targetRowsPerFragment, rows, materializeDeletions, materializeOverlays);
  }

  public CompactionOptions withMaterializeDeletions(boolean value) {
    return new CompactionOptions(targetRowsPerFragment, smallFragmentRows, value, materializeOverlays);
  }

  public CompactionOptions withMaterializeOverlays(boolean value) {
    return new CompactionOptions(targetRowsPerFragment, smallFragmentRows, materializeDeletions, value);
  }
}
