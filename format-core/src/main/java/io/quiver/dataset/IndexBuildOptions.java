package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;

/**
 * How a distributed index build ({@link Indices#planBuild}, {@link Indices#planOptimize}) splits the fragments
 * to index into tasks: runs of adjacent fragments (in manifest order) of up to {@code rowsPerTask} physical rows
 * each (a larger fragment is a task alone). Each task writes one segment, holding its keys in memory while it
 * sorts them, so this bounds a worker's memory as well as the build's parallelism.
 *
 * @param rowsPerTask most physical rows (deleted rows included: a segment indexes them too) per task, default
 *     4,194,304
 */
public record IndexBuildOptions(long rowsPerTask) {
  /** Default most physical rows per task. */
  public static final long DEFAULT_ROWS_PER_TASK = 1L << 22;

  public IndexBuildOptions {
    if (rowsPerTask < 1) {
      throw new InvalidArgumentException("rows per index build task must be >= 1, got " + rowsPerTask);
    }
  }

  public static IndexBuildOptions defaults() {
    return new IndexBuildOptions(DEFAULT_ROWS_PER_TASK);
  }

  public IndexBuildOptions withRowsPerTask(long rows) {
    return new IndexBuildOptions(rows);
  }
}
