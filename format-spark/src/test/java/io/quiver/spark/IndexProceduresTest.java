package io.quiver.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.IndexBuildOptions;
import io.quiver.dataset.IndexBuildResult;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.NotFoundException;
import io.quiver.manifest.ScalarIndex;
import io.quiver.spark.read.QuiverMetrics;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The scalar index procedures through SQL: {@code create_index} and {@code optimize_index} build one segment per
 * Spark task and commit once, the filtered queries that follow return what they returned without the index while
 * the index prunes the fragments the column statistics cannot, the {@code indices} metadata table shows the
 * coverage, and bad input fails with Quiver's typed errors.
 */
class IndexProceduresTest {
  static SparkTests spark;

  @BeforeAll
  static void start() {
    spark = SparkTests.start();
  }

  @AfterAll
  static void stop() {
    spark.close();
  }

  private static List<String> rows(String sql) {
    return spark.spark().sql(sql).collectAsList().stream().map(Row::toString).toList();
  }

  /** Runs {@code sql} without adaptive execution and returns its Quiver scan node's metrics. */
  private static Map<String, Long> scanMetrics(String sql) {
    spark.spark().conf().set("spark.sql.adaptive.enabled", "false");
    try {
      org.apache.spark.sql.Dataset<Row> df = spark.spark().sql(sql);
      df.collect();
      org.apache.spark.sql.execution.SparkPlan scan = scala.jdk.javaapi.CollectionConverters
          .asJava(df.queryExecution().executedPlan().collectLeaves()).get(0);
      Map<String, Long> out = new java.util.TreeMap<>();
      scala.jdk.javaapi.CollectionConverters.asJava(scan.metrics()).forEach((k, v) -> out.put(k, v.value()));
      return out;
    } finally {
      spark.spark().conf().unset("spark.sql.adaptive.enabled");
    }
  }

  private static String uri(String namespace, String table) {
    return spark.warehouse().resolve(namespace).resolve(table).toUri().toString();
  }

  private static int fragments(String uri) {
    try (Dataset ds = Dataset.open(uri)) {
      return ds.manifest().fragments().size();
    }
  }

  private static long version(String uri) {
    try (Dataset ds = Dataset.open(uri)) {
      return ds.version();
    }
  }

  /**
   * Four inserts of one fragment each, ids {@code 10 * i + j}: every insert holds owners 'a' and 'z' (so each fragment's statistics
   * span every owner in between) and buckets 0 and 100; owner 'needle' is only in insert 1, bucket 50 only in
   * insert 2.
   */
  private static void createEvents(String table) {
    spark.spark().sql("CREATE TABLE " + table + " (id BIGINT NOT NULL, owner STRING, score DOUBLE, bucket INT)");
    for (int i = 0; i < 4; i++) {
      StringBuilder values = new StringBuilder();
      for (int j = 0; j < 5; j++) {
        String owner = j == 0 ? "a" : j == 4 ? "z" : (i == 1 && j == 2) ? "needle" : "m" + j;
        int bucket = (i == 2 && j == 2) ? 50 : j % 2 == 0 ? 0 : 100;
        values.append(j == 0 ? "" : ", ").append("(").append(10 * i + j).append(", '").append(owner).append("', ")
            .append(j * 1.5).append(", ").append(bucket).append(")");
      }
      spark.spark().sql("INSERT INTO " + table + " SELECT /*+ REPARTITION(1) */ * FROM VALUES " + values
          + " AS v(id, owner, score, bucket)"); // one Spark task: one fragment per insert

    }
  }

