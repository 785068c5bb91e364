package io.quiver.bench.spark;

import io.quiver.bench.Bench;
import io.quiver.dataset.Dataset;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
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
 * Spark benchmark 2: one write of {@code spark.range}-generated rows ({@link SparkBenchData#frame}, the 4
 * columns computed by Spark from {@code id}; 10M rows in the full profile, 1M in the quick one, in
 * {@link #PARTITIONS} partitions) to a fresh table: {@code df.write.format("quiver").mode("append")} (which
 * creates the table, then commits once on the driver) against {@code df.write.parquet}. Each invocation
 * writes to a new directory; afterwards the row count is checked (untimed) and the table deleted.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
public class SparkAppendBench {
  /** Partitions of the written DataFrame: one per core of {@code local[2]}. */
  public static final int PARTITIONS = 2;

  long rows;
  SparkSession spark;
  boolean quiverTrial;
  Path target;

  @Setup(Level.Trial)
  public void setup(BenchmarkParams params) {
    rows = Bench.size(1_000_000, 10_000_000);
    spark = SparkBench.session("append");
    quiverTrial = params.getBenchmark().endsWith(".quiver");
    Bench.record("SparkAppendBench", "rows", "table", rows, "rows");
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    SparkBench.stop(spark);
  }

  @Setup(Level.Invocation)
  public void freshTarget() {
    target = SparkBench.scratch(quiverTrial ? "append-quiver" : "append-parquet");
  }

  @TearDown(Level.Invocation)
  public void checkAndDelete() {
    long written;
    if (quiverTrial) {
      try (Dataset ds = Dataset.open(SparkBenchData.uri(target))) {
        written = ds.countRows();
      }
    } else {
      written = spark.read().parquet(SparkBenchData.uri(target)).count();
    }
    SparkScanBench.check(quiverTrial ? "quiver" : "parquet", "rows written", written, rows);
    Bench.deleteTree(target);
  }

  @Benchmark
  public void quiver() {
    SparkBenchData.frame(spark, rows, PARTITIONS).write().format("quiver").mode("append")
        .save(SparkBenchData.uri(target));
  }

  @Benchmark
  public void parquet() {
    SparkBenchData.frame(spark, rows, PARTITIONS).write().parquet(SparkBenchData.uri(target));
  }
}
