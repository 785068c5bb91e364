package io.quiver.flink.source;

import io.quiver.dataset.ScanMetrics;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * Quiver's scan counters as Flink metrics, under the source's metric groups: the enumerator's planning
 * ({@code quiverFragmentsConsidered}, {@code quiverFragmentsPruned} by the column statistics, {@code
 * quiverTasksPlanned}) and each reader's reading ({@code quiverBatchesPruned}, {@code quiverDataFilesOpened},
 * {@code quiverBytesFetched}, {@code quiverRowsReturned}) — what a filter or projection pushed into the scan
 * saved, as {@link ScanMetrics} counts it; {@code quiverFragmentsAnsweredByIndex} and {@code
 * quiverFragmentsScannedWithoutIndex} say whether a scalar index on a filtered column narrowed the read. The
 * lookup join's function registers the same gauges for its point reads.
 */
public final class SourceMetrics {
  private SourceMetrics() {}

  /** Registers {@code m}'s counters as gauges of {@code group}. */
  public static void register(MetricGroup group, ScanMetrics m) {
    group.gauge("quiverFragmentsConsidered", (Gauge<Long>) m::fragmentsConsidered);
    group.gauge("quiverFragmentsPruned", (Gauge<Long>) m::fragmentsPruned);
    group.gauge("quiverTasksPlanned", (Gauge<Long>) m::tasksPlanned);
    group.gauge("quiverBatchesConsidered", (Gauge<Long>) m::batchesConsidered);
    group.gauge("quiverBatchesPruned", (Gauge<Long>) m::batchesPruned);
    group.gauge("quiverDataFilesOpened", (Gauge<Long>) m::dataFilesOpened);
    group.gauge("quiverBytesFetched", (Gauge<Long>) m::bytesFetched);
    group.gauge("quiverRowsReturned", (Gauge<Long>) m::rowsReturned);
    group.gauge("quiverFragmentsAnsweredByIndex", (Gauge<Long>) m::fragmentsAnsweredByIndex);
    group.gauge("quiverFragmentsScannedWithoutIndex", (Gauge<Long>) m::fragmentsScannedWithoutIndex);
  }
}