  @Test
  void createOptimizeAndDropThroughSqlAndTheIndexPrunesWhatStatisticsCannot() {
    createEvents("quiver.idx.events");
    String uri = uri("idx", "events");
    int fragments = fragments(uri);
    assertThat(fragments).isEqualTo(4);
    String needle = "SELECT id, owner FROM quiver.idx.events WHERE owner = 'needle'";
    String fifty = "SELECT id FROM quiver.idx.events WHERE bucket BETWEEN 40 AND 60";
    List<String> needleRows = rows(needle);
    List<String> fiftyRows = rows(fifty);
    assertThat(needleRows).containsExactly("[12,needle]");
    assertThat(fiftyRows).containsExactly("[22]");
    Map<String, Long> unindexed = scanMetrics(needle);
    assertThat(unindexed).as("the statistics prune nothing").containsEntry(QuiverMetrics.FRAGMENTS_PRUNED, 0L)
        .containsEntry(QuiverMetrics.TASKS_PLANNED, (long) fragments);

    // One task (and segment) per fragment with rows_per_task => 1.
    long before = version(uri);
    List<Row> created = spark.spark().sql("CALL quiver.system.create_index(table => 'idx.events', name => 'by_owner',"
        + " kind => 'BITMAP', column => 'owner', rows_per_task => 1)").collectAsList();
    assertThat(created).hasSize(1);
    assertThat(created.get(0).toString())
        .isEqualTo("[by_owner,bitmap,owner," + (before + 1) + "," + fragments + "," + fragments + ",20]");
    assertThat(version(uri)).isEqualTo(before + 1);
    try (Dataset ds = Dataset.open(uri)) {
      ScalarIndex index = ds.indices().get("by_owner").orElseThrow();
      assertThat(index.kind()).isEqualTo(ScalarIndex.Kind.BITMAP);
      assertThat(index.segments()).hasSize(fragments);
      assertThat(index.createdVersion()).isEqualTo(before + 1);
    }
    assertThat(rows(needle)).isEqualTo(needleRows);
    Map<String, Long> indexed = scanMetrics(needle);
    assertThat(indexed).as("the index leaves one fragment to read")
        .containsEntry(QuiverMetrics.TASKS_PLANNED, 1L)
        .containsEntry(QuiverMetrics.FRAGMENTS_PRUNED, (long) fragments - 1)
        .containsEntry(QuiverMetrics.ROWS_READ, 1L);
    assertThat(rows("SELECT COUNT(*) FROM quiver.idx.events WHERE owner IN ('a', 'm3')")).containsExactly("[8]");

    // A btree with the default rows per task: one task, one segment.
    assertThat(rows("CALL quiver.system.create_index(table => 'idx.events', name => 'by_bucket', kind => 'btree',"
        + " column => 'bucket')")).containsExactly("[by_bucket,btree,bucket," + (before + 2) + ",1," + fragments
            + ",20]");
    assertThat(rows(fifty)).isEqualTo(fiftyRows);
    assertThat(scanMetrics(fifty)).containsEntry(QuiverMetrics.TASKS_PLANNED, 1L);
    assertThat(rows("SELECT id FROM quiver.idx.events WHERE bucket = 100 AND owner = 'needle'")).isEmpty();

    assertThat(rows("SELECT name, kind, column, created_version, segments, covered_fragments, uncovered_fragments,"
        + " covered_rows, uncovered_rows FROM quiver.idx.events.indices ORDER BY name")).containsExactly(
            "[by_bucket,btree,bucket," + (before + 2) + ",1," + fragments + ",0,20,0]",
            "[by_owner,bitmap,owner," + (before + 1) + "," + fragments + "," + fragments + ",0,20,0]");
    assertThat(rows("SELECT name FROM quiver.idx.events.indices VERSION AS OF " + before)).as("time travel")
        .isEmpty();

    // Appended rows are scanned until an optimize indexes them.
    spark.spark().sql("INSERT INTO quiver.idx.events SELECT /*+ REPARTITION(1) */ * FROM VALUES"
        + " (100, 'needle', 1.0, 7), (101, 'b', 2.0, 8) AS v(id, owner, score, bucket)");
    int appended = fragments(uri) - fragments;
    assertThat(appended).isEqualTo(1);
    assertThat(rows("SELECT uncovered_fragments, uncovered_rows FROM quiver.idx.events.indices"
        + " WHERE name = 'by_owner'")).containsExactly("[" + appended + ",2]");
    assertThat(rows(needle)).containsExactlyInAnyOrder("[12,needle]", "[100,needle]");
    long beforeOptimize = version(uri);
    assertThat(rows("CALL quiver.system.optimize_index(table => 'idx.events', name => 'by_owner')"))
        .containsExactly("[by_owner,bitmap,owner," + (beforeOptimize + 1) + ",1," + appended + ",2]");
    assertThat(rows("SELECT segments, uncovered_fragments FROM quiver.idx.events.indices WHERE name = 'by_owner'"))
        .containsExactly("[" + (fragments + 1) + ",0]");
    assertThat(rows(needle)).containsExactlyInAnyOrder("[12,needle]", "[100,needle]");
    assertThat(scanMetrics(needle)).containsEntry(QuiverMetrics.TASKS_PLANNED, 2L);
    assertThat(rows("CALL quiver.system.optimize_index(table => 'idx.events', name => 'by_owner')"))
        .as("nothing to index: nothing committed")
        .containsExactly("[by_owner,bitmap,owner," + (beforeOptimize + 1) + ",0,0,0]");
    assertThat(version(uri)).isEqualTo(beforeOptimize + 1);

    assertThat(rows("CALL quiver.system.drop_index(table => 'idx.events', name => 'by_owner')"))
        .containsExactly("[by_owner,bitmap,owner," + (beforeOptimize + 2) + "]");
    assertThat(rows("SELECT name FROM quiver.idx.events.indices")).containsExactly("[by_bucket]");
    assertThat(rows(needle)).containsExactlyInAnyOrder("[12,needle]", "[100,needle]");
    assertThat(scanMetrics(needle)).as("no index on owner any more")
        .containsEntry(QuiverMetrics.TASKS_PLANNED, (long) fragments(uri));
  }

