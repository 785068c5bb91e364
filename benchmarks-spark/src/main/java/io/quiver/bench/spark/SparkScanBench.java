package io.quiver.bench.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.length;
import static org.apache.spark.sql.functions.sum;

import io.quiver.bench.Bench;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Spark benchmark 1: scans of the 4-column table ({@link SparkBenchData}; 10M rows in the full profile, 1M in
 * the quick one) from Quiver ({@code format("quiver")}) and from the same rows as Parquet through Spark's
 * built-in reader. Both tables have {@link #FILES} pieces (Quiver fragments, Parquet files), each a contiguous
 * range of ids, so both get the same number of input partitions and the same chance to skip by statistics.
 *
 * <ul>
 *   <li>{@code fullScan}: every column of every row, forced through Spark's {@code noop} sink;
 *   <li>{@code filtered}: {@code value} of the rows with {@code id < rows / 10}, through the {@code noop} sink
 *       (Quiver is pushed the filter; Parquet pushes it to its row groups). Beside the timing, one extra run of
 *       the query (untimed) records what it read: the tasks' {@code inputMetrics.bytesRead} and the scan node's
 *       SQL metrics, Quiver's bytes fetched from the store among them ({@link QueryStats}).
 * </ul>
 *
 * <p>Each trial first checks what it will scan: the row count, and sums of {@code id}, {@code value} and the
 * {@code name} lengths (or, for {@code filtered}, of the filtered rows' {@code value}) against the values
 * computed from the generator's formulas, so a fast wrong answer fails the run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
public class SparkScanBench {
  /** Quiver fragments and Parquet files of the scanned table. */
  public static final int FILES = 10;

  long rows;
  long bound;
  String quiver;
  String parquet;
  SparkSession spark;

  @Setup(Level.Trial)
  public void setup(BenchmarkParams params) {
    rows = Bench.size(1_000_000, 10_000_000);
    bound = rows / 10;
    spark = SparkBench.session("scan");
    Path q = SparkBench.cached("scan-quiver-" + rows, d -> SparkBenchData.writeQuiver(d, rows, rows / FILES));
    Path p = SparkBench.cached("scan-parquet-" + rows, d -> SparkBenchData.writeParquet(spark, d, rows, FILES));
    quiver = SparkBenchData.uri(q);
    parquet = SparkBenchData.uri(p);
    String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
    boolean isQuiver = method.endsWith("Quiver");
    String system = isQuiver ? "quiver" : "parquet";
    String table = isQuiver ? quiver : parquet;
    Bench.record("SparkScanBench", "rows", "table", rows, "rows");
    Bench.record("SparkScanBench", "table size on disk", system, Bench.sizeOf(isQuiver ? q : p), "bytes");
    if (method.startsWith("filtered")) {
      checkFiltered(system, table);
      QueryStats stats = QueryStats.of(spark, () -> noop(filtered(table)));
      record(system, stats);
    } else {
      checkFull(system, table);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    SparkBench.stop(spark);
  }

  org.apache.spark.sql.Dataset<Row> read(String table) {
    return table.equals(quiver) ? spark.read().format("quiver").load(table) : spark.read().parquet(table);
  }

  org.apache.spark.sql.Dataset<Row> filtered(String table) {
    return read(table).where(col("id").lt(bound)).select("value");
  }

  static void noop(org.apache.spark.sql.Dataset<Row> df) {
    df.write().format("noop").mode("overwrite").save();
  }

  @Benchmark
  public void fullScanQuiver() {
    noop(read(quiver));
  }

  @Benchmark
  public void fullScanParquet() {
    noop(read(parquet));
  }

  @Benchmark
  public void filteredQuiver() {
    noop(filtered(quiver));
  }

  @Benchmark
  public void filteredParquet() {
    noop(filtered(parquet));
  }

  void checkFull(String system, String table) {
    Row r = read(table).agg(count("*"), sum("id"), sum("value"), sum(length(col("name"))), sum("category")).first();
    double values = 0;
    long categories = 0;
    for (long id = 0; id < rows; id++) {
      values += SparkBenchData.value(id);
      categories += SparkBenchData.category(id);
    }
    check(system, "rows", r.getLong(0), rows);
    check(system, "sum(id)", r.getLong(1), rows * (rows - 1) / 2);
    checkClose(system, "sum(value)", r.getDouble(2), values);
    check(system, "sum(length(name))", r.getLong(3), rows * SparkBenchData.NAME_BYTES);
    check(system, "sum(category)", r.getLong(4), categories);
  }

  void checkFiltered(String system, String table) {
    Row r = filtered(table).agg(count("*"), sum("value")).first();
    double values = 0;
    for (long id = 0; id < bound; id++) {
      values += SparkBenchData.value(id);
    }
    check(system, "filtered rows", r.getLong(0), bound);
    checkClose(system, "filtered sum(value)", r.getDouble(1), values);
  }

  static void check(String system, String what, long got, long expected) {
    if (got != expected) {
      throw new IllegalStateException(system + ": " + what + " is " + got + ", expected " + expected);
    }
  }

  static void checkClose(String system, String what, double got, double expected) {
    if (Math.abs(got - expected) > 1e-9 * Math.max(1, Math.abs(expected))) {
      throw new IllegalStateException(system + ": " + what + " is " + got + ", expected " + expected);
    }
  }

  static void record(String system, QueryStats stats) {
    String b = "SparkScanBench";
    Bench.record(b, "filtered query: tasks' inputMetrics.bytesRead", system, stats.taskBytesRead(), "bytes");
    Bench.record(b, "filtered query: tasks' inputMetrics.recordsRead", system, stats.taskRecordsRead(), "rows");
    if (stats.processBytesRead() >= 0) {
      Bench.record(b, "filtered query: bytes read by the process (rchar)", system, stats.processBytesRead(), "bytes");
    }
    for (Map.Entry<String, Long> m : stats.scanMetrics().entrySet()) {
      Bench.record(b, "filtered query: " + m.getKey(), system, m.getValue(), "");
    }
  }
}
