package io.quiver.internal.read;

/**
 * Where the read path records what a scan did (the public {@code ScanMetrics} adapts to it). Implementations
 * are thread-safe and cheap; {@link #NONE} records nothing.
 */
public interface ScanCounters {
  /** Records nothing. */
  ScanCounters NONE = new ScanCounters() {};

  /** Fragments of the version looked at by planning or by an open scan. */
  default void fragmentsConsidered(long n) {}

  /** Fragments (or ranges) skipped without reading a data file: no live rows, or after a limit was reached. */
  default void fragmentsPruned(long n) {}

  default void tasksPlanned(long n) {}

  /** Fragments for which a scalar index answered the filter (read only at the offsets it selected, or pruned). */
  default void fragmentsAnsweredByIndex(long n) {}

  /** Fragments a filter with an indexed column had to scan: no index segment covers them in their current state. */
  default void fragmentsScannedWithoutIndex(long n) {}

  /** Fragments for which an index decided one or more of the filter's conjuncts (they are not evaluated there). */
  default void fragmentsDecidedByIndex(long n) {}

  /** Rows of an index selection read by point reads ({@code PointTake}) instead of whole batches, before the filter. */
  default void rowsPointRead(long n) {}

  /** Chunks of record batches a read planned to read (before zone statistics pruned any). */
  default void batchesConsidered(long n) {}

  /** Chunks skipped because their zone statistics show no row can match the filter. */
  default void batchesPruned(long n) {}

  /** A data file (base or overlay) read from for the first time by this scan. */
  default void dataFileOpened() {}

  /** Bytes returned by the object store to this scan. */
  default void bytesFetched(long n) {}

  default void rowsReturned(long n) {}

  /** Whether anything is recorded (false only for {@link #NONE}). */
  default boolean records() {
    return this != NONE;
  }
}