  @Test
  void badInputFailsWithQuiversTypedErrorsAndCommitsNothing() {
    createEvents("quiver.idx.errors");
    String uri = uri("idx", "errors");
    spark.spark().sql("CALL quiver.system.create_index(table => 'idx.errors', name => 'k', kind => 'btree',"
        + " column => 'id')");
    long version = version(uri);
    assertThatThrownBy(() -> spark.spark().sql("CALL quiver.system.create_index(table => 'idx.errors',"
        + " name => 'x', kind => 'btree', column => 'nope')")).isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("no column 'nope'");
    assertThatThrownBy(() -> spark.spark().sql("CALL quiver.system.create_index(table => 'idx.errors',"
        + " name => 'x', kind => 'hash', column => 'id')")).isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("kind 'hash' is not an index kind").hasMessageContaining("'btree'");
    assertThatThrownBy(() -> spark.spark().sql("CALL quiver.system.create_index(table => 'idx.errors',"
        + " name => 'k', kind => 'bitmap', column => 'owner')")).isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("already has an index named 'k'");
    assertThatThrownBy(() -> spark.spark().sql("CALL quiver.system.create_index(table => 'idx.errors',"
        + " name => 'x', kind => 'btree', column => 'score')")).isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("column 'score' of type").hasMessageContaining("cannot be indexed")
        .hasMessageContaining("not floating point");
    assertThatThrownBy(() -> spark.spark().sql("CALL quiver.system.create_index(table => 'idx.errors',"
        + " name => 'bad name', kind => 'btree', column => 'id')")).isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("must match");
    assertThatThrownBy(() -> spark.spark().sql("CALL quiver.system.create_index(table => 'idx.errors',"
        + " name => 'x', kind => 'btree', column => 'id', rows_per_task => 0)"))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("rows_per_task (0) must be 1 or more");
    assertThatThrownBy(() -> spark.spark().sql("CALL quiver.system.create_index(table => 'idx.errors',"
        + " name => 'x', kind => 'btree')")).hasMessageContaining("column");
    assertThatThrownBy(() -> spark.spark().sql("CALL quiver.system.optimize_index(table => 'idx.errors',"
        + " name => 'missing')")).isInstanceOf(NotFoundException.class).hasMessageContaining("no index named 'missing'")
        .hasMessageContaining("[k]");
    assertThatThrownBy(() -> spark.spark().sql("CALL quiver.system.drop_index(table => 'idx.errors',"
        + " name => 'missing')")).isInstanceOf(NotFoundException.class).hasMessageContaining("no index named 'missing'");
    assertThat(version(uri)).as("no failed call committed").isEqualTo(version);
  }

  /**
   * A task that fails on an executor (here: a data file truncated after the table was written, which planning on
   * the driver does not read) reaches the caller as Quiver's typed error naming the file, not as Spark's "Job
   * aborted" wrapper, for the index build and for the connector's compaction job alike; neither commits.
   */
  @Test
  void anExecutorFailureReachesTheCallerAsQuiversTypedError() throws Exception {
    createEvents("quiver.idx.damaged");
    String uri = uri("idx", "damaged");
    long version = version(uri);
    java.nio.file.Path file;
    try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(
        spark.warehouse().resolve("idx").resolve("damaged").resolve("data"))) {
      file = files.filter(f -> f.toString().endsWith(".arrow")).sorted().findFirst().orElseThrow();
    }
    byte[] bytes = java.nio.file.Files.readAllBytes(file);
    java.nio.file.Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length / 2));

    assertThatThrownBy(() -> spark.spark().sql("CALL quiver.system.create_index(table => 'idx.damaged',"
        + " name => 'k', kind => 'btree', column => 'id')"))
        .isInstanceOf(io.quiver.exceptions.CorruptFileException.class)
        .hasMessageContaining(file.getFileName().toString());
    assertThatThrownBy(() -> spark.spark().sql("CALL quiver.system.compact(table => 'idx.damaged',"
        + " target_rows_per_fragment => 1000)"))
        .isInstanceOf(io.quiver.exceptions.CorruptFileException.class)
        .hasMessageContaining(file.getFileName().toString());
    assertThat(version(uri)).as("no failed job committed").isEqualTo(version);
  }

  @Test
  void theJavaEntryPointsRunTheSameJob() {
    createEvents("quiver.idx.java");
    IndexBuildResult r = QuiverSpark.createIndex(spark.spark(), "quiver.idx.java", "by_owner",
        ScalarIndex.Kind.BTREE, "owner", IndexBuildOptions.defaults().withRowsPerTask(6));
    int fragments = fragments(uri("idx", "java"));
    assertThat(r.fragmentsIndexed()).isEqualTo(fragments);
    assertThat(r.rowsIndexed()).isEqualTo(20);
    assertThat(r.index().segments()).hasSize(r.segmentsAdded());
    assertThat(rows("SELECT id FROM quiver.idx.java WHERE owner = 'needle'")).containsExactly("[12]");
    IndexBuildResult none = QuiverSpark.optimizeIndex(spark.spark(), "quiver.idx.java", "by_owner",
        IndexBuildOptions.defaults());
    assertThat(none.segmentsAdded()).isZero();
    assertThat(none.version()).isEqualTo(r.version());
  }
}
