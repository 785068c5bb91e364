package io.quiver.spark.read;

import static io.quiver.spark.read.ArrowRows.field;
import static io.quiver.spark.read.ArrowRows.map;
import static io.quiver.spark.read.ArrowRows.mapOf;
import static io.quiver.spark.read.ArrowRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.dataset.Dataset;
import io.quiver.spark.SparkTests;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Reads through the connector: every type cell for cell, projection, metadata columns, limit, errors. */
class QuiverReadTest {
  static SparkTests spark;
  static RootAllocator allocator;

  static final ArrowType I32 = new ArrowType.Int(32, true);
  static final ArrowType I64 = new ArrowType.Int(64, true);
  static final ArrowType UTF8 = ArrowType.Utf8.INSTANCE;

  @BeforeAll
  static void start() {
    spark = SparkTests.start(b -> b.config("spark.sql.datetime.java8API.enabled", "true")
        .config("spark.sql.session.timeZone", "UTC"));
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stop() {
    spark.close();
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  @AfterEach
  void everyPartitionReaderReleasedItsMemory() {
    assertThat(QuiverPartitionReader.allocatedBytes()).isZero();
  }

  static SparkSession s() {
    return spark.spark();
  }

  static String uri(String table) {
    return spark.warehouse().resolve("db").resolve(table).toUri().toString();
  }

  /** Creates table {@code quiver.db.<name>} with one fragment per batch of rows. */
  @SafeVarargs
  static void create(String name, Schema schema, List<List<Object>>... fragments) {
    try (VectorSchemaRoot first = ArrowRows.batch(allocator, schema, fragments[0]);
        Dataset ds = Dataset.create(uri(name), schema, List.of(first), io.quiver.dataset.DatasetOptions.builder()
            .allocator(allocator).build())) {
      for (int i = 1; i < fragments.length; i++) {
        try (VectorSchemaRoot b = ArrowRows.batch(allocator, schema, fragments[i])) {
          ds.append(List.of(b));
        }
      }
    }
  }

  // ---------------------------------------------------------------- every type

  static final Schema ALL = new Schema(List.of(
      field("id", I64),
      field("b", ArrowType.Bool.INSTANCE),
      field("i8", new ArrowType.Int(8, true)), field("i16", new ArrowType.Int(16, true)), field("i32", I32),
      field("i64", I64),
      field("u8", new ArrowType.Int(8, false)), field("u16", new ArrowType.Int(16, false)),
      field("u32", new ArrowType.Int(32, false)), field("u64", new ArrowType.Int(64, false)),
      field("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
      field("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      field("dec", new ArrowType.Decimal(10, 2, 128)), field("dec256", new ArrowType.Decimal(20, 3, 256)),
      field("s", UTF8), field("ls", ArrowType.LargeUtf8.INSTANCE),
      field("bin", ArrowType.Binary.INSTANCE), field("lbin", ArrowType.LargeBinary.INSTANCE),
      field("fbin", new ArrowType.FixedSizeBinary(3)),
      field("d", new ArrowType.Date(DateUnit.DAY)), field("dm", new ArrowType.Date(DateUnit.MILLISECOND)),
      field("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
      field("ts_ms", new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC")),
      field("ts_s", new ArrowType.Timestamp(TimeUnit.SECOND, "Europe/Paris")),
      field("ts_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC")),
      field("ntz", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
      field("ntz_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)),
      field("ntz_ms", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null)),
      field("st", ArrowType.Struct.INSTANCE, field("x", I32), field("y", UTF8),
          field("u", new ArrowType.Int(8, false))),
      field("st2", ArrowType.Struct.INSTANCE, field("x", I32), field("y", UTF8)),
      field("lst", ArrowType.List.INSTANCE, field("element", I32)),
      field("llst", ArrowType.LargeList.INSTANCE, field("element", UTF8)),
      field("fsl", new ArrowType.FixedSizeList(2), field("element", I64)),
      map("m", UTF8, I32),
      field("lsst", ArrowType.List.INSTANCE, field("element", ArrowType.Struct.INSTANCE,
          field("a", new ArrowType.Decimal(10, 2, 128)), field("t", new ArrowType.Timestamp(TimeUnit.MILLISECOND,
              "UTC"))))));

  static final long DAY_MS = 86_400_000L;

  static List<List<Object>> allRows() {
    List<List<Object>> rows = new ArrayList<>();
    rows.add(row(0L, true, -8, -16, -32, -64L, 255, 65535, (int) 4294967295L, -1L, 1.5f, -2.25,
        new BigDecimal("12345.67"), new BigDecimal("12345678901234567.891"), "héllo", "large",
        new byte[] {1, 2}, new byte[] {3}, new byte[] {9, 8, 7}, 19000, 19000 * DAY_MS + 3_600_000L,
        1_700_000_000_123_456L, 1_700_000_000_123L, 1_700_000_000L, 1_700_000_000_123_456_789L,
        1_600_000_000_000_001L, -1L, 5L,
        row(1, "a", 200), row(2, "b"), row(1, null, 3), row("x", "y"), row(10L, 20L), mapOf("k1", 1, "k2", null),
        row(row(new BigDecimal("1.25"), 1000L), null, row(null, null))));
    List<Object> nulls = new ArrayList<>();
    nulls.add(1L);
    for (int i = 1; i < ALL.getFields().size(); i++) {
      nulls.add(null);
    }
    rows.add(nulls);
    rows.add(row(2L, false, 127, 0, Integer.MIN_VALUE, Long.MAX_VALUE, 0, 1, 0, Long.MAX_VALUE, Float.NaN, -0.5,
        new BigDecimal("-0.01"), new BigDecimal("0.000"), "", "", new byte[0], new byte[0], new byte[] {0, 0, 0},
        -1, -1L, 0L, -1L, -1L, -1L, 0L, 999L, -1000L,
        row(null, null, null), row(null, "only y"), row(), row(), row(null, 5L), mapOf(), row()));
    return rows;
  }

  /** What Spark returns for {@link #allRows()}, normalised (see {@link #norm}). */
  static List<List<Object>> allExpected() {
    List<List<Object>> rows = new ArrayList<>();
    rows.add(row(0L, true, (byte) -8, (short) -16, -32, -64L, (short) 255, 65535, 4294967295L,
        "18446744073709551615", 1.5f, -2.25, "12345.67", "12345678901234567.891", "héllo", "large", "0x0102",
        "0x03", "0x090807", LocalDate.ofEpochDay(19000), LocalDate.ofEpochDay(19000),
        Instant.ofEpochSecond(1_700_000_000L, 123_456_000), Instant.ofEpochMilli(1_700_000_000_123L),
        Instant.ofEpochSecond(1_700_000_000L), Instant.ofEpochSecond(1_700_000_000L, 123_456_000),
        LocalDateTime.of(2020, 9, 13, 12, 26, 40, 1_000), LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000),
        LocalDateTime.of(1970, 1, 1, 0, 0, 0, 5_000_000),
        row(1, "a", (short) 200), row(2, "b"), row(1, null, 3), row("x", "y"), row(10L, 20L),
        mapOf("k1", 1, "k2", null), row(row("1.25", Instant.ofEpochSecond(1)), null, row(null, null))));
    List<Object> nulls = new ArrayList<>();
    nulls.add(1L);
    for (int i = 1; i < ALL.getFields().size(); i++) {
      nulls.add(null);
    }
    rows.add(nulls);
    rows.add(row(2L, false, (byte) 127, (short) 0, Integer.MIN_VALUE, Long.MAX_VALUE, (short) 0, 1, 0L,
        "9223372036854775807", Float.NaN, -0.5, "-0.01", "0.000", "", "", "0x", "0x", "0x000000",
        LocalDate.ofEpochDay(-1), LocalDate.ofEpochDay(-1), Instant.EPOCH, Instant.ofEpochMilli(-1),
        Instant.ofEpochSecond(-1), Instant.EPOCH.minusNanos(1000), LocalDateTime.of(1970, 1, 1, 0, 0),
        LocalDateTime.of(1970, 1, 1, 0, 0), LocalDateTime.of(1969, 12, 31, 23, 59, 59),
        row(null, null, null), row(null, "only y"), row(), row(), row(null, 5L), mapOf(), row()));
    return rows;
  }

  /** A Spark value as comparable Java: rows and arrays as lists, maps as maps, binary as hex, decimals as text. */
  static Object norm(Object v) {
    if (v instanceof Row r) {
      List<Object> out = new ArrayList<>();
      for (int i = 0; i < r.length(); i++) {
        out.add(norm(r.get(i)));
      }
      return out;
    }
    if (v instanceof scala.collection.Map<?, ?> m) {
      Map<Object, Object> out = new LinkedHashMap<>();
      scala.jdk.javaapi.CollectionConverters.asJava(m).forEach((k, x) -> out.put(norm(k), norm(x)));
      return out;
    }
    if (v instanceof scala.collection.Seq<?> seq) {
      List<Object> out = new ArrayList<>();
      scala.jdk.javaapi.CollectionConverters.asJava(seq).forEach(x -> out.add(norm(x)));
      return out;
    }
    if (v instanceof byte[] b) {
      return "0x" + HexFormat.of().formatHex(b);
    }
    if (v instanceof BigDecimal d) {
      return d.toPlainString();
    }
    return v;
  }

  static List<Object> rows(org.apache.spark.sql.Dataset<Row> df) {
    return df.collectAsList().stream().map(QuiverReadTest::norm).toList();
  }

  @Test
  void readsEveryTypeCellForCellBySqlCatalogAndPath() {
    create("alltypes", ALL, allRows());
    assertThat(s().table("quiver.db.alltypes").schema().fieldNames())
        .containsExactlyElementsOf(ALL.getFields().stream().map(Field::getName).toList());

    List<Object> bySql = rows(s().sql("SELECT * FROM quiver.db.alltypes ORDER BY id"));
    List<List<Object>> expected = allExpected();
    assertThat(bySql).hasSize(3);
    for (int r = 0; r < 3; r++) {
      @SuppressWarnings("unchecked")
      List<Object> got = (List<Object>) bySql.get(r);
      for (int c = 0; c < ALL.getFields().size(); c++) {
        assertThat(got.get(c)).as("row %d column %s", r, ALL.getFields().get(c).getName())
            .isEqualTo(expected.get(r).get(c));
      }
    }
    List<Object> byPath = rows(s().read().format("quiver").load(uri("alltypes")).orderBy("id"));
    assertThat(byPath).isEqualTo(bySql);
    // Per-column reads go through other paths (a lone column, a column in a projection).
    for (Field f : ALL.getFields()) {
      List<Object> col = rows(s().sql("SELECT `" + f.getName() + "` FROM quiver.db.alltypes ORDER BY id"));
      int c = ALL.getFields().indexOf(f);
      assertThat(col).as(f.getName()).containsExactly(List.of(expected.get(0).get(c)),
          Arrays.asList(expected.get(1).get(c)), List.of(expected.get(2).get(c)));
    }
  }

  @Test
  void structNullsAndMemberNullsAreApart() {
    create("structs", ALL, allRows());
    assertThat(rows(s().sql("SELECT id FROM quiver.db.structs WHERE st IS NULL"))).containsExactly(List.of(1L));
    assertThat(rows(s().sql("SELECT id FROM quiver.db.structs WHERE st IS NOT NULL AND st.x IS NULL")))
        .containsExactly(List.of(2L));
    assertThat(rows(s().sql("SELECT id, st.x, st.u FROM quiver.db.structs ORDER BY id")))
        .containsExactly(List.of(0L, 1, (short) 200), Arrays.asList(1L, null, null), Arrays.asList(2L, null, null));
    assertThat(rows(s().sql("SELECT id, try_element_at(lst, 2), try_element_at(m, 'k1'), try_element_at(fsl, 1) FROM quiver.db.structs ORDER BY id")))
        .containsExactly(Arrays.asList(0L, null, 1, 10L), Arrays.asList(1L, null, null, null),
            Arrays.asList(2L, null, null, null));
  }

  // ---------------------------------------------------------------- projection

  static String plan(org.apache.spark.sql.Dataset<Row> df) {
    return df.queryExecution().executedPlan().toString();
  }

  static String optimized(org.apache.spark.sql.Dataset<Row> df) {
    return df.queryExecution().optimizedPlan().toString();
  }

  @Test
  void prunesTopLevelColumnsAndStructMembers() {
    create("pruned", ALL, allRows());
    org.apache.spark.sql.Dataset<Row> df = s().sql("SELECT s, st.u, st.x FROM quiver.db.pruned ORDER BY id");
    assertThat(plan(df)).contains("columns=[id, s, st.x, st.u]");
    assertThat(rows(df)).containsExactly(List.of("héllo", (short) 200, 1), Arrays.asList(null, null, null),
        Arrays.asList("", null, null));
    org.apache.spark.sql.Dataset<Row> lone = s().sql("SELECT st2.y FROM quiver.db.pruned WHERE id = 2");
    assertThat(plan(lone)).contains("columns=[st2.y]").contains("filter=[id IS NOT NULL AND id = 2]");
    assertThat(rows(lone)).containsExactly(List.of("only y"));
  }

  @Test
  void countReadsNoColumn() {
    create("counted", ALL, allRows(), allRows());
    org.apache.spark.sql.Dataset<Row> df = s().sql("SELECT count(*) FROM quiver.db.counted");
    assertThat(plan(df)).contains("columns=[]");
    assertThat(rows(df)).containsExactly(List.of(6L));
  }

  // ---------------------------------------------------------------- metadata columns, limit

  static final Schema PEOPLE = new Schema(List.of(field("id", I64), field("name", UTF8)));

  static List<List<Object>> people(long from, long to) {
    List<List<Object>> rows = new ArrayList<>();
    for (long i = from; i < to; i++) {
      rows.add(row(i, i % 5 == 0 ? null : "name" + i));
    }
    return rows;
  }

  @Test
  void metadataColumnsMatchQuiversRowAddresses() {
    create("meta", PEOPLE, people(0, 10), people(10, 15), people(15, 30));
    Map<Long, Long> expected = new java.util.TreeMap<>();
    try (Dataset ds = Dataset.open(uri("meta"), io.quiver.dataset.DatasetOptions.builder().allocator(allocator)
        .build()); ArrowReader reader = ds.newScan().columns("id").withRowAddress(true).open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          expected.put(((BigIntVector) root.getVector("id")).get(i), ((UInt8Vector) root.getVector("_rowaddr")).get(i));
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(expected).hasSize(30);
    List<Row> got = s().sql("SELECT id, _rowaddr, _fragment FROM quiver.db.meta").collectAsList();
    assertThat(got).hasSize(30);
    for (Row r : got) {
      long addr = expected.get(r.getLong(0));
      assertThat(r.getLong(1)).as("row address of id %d", r.getLong(0)).isEqualTo(addr);
      assertThat(r.getLong(2)).as("fragment of id %d", r.getLong(0)).isEqualTo(addr >>> 32);
    }
    assertThat(got.stream().map(r -> r.getLong(2)).distinct().count()).isEqualTo(3);
    // Only the metadata columns, and the fragment alone.
    assertThat(s().sql("SELECT _fragment FROM quiver.db.meta WHERE _fragment = " + (expected.get(12L) >>> 32))
        .count()).isEqualTo(5);
    assertThat(s().sql("SELECT _rowaddr FROM quiver.db.meta").collectAsList()).extracting(r -> r.getLong(0))
        .containsExactlyInAnyOrderElementsOf(expected.values());
  }

  @Test
  void limitIsPushedToEveryTask() {
    create("limited", PEOPLE, people(0, 10), people(10, 20), people(20, 30));
    org.apache.spark.sql.Dataset<Row> df = s().sql("SELECT id FROM quiver.db.limited LIMIT 4");
    assertThat(plan(df)).contains("limit=4");
    assertThat(df.collectAsList()).hasSize(4);
    org.apache.spark.sql.Dataset<Row> filtered = s().sql("SELECT id FROM quiver.db.limited WHERE id >= 25 LIMIT 3");
    assertThat(plan(filtered)).contains("limit=3").contains("filter=[id IS NOT NULL AND id >= 25]");
    assertThat(filtered.collectAsList()).extracting(r -> r.getLong(0)).allMatch(id -> id >= 25).hasSize(3);
  }

  @Test
  void reportsStatisticsFromTheTasks() {
    create("stats", PEOPLE, people(0, 10), people(10, 30));
    org.apache.spark.sql.Dataset<Row> df = s().table("quiver.db.stats");
    org.apache.spark.sql.catalyst.plans.logical.Statistics stats = df.queryExecution().optimizedPlan().stats();
    assertThat(stats.rowCount().get().longValue()).isEqualTo(30);
    assertThat(stats.sizeInBytes().longValue()).isPositive();
  }

  static final Schema TYPED = new Schema(List.of(field("id", I64), field("i", I32),
      field("f", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), field("s", UTF8),
      field("d", new ArrowType.Date(DateUnit.DAY)), field("st", ArrowType.Struct.INSTANCE, field("x", I32))));
  static final int D0 = 19723; // 2024-01-01 in days

  /** Row n: i = 2n (null when n % 4 == 3), f = n / 2 (NaN at 5), s longer than 16 code points, d = D0 + n. */
  static List<List<Object>> typed(long from, long to) {
    List<List<Object>> rows = new ArrayList<>();
    for (long n = from; n < to; n++) {
      rows.add(row(n, n % 4 == 3 ? null : (int) (2 * n), n == 5 ? Double.NaN : n * 0.5,
          "a-rather-long-string-" + n, D0 + (int) n, row((int) n)));
    }
    return rows;
  }

  /** The scan's statistics as Spark's optimizer asks for them, through the table's own ScanBuilder. */
  static Map<String, org.apache.spark.sql.connector.read.colstats.ColumnStatistics> columnStats(String table,
      org.apache.spark.sql.connector.expressions.filter.Predicate... filters) {
    org.apache.spark.sql.catalyst.plans.logical.LogicalPlan plan =
        s().table("quiver.db." + table).queryExecution().analyzed();
    org.apache.spark.sql.connector.catalog.Table t =
        ((org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation) plan.collectLeaves().head()).table();
    org.apache.spark.sql.connector.read.ScanBuilder builder = ((org.apache.spark.sql.connector.catalog.SupportsRead) t)
        .newScanBuilder(new org.apache.spark.sql.util.CaseInsensitiveStringMap(Map.of()));
    assertThat(((org.apache.spark.sql.connector.read.SupportsPushDownV2Filters) builder).pushPredicates(filters))
        .isEmpty();
    org.apache.spark.sql.connector.read.Statistics stats =
        ((org.apache.spark.sql.connector.read.SupportsReportStatistics) builder.build()).estimateStatistics();
    Map<String, org.apache.spark.sql.connector.read.colstats.ColumnStatistics> out = new LinkedHashMap<>();
    stats.columnStats().forEach((ref, c) -> out.put(String.join(".", ref.fieldNames()), c));
    return out;
  }

  static org.apache.spark.sql.connector.expressions.filter.Predicate idAtLeast(long v) {
    return new org.apache.spark.sql.connector.expressions.filter.Predicate(">=",
        new org.apache.spark.sql.connector.expressions.Expression[] {
            org.apache.spark.sql.connector.expressions.FieldReference.column("id"),
            new org.apache.spark.sql.connector.expressions.LiteralValue<>(v,
                org.apache.spark.sql.types.DataTypes.LongType)});
  }

  @Test
  void reportsColumnStatisticsMergedOverThePrunedTasks() {
    create("colstats", TYPED, typed(0, 10), typed(10, 30));
    // id >= 10 prunes fragment 0: the statistics are fragment 1's, in Spark's internal values.
    Map<String, org.apache.spark.sql.connector.read.colstats.ColumnStatistics> stats =
        columnStats("colstats", idAtLeast(10));
    assertThat(stats.keySet()).containsExactly("id", "i", "f", "s", "d"); // top-level atomic columns only
    assertThat(stats.get("id").min()).contains(10L);
    assertThat(stats.get("id").max()).contains(29L);
    assertThat(stats.get("id").nullCount()).hasValue(0);
    assertThat(stats.get("i").min()).contains(20);
    assertThat(stats.get("i").max()).contains(58);
    assertThat(stats.get("i").nullCount()).hasValue(5); // n = 11, 15, 19, 23, 27
    assertThat(stats.get("f").min()).contains(5.0);
    assertThat(stats.get("f").max()).contains(14.5);
    // Truncated to 16 code points: the prefix bounds below, the prefix with its last code point incremented above.
    assertThat(stats.get("s").min()).contains(org.apache.spark.unsafe.types.UTF8String.fromString("a-rather-long-st"));
    assertThat(stats.get("s").max()).contains(org.apache.spark.unsafe.types.UTF8String.fromString("a-rather-long-su"));
    assertThat(stats.get("d").min()).contains(D0 + 10);
    assertThat(stats.get("d").max()).contains(D0 + 29);
    assertThat(stats.get("d").distinctCount()).isEmpty();

    // Both fragments: sums and unions; fragment 0 may hold NaN (it does), so f has no maximum.
    Map<String, org.apache.spark.sql.connector.read.colstats.ColumnStatistics> all = columnStats("colstats");
    assertThat(all.get("id").min()).contains(0L);
    assertThat(all.get("i").nullCount()).hasValue(7);
    assertThat(all.get("f").min()).hasValueSatisfying(v -> assertThat((double) v).isEqualTo(0.0));
    assertThat(all.get("f").max()).isEmpty();
    assertThat(all.get("d").max()).contains(D0 + 29);
    assertThat(s().table("quiver.db.colstats").filter("id >= 10").count()).isEqualTo(20);
  }

  @Test
  void aColumnSomeTaskHasNoStatisticsForGetsNone() throws Exception {
    // compat/format-1.0 was written before statistics; a later append writes them.
    Path legacy = Path.of("../format-core/src/test/resources/compat/format-1.0/table").toAbsolutePath();
    Path table = spark.warehouse().resolve("db").resolve("legacy");
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(legacy)) {
      for (Path f : files.toList()) {
        Path to = table.resolve(legacy.relativize(f).toString());
        if (java.nio.file.Files.isDirectory(f)) {
          java.nio.file.Files.createDirectories(to);
        } else {
          java.nio.file.Files.copy(f, to);
        }
      }
    }
    try (Dataset ds = Dataset.open(uri("legacy"), io.quiver.dataset.DatasetOptions.builder().allocator(allocator)
        .build())) {
      Schema arrow = ds.schema().toArrow();
      try (VectorSchemaRoot b = ArrowRows.batch(allocator, arrow, List.of(row(100L, "late", row(1, "y"))))) {
        ds.append(List.of(b));
      }
    }
    assertThat(columnStats("legacy")).isEmpty();
    // Old fragments are never pruned by statistics they lack, so every filter keeps them and their unknowns.
    assertThat(columnStats("legacy", idAtLeast(100))).isEmpty();
    assertThat(s().table("quiver.db.legacy").filter("id >= 100").count()).isEqualTo(1);
  }

  // ---------------------------------------------------------------- errors

  @Test
  void aColumnOfAnUnreadableTypeIsNamedWithItsType() {
    Schema schema = new Schema(List.of(field("id", I64),
        field("half", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF))));
    try (Dataset ds = Dataset.create(uri("unreadable"), schema, List.of(), io.quiver.dataset.DatasetOptions
        .builder().allocator(allocator).build())) {
      assertThat(ds.version()).isPositive();
    }
    assertThatThrownBy(() -> s().sql("SELECT id FROM quiver.db.unreadable").collect())
        .isInstanceOf(io.quiver.exceptions.InvalidSchemaException.class)
        .hasMessageContaining("column 'half'").hasMessageContaining("Spark cannot read")
        .hasMessageContaining("half-precision");
  }

  @Test
  void pathReadOfAMissingTableSaysSo() {
    Path nowhere = spark.warehouse().resolve("nowhere");
    assertThatThrownBy(() -> s().read().format("quiver").load(nowhere.toUri().toString()).collect())
        .isInstanceOf(io.quiver.exceptions.QuiverException.class);
  }
}
