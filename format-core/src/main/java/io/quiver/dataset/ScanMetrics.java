package io.quiver.dataset;

import io.quiver.internal.read.ScanCounters;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of what scans did, for an engine to report: pass one to {@link Scanner#metrics} (planning with
 * {@link Scanner#planTasks()} and reading with {@link Scanner#open()} record into it) or to {@link
 * ScanTask#open(DatasetOptions, org.apache.arrow.memory.BufferAllocator, ScanMetrics)} (one task's read).
 * Thread-safe and cheap (one {@link LongAdder} per counter): one instance may collect many scans or tasks
 * at once, and {@link #add} sums per-task instances into a total. Counts only grow.
 *
 * <ul>
 *   <li>{@link #fragmentsConsidered()}: fragments of the version looked at, by planning or by {@code
 *       Scanner.open} (a task's read counts none: its fragment was considered when it was planned);
 *   <li>{@link #fragmentsPruned()}: fragments (or a task's range) skipped without reading a data file —
 *       at planning ({@code planTasks} and {@code Scanner.open}), fragments with no live row (fully deleted) and
 *       those whose column statistics show no row can match the filter; at reading, fragments with no live row
 *       and those not reached because the limit was;
 *   <li>{@link #batchesConsidered()}, {@link #batchesPruned()}: chunks of record batches (at most the batch
 *       size each, never across a record batch) a read planned, and those it skipped because their zone
 *       statistics show no row can match the filter;
 *   <li>{@link #tasksPlanned()}: tasks {@code planTasks} returned;
 *   <li>{@link #dataFilesOpened()}: distinct data files (base and overlay) a read fetched bytes from;
 *   <li>{@link #bytesFetched()}: bytes the object store returned to the scan — data-file footers not yet
 *       in the session's cache, the column ranges read, deletion files; exactly what a counting store
 *       around the table's store sees for the read (manifests loaded by a task opened without a handle are
 *       not counted);
 *   <li>{@link #rowsReturned()}: rows in the batches returned;
 *   <li>{@link #fragmentsAnsweredByIndex()}, {@link #fragmentsScannedWithoutIndex()}, {@link #fragmentsDecidedByIndex()},
 *       {@link #rowsPointRead()}:
 *       what scalar indices did for a filter (docs/scan-planning.md, "Reading an index selection").
 * </ul>
 */
public final class ScanMetrics {
  private final LongAdder fragmentsConsidered = new LongAdder();
  private final LongAdder fragmentsPruned = new LongAdder();
  private final LongAdder tasksPlanned = new LongAdder();
  private final LongAdder batchesConsidered = new LongAdder();
  private final LongAdder batchesPruned = new LongAdder();
  private final LongAdder dataFilesOpened = new LongAdder();
  private final LongAdder bytesFetched = new LongAdder();
  private final LongAdder rowsReturned = new LongAdder();
  private final LongAdder fragmentsAnsweredByIndex = new LongAdder();
  private final LongAdder fragmentsScannedWithoutIndex = new LongAdder();
  private final LongAdder rowsPointRead = new LongAdder();
  private final LongAdder fragmentsDecidedByIndex = new LongAdder();

  private final ScanCounters counters = new ScanCounters() {
    @Override
    public void fragmentsConsidered(long n) {
      fragmentsConsidered.add(n);
    }

    @Override
    public void fragmentsPruned(long n) {
      fragmentsPruned.add(n);
    }

    @Override
    public void tasksPlanned(long n) {
      tasksPlanned.add(n);
    }

    @Override
    public void batchesConsidered(long n) {
      batchesConsidered.add(n);
    }

    @Override
    public void batchesPruned(long n) {
      batchesPruned.add(n);
    }

    @Override
    public void dataFileOpened() {
      dataFilesOpened.increment();
    }

    @Override
    public void bytesFetched(long n) {
      bytesFetched.add(n);
    }

    @Override
    public void rowsReturned(long n) {
      rowsReturned.add(n);
    }

    @Override
    public void fragmentsAnsweredByIndex(long n) {
      fragmentsAnsweredByIndex.add(n);
    }

    @Override
    public void fragmentsScannedWithoutIndex(long n) {
      fragmentsScannedWithoutIndex.add(n);
    }

    @Override
    public void fragmentsDecidedByIndex(long n) {
      fragmentsDecidedByIndex.add(n);
    }

    @Override
    public void rowsPointRead(long n) {
      rowsPointRead.add(n);
    }
  };

  /** Counters at zero. */
  public ScanMetrics() {}

  public long fragmentsConsidered() {
    return fragmentsConsidered.sum();
  }

  public long fragmentsPruned() {
    return fragmentsPruned.sum();
  }

  public long tasksPlanned() {
    return tasksPlanned.sum();
  }

  /** Chunks of record batches reads planned (before zone pruning). */
  public long batchesConsidered() {
    return batchesConsidered.sum();
  }

  /** Chunks of record batches skipped by zone statistics. */
  public long batchesPruned() {
    return batchesPruned.sum();
  }

  public long dataFilesOpened() {
    return dataFilesOpened.sum();
  }

  public long bytesFetched() {
    return bytesFetched.sum();
  }

  public long rowsReturned() {
    return rowsReturned.sum();
  }

  /**
   * Fragments a scalar index answered the filter for: read only at the offsets the index selected, or pruned
   * when it selected none.
   */
  public long fragmentsAnsweredByIndex() {
    return fragmentsAnsweredByIndex.sum();
  }

  /**
   * Fragments a filtered scan of a table with scalar indices read without one: no segment answers for them
   * (appended, compacted or otherwise changed since the index was built or optimized, other than by newer overlays;
   * docs/format.md §13.1), or no index fits the filter.
   */
  public long fragmentsScannedWithoutIndex() {
    return fragmentsScannedWithoutIndex.sum();
  }

  /**
   * Rows read by point reads instead of whole batches: the candidates of a range whose scalar-index selection is
   * sparse (docs/scan-planning.md, "Reading an index selection"), fetched through {@code take}'s point path before
   * the filter is evaluated on them. Counted before the filter.
   */
  public long rowsPointRead() {
    return rowsPointRead.sum();
  }

  /**
   * Fragments (answered by an index) for which an index decided one or more of the filter's top-level conjuncts:
   * the index's offsets are exactly the rows where those conjuncts are true, so the scan did not evaluate them on
   * the fragment's rows, nor read a column only they name (docs/format.md §13.1, "Decided conjuncts"). Counted
   * once per fragment, by {@code open()} or by {@code planTasks()} (whose tasks carry the filter left to evaluate).
   */
  public long fragmentsDecidedByIndex() {
    return fragmentsDecidedByIndex.sum();
  }

  /** Adds {@code other}'s counts to these (e.g. per-task metrics into a job's total); returns this. */
  public ScanMetrics add(ScanMetrics other) {
    if (other == null) {
      throw new io.quiver.exceptions.InvalidArgumentException("metrics to add must not be null");
    }
    fragmentsConsidered.add(other.fragmentsConsidered());
    fragmentsPruned.add(other.fragmentsPruned());
    tasksPlanned.add(other.tasksPlanned());
    batchesConsidered.add(other.batchesConsidered());
    batchesPruned.add(other.batchesPruned());
    dataFilesOpened.add(other.dataFilesOpened());
    bytesFetched.add(other.bytesFetched());
    rowsReturned.add(other.rowsReturned());
    fragmentsAnsweredByIndex.add(other.fragmentsAnsweredByIndex());
    fragmentsScannedWithoutIndex.add(other.fragmentsScannedWithoutIndex());
    rowsPointRead.add(other.rowsPointRead());
    fragmentsDecidedByIndex.add(other.fragmentsDecidedByIndex());
    return this;
  }

  /** Where the read path records. */
  ScanCounters counters() {
    return counters;
  }

  /** The recorder of {@code metrics}, or one that records nothing. */
  static ScanCounters countersOf(ScanMetrics metrics) {
    return metrics == null ? ScanCounters.NONE : metrics.counters;
  }

  @Override
  public String toString() {
    return "ScanMetrics[fragmentsConsidered=" + fragmentsConsidered() + ", fragmentsPruned=" + fragmentsPruned()
        + ", tasksPlanned=" + tasksPlanned() + ", batchesConsidered=" + batchesConsidered() + ", batchesPruned="
        + batchesPruned() + ", dataFilesOpened=" + dataFilesOpened() + ", bytesFetched="
        + bytesFetched() + ", rowsReturned=" + rowsReturned() + ", fragmentsAnsweredByIndex="
        + fragmentsAnsweredByIndex() + ", fragmentsScannedWithoutIndex=" + fragmentsScannedWithoutIndex()
        + ", fragmentsDecidedByIndex=" + fragmentsDecidedByIndex() + ", rowsPointRead=" + rowsPointRead() + "]";
  }
}
