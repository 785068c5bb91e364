package io.quiver.spark.read;

import static io.quiver.spark.read.ArrowRows.field;
import static io.quiver.spark.read.ArrowRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.spark.SparkTests;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Time travel (VERSION AS OF a number or a tag, TIMESTAMP AS OF, the reader options) and snapshot
 * isolation: a query reads the one version its table was loaded at, even when a Java writer commits
 * between loading and reading, or between planning and the executors' reads.
 */
class QuiverTimeTravelTest {
  static SparkTests spark;
  static RootAllocator allocator;
  static final Schema SCHEMA = new Schema(List.of(field("id", new ArrowType.Int(64, true)),
      field("v", ArrowType.Utf8.INSTANCE)));

  @BeforeAll
  static void start() {
    spark = SparkTests.start(b -> b.config("spark.sql.session.timeZone", "UTC"));
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stop() {
    spark.close();
    assertThat(QuiverPartitionReader.allocatedBytes()).isZero();
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  static SparkSession s() {
    return spark.spark();
  }

  static String uri(String table) {
    return spark.warehouse().resolve("db").resolve(table).toUri().toString();
  }

  static DatasetOptions at(String instant) {
    return DatasetOptions.builder().allocator(allocator).clock(Clock.fixed(Instant.parse(instant), ZoneOffset.UTC))
        .build();
  }

  static List<List<Object>> rows(long from, long to, String v) {
    List<List<Object>> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      out.add(row(i, v));
    }
    return out;
  }

  /** Appends rows [from, to) as one commit, at {@code instant}; returns the version committed. */
  static long append(String table, long from, long to, String instant) {
    try (Dataset ds = Dataset.open(uri(table), at(instant));
        VectorSchemaRoot b = ArrowRows.batch(allocator, SCHEMA, rows(from, to, "v" + from))) {
      return ds.append(List.of(b));
    }
  }

  static long count(String sql) {
    return s().sql(sql).collectAsList().get(0).getLong(0);
  }

  @Test
  void readsAVersionByNumberTagAndTimestampInSqlAndOptions() {
    try (Dataset ds = Dataset.create(uri("tt"), SCHEMA, List.of(), at("2026-01-01T00:00:00Z"))) {
      assertThat(ds.version()).isEqualTo(1);
    }
    long v2 = append("tt", 0, 10, "2026-01-02T00:00:00Z");
    long v3 = append("tt", 10, 15, "2026-01-03T00:00:00Z");
    long v4 = append("tt", 15, 18, "2026-01-04T00:00:00Z");
    assertThat(List.of(v2, v3, v4)).containsExactly(2L, 3L, 4L);
    try (Dataset ds = Dataset.open(uri("tt"), DatasetOptions.builder().allocator(allocator).build())) {
      ds.tags().create("release", v3);
    }

    assertThat(count("SELECT count(*) FROM quiver.db.tt")).isEqualTo(18);
    assertThat(count("SELECT count(*) FROM quiver.db.tt VERSION AS OF 1")).isZero();
    assertThat(count("SELECT count(*) FROM quiver.db.tt VERSION AS OF 2")).isEqualTo(10);
    assertThat(count("SELECT count(*) FROM quiver.db.tt VERSION AS OF 'release'")).isEqualTo(15);
    assertThat(count("SELECT count(*) FROM quiver.db.tt TIMESTAMP AS OF '2026-01-03 12:00:00'")).isEqualTo(15);
    assertThat(count("SELECT count(*) FROM quiver.db.tt TIMESTAMP AS OF '2026-01-02 00:00:00'")).isEqualTo(10);
    assertThat(s().sql("SELECT max(id), min(v) FROM quiver.db.tt VERSION AS OF 3").collectAsList().get(0).toString())
        .isEqualTo("[14,v0]");
    // The scan names the version it reads.
    assertThat(s().sql("SELECT id FROM quiver.db.tt VERSION AS OF 'release' WHERE id > 3").queryExecution()
        .executedPlan().toString()).contains("@ version 3");

    assertThat(s().read().format("quiver").option("versionAsOf", "2").load(uri("tt")).count()).isEqualTo(10);
    assertThat(s().read().format("quiver").option("tag", "release").load(uri("tt")).count()).isEqualTo(15);
    assertThat(s().read().format("quiver").option("timestampAsOf", "2026-01-02T06:00:00Z").load(uri("tt")).count())
        .isEqualTo(10);
    assertThat(s().read().format("quiver").load(uri("tt")).count()).isEqualTo(18);

    assertThatThrownBy(() -> s().sql("SELECT * FROM quiver.db.tt TIMESTAMP AS OF '2025-12-01 00:00:00'").collect())
        .hasMessageContaining("no version");
    assertThatThrownBy(() -> s().read().format("quiver").option("tag", "nope").load(uri("tt")).count())
        .hasMessageContaining("nope");
  }

  @Test
  void aQueryReadsTheVersionItsTableWasLoadedAtWhileAJavaWriterAppends() {
    try (VectorSchemaRoot b = ArrowRows.batch(allocator, SCHEMA, rows(0, 10, "a"));
        Dataset ds = Dataset.create(uri("live"), SCHEMA, List.of(b), DatasetOptions.builder().allocator(allocator)
            .build())) {
      assertThat(ds.version()).isEqualTo(1);
    }
    append("live", 10, 20, "2026-02-01T00:00:00Z");

    // 1. Spark 4.2 re-resolves a DataFrame's catalog tables when it runs (QueryExecution's table refresh
    //    phase): a DataFrame made before a commit and run after it reads the version current when it is
    //    planned, and the whole query reads that one version. A time-travel read stays on its version.
    org.apache.spark.sql.Dataset<Row> df = s().table("quiver.db.live").groupBy().count();
    org.apache.spark.sql.Dataset<Row> pinned = s().sql("SELECT count(*) FROM quiver.db.live VERSION AS OF 2");
    append("live", 20, 25, "2026-02-02T00:00:00Z");
    assertThat(df.collectAsList().get(0).getLong(0)).isEqualTo(25);
    assertThat(pinned.collectAsList().get(0).getLong(0)).isEqualTo(20);

    // 2. The scan is planned (tasks made on the driver), then a writer commits, then executors read.
    org.apache.spark.sql.Dataset<Row> all = s().sql("SELECT id, v FROM quiver.db.live");
    RDD<InternalRow> planned = all.queryExecution().toRdd();
    long partitions = planned.getNumPartitions();
    assertThat(all.queryExecution().executedPlan().toString()).contains("@ version 3");
    append("live", 25, 40, "2026-02-03T00:00:00Z");
    try (Dataset ds = Dataset.open(uri("live"), DatasetOptions.builder().allocator(allocator).build())) {
      // The newer version also deletes rows the planned version holds: the executors must not see it.
      ds.delete(io.quiver.predicate.Predicate.lt("id", 5L));
      assertThat(ds.countRows()).isEqualTo(35);
    }
    assertThat(planned.count()).isEqualTo(25);
    assertThat(planned.getNumPartitions()).isEqualTo(partitions);

    // 3. A fresh query sees the latest version.
    assertThat(s().table("quiver.db.live").count()).isEqualTo(35);
    assertThat(count("SELECT min(id) FROM quiver.db.live")).isEqualTo(5);
  }

  @Test
  void tasksCarryTheirVersionAndDecodeOnAnyProcess() {
    try (VectorSchemaRoot b = ArrowRows.batch(allocator, SCHEMA, rows(0, 4, "a"));
        Dataset ds = Dataset.create(uri("pinned"), SCHEMA, List.of(b), DatasetOptions.builder().allocator(allocator)
            .build())) {
      assertThat(ds.version()).isEqualTo(1);
    }
    io.quiver.spark.QuiverTable table = io.quiver.spark.QuiverTable.load("pinned",
        new io.quiver.spark.TableRef(uri("pinned"), java.util.Map.of()), new io.quiver.spark.VersionRef.Latest());
    QuiverScan scan = (QuiverScan) new QuiverScanBuilder(table,
        org.apache.spark.sql.util.CaseInsensitiveStringMap.empty()).build();
    append("pinned", 4, 8, "2026-03-01T00:00:00Z");
    org.apache.spark.sql.connector.read.InputPartition[] parts = scan.toBatch().planInputPartitions();
    assertThat(parts).hasSize(1);
    QuiverInputPartition part = (QuiverInputPartition) parts[0];
    assertThat(part.version()).isEqualTo(1);
    assertThat(io.quiver.dataset.ScanTask.decode(part.task()).version()).isEqualTo(1);
    long rows = 0;
    try (QuiverPartitionReader reader = new QuiverPartitionReader(table.ref(), part, scan.readSchema())) {
      while (reader.next()) {
        rows += reader.get().numRows();
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(rows).isEqualTo(4);
    assertThat(QuiverPartitionReader.allocatedBytes()).isZero();
  }
}
