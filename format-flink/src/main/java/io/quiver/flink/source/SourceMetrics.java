package io.quiver.flink.source;

import io.quiver.dataset.ScanMetrics;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * Quiver's scan counters as Flink metrics, under the source's metric groups: the enumerator's planning
 * ({@code quiverFragmentsConsidered}, {@code quiverFragmentsPruned} by the column statistics, {@code
 * quiverTasksPlanned}) and each reader's reading ({@code quiverBatchesPruned}, {@code quiverDataFilesOpened},
 * {@code quiverBytesFetched}, {@code quiverRowsReturned}) — what a filter or projection pushed into the scan
 * saved, as {@link ScanMetrics} counts it.
 */
final class SourceMetrics {
  private SourceMetrics() {}

  static void register(MetricGroup group, ScanMetrics m) {
    group.gauge("quiverFragmentsConsidered", (Gauge<Long>) m::fragmentsConsidered);
    group.gauge("quiverFragmentsPruned", (Gauge<Long>) m::fragmentsPruned);
    group.gauge("quiverTasksPlanned", (Gauge<Long>) m::tasksPlanned);
    group.gauge("quiverBatchesConsidered", (Gauge<Long>) m::batchesConsidered);
    group.gauge("quiverBatchesPruned", (Gauge<Long>) m::batchesPruned);
    group.gauge("quiverDataFilesOpened", (Gauge<Long>) m::dataFilesOpened);
    group.gauge("quiverBytesFetched", (Gauge<Long>) m::bytesFetched);
    group.gauge("quiverRowsReturned", (Gauge<Long>) m::rowsReturned);
  }
}
