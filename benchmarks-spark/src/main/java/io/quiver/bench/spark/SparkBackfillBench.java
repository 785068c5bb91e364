package io.quiver.bench.spark;

import static org.apache.spark.sql.functions.col;

import io.quiver.bench.Bench;
import io.quiver.spark.BackfillResult;
import io.quiver.spark.QuiverSpark;
import java.nio.file.Path;
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
 * Spark benchmark 3: add one column, {@code doubled = value * 2}, to a table of {@link #FRAGMENTS} fragments
 * (10,000 rows each in the full profile, 2M rows; 1,000 in the quick one). Quiver: {@code
 * QuiverSpark.backfill(spark, uri).add("doubled", col("value").multiply(2)).run()} — executors compute and stage
 * the column fragment by fragment, the driver commits once. Parquet has no way to add a column to existing
 * files, so its user's baseline is rewriting the table with the column: {@code
 * spark.read.parquet(p).withColumn("doubled", …).write.parquet(newPath)}, over the same rows in as many files.
 * Each invocation starts from a fresh copy of the Quiver table (data files hard-linked) or writes to a new
 * directory; afterwards (untimed) every row's {@code doubled} is checked and the copy deleted.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
public class SparkBackfillBench {
  public static final int FRAGMENTS = 200;

  long rows;
  SparkSession spark;
  boolean quiverTrial;
  Path quiverSource;
  String parquetSource;
  Path target;

  @Setup(Level.Trial)
  public void setup(BenchmarkParams params) {
    long rowsPerFragment = Bench.size(1_000, 10_000);
    rows = FRAGMENTS * rowsPerFragment;
    spark = SparkBench.session("backfill");
    quiverTrial = params.getBenchmark().endsWith(".quiver");
    if (quiverTrial) {
      quiverSource = SparkBench.cached("backfill-quiver-" + rows,
          d -> SparkBenchData.writeQuiver(d, rows, rowsPerFragment));
    } else {
      parquetSource = SparkBenchData.uri(SparkBench.cached("backfill-parquet-" + rows,
          d -> SparkBenchData.writeParquet(spark, d, rows, FRAGMENTS)));
    }
    Bench.record("SparkBackfillBench", "rows", "table", rows, "rows");
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    SparkBench.stop(spark);
  }

  @Setup(Level.Invocation)
  public void freshTarget() {
    target = quiverTrial ? Bench.copyOf(quiverSource, "backfill-quiver") : SparkBench.scratch("backfill-parquet");
  }

  @TearDown(Level.Invocation)
  public void checkAndDelete() {
    String uri = SparkBenchData.uri(target);
    org.apache.spark.sql.Dataset<Row> t = quiverTrial
        ? spark.read().format("quiver").load(uri)
        : spark.read().parquet(uri);
    String system = quiverTrial ? "quiver" : "parquet";
    SparkScanBench.check(system, "rows after the backfill", t.count(), rows);
    long wrong = t.where(col("doubled").isNull().or(col("doubled").notEqual(col("value").multiply(2)))).count();
    SparkScanBench.check(system, "rows with a wrong 'doubled'", wrong, 0);
    Bench.deleteTree(target);
  }

  @Benchmark
  public BackfillResult quiver() {
    return QuiverSpark.backfill(spark, SparkBenchData.uri(target)).add("doubled", col("value").multiply(2)).run();
  }

  @Benchmark
  public void parquet() {
    spark.read().parquet(parquetSource).withColumn("doubled", col("value").multiply(2)).write()
        .parquet(SparkBenchData.uri(target));
  }
}
