package io.quiver.spark.read;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.ScanMetrics;
import io.quiver.dataset.ScanTask;
import io.quiver.dataset.Scanner;
import io.quiver.spark.QuiverTable;
import io.quiver.spark.VersionRef;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.connector.read.colstats.ColumnStatistics;
import org.apache.spark.sql.types.StructType;

/**
 * A planned read of one version of a Quiver table: one {@link QuiverInputPartition} per Quiver
 * {@link ScanTask}, each pinned to the table's loaded version, read as columnar batches of the Arrow
 * vectors. Tasks are planned once, on the driver, the first time Spark asks for them or for statistics.
 */
public final class QuiverScan implements Scan, Batch, SupportsReportStatistics {
  private final QuiverTable table;
  private final StructType readSchema;
  private final List<String> columns;
  private final io.quiver.predicate.Predicate filter;
  private final List<Predicate> pushed;
  private final boolean rowAddress;
  private final OptionalLong limit;
  private final long targetTaskBytes;
  private final int batchSize;
  private final boolean rowLineage;
  private List<ScanTask> tasks;
  private io.quiver.schema.Schema schema;
  private final ScanMetrics planning = new ScanMetrics();

  QuiverScan(QuiverTable table, StructType readSchema, List<String> columns, io.quiver.predicate.Predicate filter,
      List<Predicate> pushed, boolean rowAddress, boolean rowLineage, OptionalLong limit, long targetTaskBytes,
      int batchSize) {
    this.table = table;
    this.rowLineage = rowLineage;
    this.readSchema = readSchema;
    this.columns = columns;
    this.filter = filter;
    this.pushed = pushed;
    this.rowAddress = rowAddress;
    this.limit = limit;
    this.targetTaskBytes = targetTaskBytes;
    this.batchSize = batchSize;
  }

  @Override
  public StructType readSchema() {
    return readSchema;
  }

  @Override
  public String description() {
    StringBuilder b = new StringBuilder("QuiverScan ").append(table.name()).append(" @ version ")
        .append(table.quiverVersion()).append(" columns=").append(columns);
    if (rowAddress) {
      b.append(" +").append(QuiverTable.ROW_ADDRESS);
    }
    if (rowLineage) {
      b.append(" +row lineage");
    }
    if (!(filter instanceof io.quiver.predicate.Predicate.True)) {
      b.append(" filter=[").append(filter).append(']');
    }
    limit.ifPresent(n -> b.append(" limit=").append(n));
    return b.toString();
  }

  @Override
  public String toString() {
    return description();
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  /** The version every task of this scan reads. */
  long version() {
    return table.quiverVersion();
  }

  /** The Quiver predicate the tasks filter by ({@code TRUE} for none). */
  io.quiver.predicate.Predicate filter() {
    return filter;
  }

  /** The Quiver predicate the tasks filter by ({@code TRUE} for none): a row-level write's conflict filter. */
  public io.quiver.predicate.Predicate quiverFilter() {
    return filter;
  }

  /** The fragments the planned tasks read (planning them if Spark has not yet): what a row-level write read. */
  public java.util.Set<Long> fragmentIds() {
    java.util.Set<Long> ids = new java.util.TreeSet<>();
    tasks().forEach(t -> ids.add(t.fragmentId()));
    return ids;
  }

  synchronized List<ScanTask> tasks() {
    if (tasks == null) {
      try (Dataset ds = new VersionRef.Number(table.quiverVersion()).open(table.ref())) {
        Scanner scan = ds.newScan().metrics(planning).columns(columns).filter(filter).withRowAddress(rowAddress)
            .withRowLineage(rowLineage).targetTaskBytes(targetTaskBytes);
        if (batchSize > 0) {
          scan.batchSize(batchSize);
        }
        limit.ifPresent(scan::limit);
        tasks = List.copyOf(scan.planTasks());
        schema = ds.schema();
      }
    }
    return tasks;
  }

  /** The schema of the version the tasks were planned at. */
  private synchronized io.quiver.schema.Schema schema() {
    tasks();
    return schema;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    return tasks().stream().map(t -> new QuiverInputPartition(t.encode(), t.fragmentId(), t.version(),
        t.rowCount(), t.bytesEstimate())).toArray(InputPartition[]::new);
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new QuiverReaderFactory(table.ref(), readSchema);
  }

  @Override
  public org.apache.spark.sql.connector.metric.CustomMetric[] supportedCustomMetrics() {
    return QuiverMetrics.supported();
  }

  @Override
  public org.apache.spark.sql.connector.metric.CustomTaskMetric[] reportDriverMetrics() {
    return QuiverMetrics.driver(planning);
  }

  @Override
  public Statistics estimateStatistics() {
    List<ScanTask> planned = tasks();
    long bytes = planned.stream().mapToLong(ScanTask::bytesEstimate).sum();
    long rows = planned.stream().mapToLong(ScanTask::rowCount).sum();
    // Row counts are before the filter: exact only without one.
    boolean exactRows = filter instanceof io.quiver.predicate.Predicate.True && limit.isEmpty();
    Map<NamedReference, ColumnStatistics> columnStats = SparkColumnStats.of(planned, schema(), readSchema);
    return new Statistics() {
      @Override
      public OptionalLong sizeInBytes() {
        return OptionalLong.of(bytes);
      }

      @Override
      public OptionalLong numRows() {
        return exactRows ? OptionalLong.of(rows) : OptionalLong.empty();
      }

      @Override
      public Map<NamedReference, ColumnStatistics> columnStats() {
        return columnStats;
      }
    };
  }

  /** The pushed Spark predicates, for EXPLAIN. */
  String pushedDescription() {
    return pushed.stream().map(Object::toString).collect(Collectors.joining(", "));
  }
}
