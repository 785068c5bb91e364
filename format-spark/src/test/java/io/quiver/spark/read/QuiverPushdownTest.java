package io.quiver.spark.read;

import static io.quiver.spark.read.ArrowRows.field;
import static io.quiver.spark.read.ArrowRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.predicate.Predicate;
import io.quiver.spark.SparkTests;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.FieldReference;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.filter.AlwaysFalse;
import org.apache.spark.sql.connector.expressions.filter.AlwaysTrue;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Filters: each operator on each literal type gives what Spark itself computes on the same rows, and is
 * pushed (no Spark Filter remains; the scan names the Quiver predicate); what Quiver cannot evaluate is
 * left to Spark and still right.
 */
class QuiverPushdownTest {
  static SparkTests spark;
  static RootAllocator allocator;

  static final ArrowType I32 = new ArrowType.Int(32, true);
  static final ArrowType I64 = new ArrowType.Int(64, true);
  static final ArrowType UTF8 = ArrowType.Utf8.INSTANCE;

  static final Schema SCHEMA = new Schema(List.of(
      field("id", I64), field("name", UTF8),
      field("d", new ArrowType.Date(DateUnit.DAY)),
      field("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
      field("ntz", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
      field("dec", new ArrowType.Decimal(10, 2, 128)),
      field("f", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      field("flag", ArrowType.Bool.INSTANCE),
      field("bin", ArrowType.Binary.INSTANCE),
      field("u8", new ArrowType.Int(8, false)),
      field("s", ArrowType.Struct.INSTANCE, field("x", I32), field("y", UTF8)),
      field("tsn", new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC")),
      field("dm", new ArrowType.Date(DateUnit.MILLISECOND)),
      field("tags", ArrowType.List.INSTANCE, field("element", UTF8))));

  static final long T0 = 1_704_067_200_000_000L; // 2024-01-01T00:00:00Z in micros
  static final int D0 = 19723; // 2024-01-01 in days
  static final long DAY_MS = 86_400_000L;

  static List<List<Object>> rows(long from, long to) {
    List<List<Object>> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      boolean nul = i % 4 == 3;
      out.add(row(i, nul ? null : i % 3 == 0 ? "bob" : "n" + i + (i % 2 == 0 ? "xyz" : ""),
          nul ? null : D0 + (int) i, nul ? null : T0 + i * 1_000_000L, nul ? null : T0 + i * 500_000L,
          nul ? null : BigDecimal.valueOf(i * 50, 2), nul ? null : i == 5 ? Double.NaN : i * 0.25 - 1,
          nul ? null : i % 2 == 0, nul ? null : new byte[] {1, (byte) i}, nul ? null : (int) (250 + i) % 256,
          i == 6 ? null : row(nul ? null : (int) i, i % 2 == 0 ? "p" : null),
          nul ? null : (T0 + i * 1_000_000L) * 1000 + (i % 2 == 0 ? 0 : 400),
          nul ? null : (D0 + i) * DAY_MS + (i % 2 == 0 ? 0 : 3_600_000L),
          nul ? null : List.of("t" + i)));
    }
    return out;
  }

  @BeforeAll
  static void start() {
    spark = SparkTests.start(b -> b.config("spark.sql.session.timeZone", "UTC"));
    allocator = new RootAllocator();
    Schema schema = SCHEMA;
    String uri = spark.warehouse().resolve("db").resolve("people").toUri().toString();
    try (VectorSchemaRoot a = ArrowRows.batch(allocator, schema, rows(0, 6));
        Dataset ds = Dataset.create(uri, schema, List.of(a), DatasetOptions.builder().allocator(allocator).build());
        VectorSchemaRoot b = ArrowRows.batch(allocator, schema, rows(6, 12))) {
      ds.append(List.of(b));
    }
    // The same rows, evaluated by Spark alone.
    org.apache.spark.sql.Dataset<Row> all = s().table("quiver.db.people");
    s().createDataFrame(all.collectAsList(), all.schema()).createOrReplaceTempView("people_ref");
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

  static List<Long> ids(String table, String where) {
    return s().sql("SELECT id FROM " + table + " WHERE " + where + " ORDER BY id").collectAsList().stream()
        .map(r -> r.getLong(0)).toList();
  }

  static final List<String> PUSHED = List.of(
      "id = 3", "id <> 3", "id < 3", "id <= 3", "id > 3", "id >= 3", "3 > id", "id IN (1, 4, 7)",
      "NOT id IN (1, 4, 7)", "name IS NULL", "name IS NOT NULL", "name = 'bob'", "name <> 'bob'",
      "name > 'n4'", "name <= 'n4xyz'", "name IN ('bob', 'n1', 'zzz')", "name <=> 'bob'", "NOT (name <=> 'bob')",
      "d = DATE'2024-01-03'", "d < DATE'2024-01-03'", "d >= DATE'2024-01-05'", "d IN (DATE'2024-01-01', DATE'2024-01-11')",
      "ts = TIMESTAMP'2024-01-01 00:00:02'", "ts > TIMESTAMP'2024-01-01 00:00:04.5'",
      "ts <= TIMESTAMP'2024-01-01 00:00:04'",
      "ntz = TIMESTAMP_NTZ'2024-01-01 00:00:01.5'", "ntz < TIMESTAMP_NTZ'2024-01-01 00:00:02'",
      "dec = 1.50", "dec > 2.25", "dec <= 0.50", "dec IN (0.00, 5.00)",
      "f = -0.5", "f > 0.0", "f < 0.5", "f = double('NaN')", "f > 1.0",
      "flag = true", "flag = false", "NOT flag", "flag",
      "bin = X'0102'", "bin > X'0104'",
      "u8 > 250", "u8 = 0", "u8 < 5",
      "s IS NULL", "s IS NOT NULL", "s.x IS NULL", "s.x > 4", "s.x = 2", "s.y = 'p'", "s.y IS NULL",
      "tsn = TIMESTAMP'2024-01-01 00:00:05'", "tsn <> TIMESTAMP'2024-01-01 00:00:05'",
      "tsn > TIMESTAMP'2024-01-01 00:00:05'", "tsn <= TIMESTAMP'2024-01-01 00:00:05'",
      "tsn < TIMESTAMP'2024-01-01 00:00:05'", "tsn >= TIMESTAMP'2024-01-01 00:00:05'",
      "tsn IN (TIMESTAMP'2024-01-01 00:00:05', TIMESTAMP'2024-01-01 00:00:04')",
      "dm = DATE'2024-01-02'", "dm > DATE'2024-01-02'", "dm <= DATE'2024-01-02'", "dm <> DATE'2024-01-02'",
      "id = 1 OR name = 'bob'", "NOT (id = 1 OR id = 2)", "id > 2 AND name IS NOT NULL",
      "(id < 3 OR id > 8) AND NOT (s.x = 1)", "NOT (d > DATE'2024-01-04' AND flag)");

  @Test
  void everyPushedOperatorGivesWhatSparkComputes() {
    for (String where : PUSHED) {
      org.apache.spark.sql.Dataset<Row> df = s().sql("SELECT id FROM quiver.db.people WHERE " + where);
      String optimized = df.queryExecution().optimizedPlan().toString();
      String executed = df.queryExecution().executedPlan().toString();
      assertThat(optimized).as("no Spark filter left for %s", where).doesNotContain("Filter ");
      assertThat(executed).as("pushed %s", where).contains("filter=[");
      assertThat(ids("quiver.db.people", where)).as(where).isEqualTo(ids("people_ref", where));
    }
    // Something of each kind actually matched (the comparison above is not vacuous).
    assertThat(ids("quiver.db.people", "tsn = TIMESTAMP'2024-01-01 00:00:05'")).containsExactly(5L);
    assertThat(ids("quiver.db.people", "dm = DATE'2024-01-02'")).containsExactly(1L);
    assertThat(ids("quiver.db.people", "s.y = 'p'")).containsExactly(0L, 2L, 4L, 8L, 10L);
  }

  @Test
  void thePushedQuiverPredicateIsTheExactConversion() {
    org.apache.spark.sql.Dataset<Row> df = s().sql("SELECT name FROM quiver.db.people WHERE s.x > 4 AND"
        + " d < DATE'2024-01-09' AND name IN ('n5', 'bob') AND dec >= 1.00");
    assertThat(df.queryExecution().executedPlan().toString())
        .contains("filter=[s.x IS NOT NULL AND d IS NOT NULL AND dec IS NOT NULL AND s.x > 4 AND d < DATE '2024-01-09'"
            + " AND name IN ('n5', 'bob') AND dec >= 1.00]")
        .contains("columns=[name]");
    assertThat(df.collectAsList()).extracting(r -> r.getString(0)).containsExactly("n5");
  }

  @Test
  void whatQuiverCannotEvaluateIsLeftToSparkAndStillRight() {
    List<String> left = List.of("length(name) > 3", "upper(name) = 'BOB'", "id + 1 = 4", "name LIKE 'n%xyz'",
        "array_contains(tags, 't3')", "id = s.x", "tags[0] = 't1'");
    for (String where : left) {
      org.apache.spark.sql.Dataset<Row> df = s().sql("SELECT id FROM quiver.db.people WHERE " + where);
      assertThat(ids("quiver.db.people", where)).as(where).isEqualTo(ids("people_ref", where));
    }
    org.apache.spark.sql.Dataset<Row> df = s().sql("SELECT id FROM quiver.db.people WHERE length(name) > 3 AND id > 5");
    assertThat(df.queryExecution().optimizedPlan().toString()).contains("Filter ").contains("length(name");
    assertThat(df.queryExecution().executedPlan().toString()).contains("id > 5");
    assertThat(ids("quiver.db.people", "length(name) > 3 AND id > 5")).containsExactly(8L, 10L);
  }

  // ---------------------------------------------------------------- conversion, without Spark's optimizer

  static org.apache.spark.sql.connector.expressions.filter.Predicate p(String op, Expression... children) {
    return new org.apache.spark.sql.connector.expressions.filter.Predicate(op, children);
  }

  static Expression col(String dotted) {
    return FieldReference.apply(dotted);
  }

  static Expression lit(Object value, DataType type) {
    return new LiteralValue<>(value, type);
  }

  static Optional<Predicate> convert(org.apache.spark.sql.connector.expressions.filter.Predicate p) {
    StructType schema = s().table("quiver.db.people").schema();
    return SparkPredicates.toQuiver(p, schema, SCHEMA);
  }

  @Test
  void literalsTakeTheColumnTypesJavaType() {
    assertThat(convert(new AlwaysTrue())).contains(Predicate.TRUE);
    assertThat(convert(new AlwaysFalse())).contains(Predicate.FALSE);
    assertThat(convert(p("=", col("name"), lit(UTF8String.fromString("bob"), DataTypes.StringType))))
        .contains(Predicate.eq("name", "bob"));
    assertThat(convert(p("<", col("dec"), lit(Decimal.apply(new BigDecimal("1.25")), DataTypes.createDecimalType(10, 2)))))
        .contains(Predicate.lt("dec", new BigDecimal("1.25")));
    assertThat(convert(p(">=", col("d"), lit(D0, DataTypes.DateType))))
        .contains(Predicate.ge("d", LocalDate.of(2024, 1, 1)));
    assertThat(convert(p("=", col("ts"), lit(T0 + 1, DataTypes.TimestampType))))
        .contains(Predicate.eq("ts", Instant.parse("2024-01-01T00:00:00.000001Z")));
    assertThat(convert(p("=", col("ntz"), lit(T0 + 1, DataTypes.TimestampNTZType))))
        .contains(Predicate.eq("ntz", LocalDateTime.parse("2024-01-01T00:00:00.000001")));
    assertThat(convert(p("=", col("bin"), lit(new byte[] {1, 2}, DataTypes.BinaryType))))
        .contains(Predicate.eq("bin", new byte[] {1, 2}));
    assertThat(convert(p(">", col("s.x"), lit(4, DataTypes.IntegerType)))).contains(Predicate.gt("s.x", 4));
    assertThat(convert(p("<", lit(4L, DataTypes.LongType), col("id")))).contains(Predicate.gt("id", 4L));
    assertThat(convert(p("IN", col("id"), lit(1L, DataTypes.LongType), lit(2L, DataTypes.LongType))))
        .contains(Predicate.in("id", 1L, 2L));
    assertThat(convert(p("<=>", col("id"), lit(null, DataTypes.LongType)))).contains(Predicate.isNull("id"));
    assertThat(convert(p("<=>", col("id"), lit(3L, DataTypes.LongType))))
        .contains(Predicate.and(Predicate.isNotNull("id"), Predicate.eq("id", 3L)));
    // A nanosecond timestamp is read truncated to microseconds: equality is a range of the stored value.
    assertThat(convert(p("=", col("tsn"), lit(T0, DataTypes.TimestampType)))).contains(Predicate.and(
        Predicate.ge("tsn", Instant.parse("2024-01-01T00:00:00Z")),
        Predicate.lt("tsn", Instant.parse("2024-01-01T00:00:00.000001Z"))));
    assertThat(convert(p("NOT", p("IS_NULL", col("s"))))).contains(Predicate.isNotNull("s"));
    assertThat(convert(p("OR", p("IS_NULL", col("id")), p("=", col("flag"), lit(true, DataTypes.BooleanType)))))
        .contains(Predicate.or(Predicate.isNull("id"), Predicate.eq("flag", true)));
  }

  @Test
  void unconvertibleShapesAreRefused() {
    assertThat(convert(p("=", col("id"), lit(null, DataTypes.LongType)))).isEmpty();
    assertThat(convert(p("IN", col("id"), lit(1L, DataTypes.LongType), lit(null, DataTypes.LongType)))).isEmpty();
    assertThat(convert(p("=", col("id"), col("s.x")))).isEmpty();
    assertThat(convert(p("=", col("_rowaddr"), lit(1L, DataTypes.LongType)))).isEmpty();
    assertThat(convert(p("=", col("tags.element"), lit(UTF8String.fromString("a"), DataTypes.StringType)))).isEmpty();
    assertThat(convert(p("STARTS_WITH", col("name"), lit(UTF8String.fromString("n"), DataTypes.StringType))))
        .isEmpty();
    assertThat(convert(p("AND", p("IS_NULL", col("id")), p("STARTS_WITH", col("name"),
        lit(UTF8String.fromString("n"), DataTypes.StringType))))).isEmpty();
    assertThat(convert(p("=", col("s"), lit(1, DataTypes.IntegerType)))).isEmpty();
  }

  // ---------------------------------------------------------------- metrics

  /** Runs {@code sql} without adaptive execution and returns its Quiver scan node's metrics. */
  static java.util.Map<String, Long> scanMetrics(String sql) {
    s().conf().set("spark.sql.adaptive.enabled", "false");
    try {
      org.apache.spark.sql.Dataset<Row> df = s().sql(sql);
      df.collect();
      org.apache.spark.sql.execution.SparkPlan scan = scala.jdk.javaapi.CollectionConverters
          .asJava(df.queryExecution().executedPlan().collectLeaves()).get(0);
      java.util.Map<String, Long> out = new java.util.TreeMap<>();
      scala.jdk.javaapi.CollectionConverters.asJava(scan.metrics()).forEach((k, v) -> out.put(k, v.value()));
      return out;
    } finally {
      s().conf().unset("spark.sql.adaptive.enabled");
    }
  }

  @Test
  void scanMetricsCountTasksRowsAndBytesAndProvePruning() {
    scanMetrics("SELECT * FROM quiver.db.people"); // warms the footer cache, so both reads below fetch data only
    java.util.Map<String, Long> all = scanMetrics("SELECT * FROM quiver.db.people");
    assertThat(all).containsEntry(QuiverMetrics.TASKS_READ, 2L).containsEntry(QuiverMetrics.TASKS_PLANNED, 2L)
        .containsEntry(QuiverMetrics.FRAGMENTS_CONSIDERED, 2L).containsEntry(QuiverMetrics.ROWS_READ, 12L);
    assertThat(all.get(QuiverMetrics.BYTES_FETCHED)).isPositive();
    assertThat(all.get(QuiverMetrics.FILES_OPENED)).isEqualTo(2L);

    java.util.Map<String, Long> oneColumn = scanMetrics("SELECT id FROM quiver.db.people");
    assertThat(oneColumn).containsEntry(QuiverMetrics.ROWS_READ, 12L);
    assertThat(oneColumn.get(QuiverMetrics.BYTES_FETCHED)).as("column pruning fetches less")
        .isPositive().isLessThan(all.get(QuiverMetrics.BYTES_FETCHED));

    java.util.Map<String, Long> filtered = scanMetrics("SELECT id FROM quiver.db.people WHERE name = 'bob'");
    assertThat(filtered).as("Quiver returned only the matching rows").containsEntry(QuiverMetrics.ROWS_READ, 3L);
    java.util.Map<String, Long> unpushed = scanMetrics("SELECT id FROM quiver.db.people WHERE length(name) = 3");
    // Only the inferred name IS NOT NULL is pushed (3 of the 12 names are null); Spark evaluates the length.
    assertThat(unpushed).as("Spark filtered these itself").containsEntry(QuiverMetrics.ROWS_READ, 9L)
        .containsEntry("numOutputRows", 9L);
  }
}
