package io.quiver.bench.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.apache.spark.sql.functions.col;

import io.quiver.bench.Bench;
import io.quiver.dataset.Dataset;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness's data: both writers write the rows asked for, and Spark's expressions agree with the Java formulas. */
class SparkBenchDataTest {
  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkBench.session("harness-test");
  }

  @AfterAll
  static void stop() {
    SparkBench.stop(spark);
  }

  @Test
  void javaFormulas_giveTheDocumentedValues() {
    assertThat(SparkBenchData.name(0)).isEqualTo("n000000000");
    assertThat(SparkBenchData.name(1)).isEqualTo("n000007919");
    assertThat(SparkBenchData.name(9_999_999)).hasSize(SparkBenchData.NAME_BYTES).startsWith("n");
    assertThat(SparkBenchData.value(1)).isEqualTo(Math.floorMod(2654435761L, 1000003L) / 1000.0);
    assertThat(SparkBenchData.category(17)).isEqualTo(1);
  }

  @Test
  void sparkExpressions_agreeWithTheJavaFormulas_atSmallAndLargeIds() {
    for (long first : new long[] {0, 9_999_000}) {
      List<Row> rows = spark.range(first, first + 1_000, 1, 2).select(SparkBenchData.columns()).orderBy(col("id"))
          .collectAsList();
      assertThat(rows).hasSize(1_000);
      for (Row r : rows) {
        long id = r.getLong(0);
        assertThat(r.getDouble(1)).as("value of %d", id).isEqualTo(SparkBenchData.value(id));
        assertThat(r.getString(2)).as("name of %d", id).isEqualTo(SparkBenchData.name(id));
        assertThat(r.getInt(3)).as("category of %d", id).isEqualTo(SparkBenchData.category(id));
      }
    }
  }

  @Test
  void writeQuiver_writesTheRowsInFragmentsOfTheGivenSize(@TempDir Path dir) {
    Path table = dir.resolve("q");
    SparkBenchData.writeQuiver(table, 100_000, 10_000);
    try (Dataset ds = Dataset.open(SparkBenchData.uri(table))) {
      assertThat(ds.countRows()).isEqualTo(100_000);
      assertThat(ds.manifest().fragments()).hasSize(10);
    }
    Row sums = spark.read().format("quiver").load(SparkBenchData.uri(table))
        .agg(org.apache.spark.sql.functions.sum("id"), org.apache.spark.sql.functions.max("name")).first();
    assertThat(sums.getLong(0)).isEqualTo(100_000L * 99_999 / 2);
  }

  @Test
  void writeParquet_writesTheRowsInTheGivenNumberOfFiles(@TempDir Path dir) throws Exception {
    Path table = dir.resolve("p");
    SparkBenchData.writeParquet(spark, table, 10_000, 4);
    assertThat(spark.read().parquet(SparkBenchData.uri(table)).count()).isEqualTo(10_000);
    try (var files = java.nio.file.Files.list(table)) {
      assertThat(files.filter(f -> f.toString().endsWith(".parquet")).count()).isEqualTo(4);
    }
  }

  @Test
  void cached_buildsOnce(@TempDir Path dir) {
    System.setProperty("quiver.bench.dir", dir.toString());
    try {
      int[] builds = {0};
      Bench.TableBuilder builder = d -> {
        builds[0]++;
        java.nio.file.Files.createDirectories(d);
      };
      Path first = SparkBench.cached("t", builder);
      Path second = SparkBench.cached("t", builder);
      assertThat(second).isEqualTo(first);
      assertThat(builds[0]).isEqualTo(1);
    } finally {
      System.clearProperty("quiver.bench.dir");
    }
  }

  @Test
  void queryStats_findTheScanNodes_andParquetsBytesRead(@TempDir Path dir) {
    Path parquet = dir.resolve("p");
    SparkBenchData.writeParquet(spark, parquet, 20_000, 2);
    QueryStats p = QueryStats.of(spark, () -> spark.read().parquet(SparkBenchData.uri(parquet))
        .where(col("id").lt(1_000)).select("value").write().format("noop").mode("overwrite").save());
    assertThat(p.taskBytesRead()).isPositive();
    assertThat(p.scanMetrics()).isNotEmpty().allSatisfy((k, v) -> assertThat(k).startsWith("FileSourceScanExec: "));

    Path quiver = dir.resolve("q");
    SparkBenchData.writeQuiver(quiver, 20_000, 10_000);
    QueryStats q = QueryStats.of(spark, () -> spark.read().format("quiver").load(SparkBenchData.uri(quiver))
        .where(col("id").lt(1_000)).select("value").write().format("noop").mode("overwrite").save());
    assertThat(q.scanMetrics()).isNotEmpty().allSatisfy((k, v) -> assertThat(k).startsWith("BatchScanExec: "));
  }
}
