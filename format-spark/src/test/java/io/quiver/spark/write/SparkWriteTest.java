package io.quiver.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.apache.spark.sql.functions.col;

import io.quiver.dataset.Dataset;
import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.spark.QuiverTable;
import io.quiver.spark.SparkTests;
import io.quiver.spark.TableRef;
import io.quiver.spark.VersionRef;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Batch writes: every type, SQL and DataFrame, append / overwrite / truncate / CTAS, and the exactly-once
 * cases (a task failing after its files are written, duplicate attempts, a retried driver commit, aborts after
 * known and unknown commit outcomes, concurrent writers). {@code local[2,4]}: a failed task is retried.
 */
class SparkWriteTest {
  static SparkTests spark;
  static final AtomicInteger TABLES = new AtomicInteger();

  @BeforeAll
  static void start() {
    spark = SparkTests.start(b -> b.master("local[2,4]").config("spark.sql.session.timeZone", "UTC"));
  }

  @AfterAll
  static void stop() {
    spark.close();
  }

  @AfterEach
  void resetHooks() {
    WriteHooks.set(null);
  }

  private static String newTable(String ddlColumns) {
    String name = "t" + TABLES.incrementAndGet();
    spark.spark().sql("CREATE TABLE quiver.db." + name + " (" + ddlColumns + ")");
    return name;
  }

  private static String uri(String table) {
    return spark.warehouse().resolve("db").resolve(table).toUri().toString();
  }

  private static Path file(String table, String key) {
    return spark.warehouse().resolve("db").resolve(table).resolve(key);
  }

  private static long version(String table) {
    try (Dataset ds = Dataset.open(uri(table))) {
      return ds.version();
    }
  }

  private static List<Long> ids(String table) {
    return QuiverReadBack.column(uri(table), 0).stream().map(o -> (Long) o).toList();
  }

  private static List<Long> range(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }

  @SafeVarargs
  private static <T> List<T> list(T... values) {
    return Arrays.asList(values);
  }

  private static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  // ---------------------------------------------------------------- every type

  private static final String ALL_TYPES = "i64 BIGINT NOT NULL, b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, f FLOAT,"
      + " d DOUBLE, dec DECIMAL(10,2), bigdec DECIMAL(38,6), s STRING, bin BINARY, dt DATE, ts TIMESTAMP,"
      + " ntz TIMESTAMP_NTZ, st STRUCT<x: INT, y: STRING>, arr ARRAY<INT>, m MAP<STRING, INT>,"
      + " nested ARRAY<STRUCT<k: STRING, v: ARRAY<BIGINT>>>";

  /** Row kind 0: every value set; 1: every nullable column null; 2: nulls and empties inside nested values. */
  private static String row(long id, int kind) {
    if (kind == 0) {
      return "SELECT CAST(" + id + " AS BIGINT) AS i64, true AS b, CAST(-8 AS TINYINT) AS i8,"
          + " CAST(-16 AS SMALLINT) AS i16, -32 AS i32, CAST(1.5 AS FLOAT) AS f, CAST(2.25 AS DOUBLE) AS d,"
          + " CAST(12.34 AS DECIMAL(10,2)) AS dec, CAST('12345678901234567890123456789012.123456' AS DECIMAL(38,6))"
          + " AS bigdec, 'héllo' AS s, X'CAFE' AS bin, DATE'2024-02-29' AS dt,"
          + " TIMESTAMP'2024-01-02 03:04:05.123456' AS ts, TIMESTAMP_NTZ'2024-01-02 03:04:05.123456' AS ntz,"
          + " named_struct('x', 7, 'y', 'why') AS st, array(1, null, 3) AS arr, map('a', 1, 'b', null) AS m,"
          + " array(named_struct('k', 'k1', 'v', array(CAST(1 AS BIGINT), null)), null) AS nested";
    }
    if (kind == 1) {
      return "SELECT CAST(" + id + " AS BIGINT) AS i64, CAST(NULL AS BOOLEAN) AS b, CAST(NULL AS TINYINT) AS i8,"
          + " CAST(NULL AS SMALLINT) AS i16, CAST(NULL AS INT) AS i32, CAST(NULL AS FLOAT) AS f,"
          + " CAST(NULL AS DOUBLE) AS d, CAST(NULL AS DECIMAL(10,2)) AS dec, CAST(NULL AS DECIMAL(38,6)) AS bigdec,"
          + " CAST(NULL AS STRING) AS s, CAST(NULL AS BINARY) AS bin, CAST(NULL AS DATE) AS dt,"
          + " CAST(NULL AS TIMESTAMP) AS ts, CAST(NULL AS TIMESTAMP_NTZ) AS ntz,"
          + " CAST(NULL AS STRUCT<x: INT, y: STRING>) AS st, CAST(NULL AS ARRAY<INT>) AS arr,"
          + " CAST(NULL AS MAP<STRING, INT>) AS m, CAST(NULL AS ARRAY<STRUCT<k: STRING, v: ARRAY<BIGINT>>>) AS nested";
    }
    return "SELECT CAST(" + id + " AS BIGINT) AS i64, false AS b, CAST(127 AS TINYINT) AS i8,"
        + " CAST(32767 AS SMALLINT) AS i16, 2147483647 AS i32, CAST('-Infinity' AS FLOAT) AS f,"
        + " CAST('NaN' AS DOUBLE) AS d, CAST(-0.01 AS DECIMAL(10,2)) AS dec, CAST(-1 AS DECIMAL(38,6)) AS bigdec,"
        + " '' AS s, X'' AS bin, DATE'1969-12-31' AS dt, TIMESTAMP'1969-12-31 23:59:59.999999' AS ts,"
        + " TIMESTAMP_NTZ'1900-01-01 00:00:00' AS ntz, named_struct('x', CAST(NULL AS INT), 'y', 'q') AS st,"
        + " CAST(array() AS ARRAY<INT>) AS arr, CAST(map() AS MAP<STRING, INT>) AS m,"
        + " array(named_struct('k', CAST(NULL AS STRING), 'v', CAST(NULL AS ARRAY<BIGINT>))) AS nested";
  }

  private static long micros(String instant) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse(instant));
  }

  private static List<Object> expected(long id, int kind) {
    if (kind == 0) {
      return list(id, true, (byte) -8, (short) -16, -32, 1.5f, 2.25d, "12.34", "12345678901234567890123456789012.123456",
          "héllo", "0xcafe", (int) LocalDate.of(2024, 2, 29).toEpochDay(), micros("2024-01-02T03:04:05.123456Z"),
          LocalDateTime.parse("2024-01-02T03:04:05.123456"), map("x", 7, "y", "why"), list(1, null, 3),
          list(map("key", "a", "value", 1), map("key", "b")), list(map("k", "k1", "v", list(1L, null)), null));
    }
    if (kind == 1) {
      List<Object> row = new ArrayList<>(Collections.nCopies(18, null));
      row.set(0, id);
      return row;
    }
    return list(id, false, (byte) 127, (short) 32767, Integer.MAX_VALUE, Float.NEGATIVE_INFINITY, Double.NaN, "-0.01",
        "-1.000000", "", "0x", -1, micros("1969-12-31T23:59:59.999999Z"), LocalDateTime.parse("1900-01-01T00:00:00"),
        map("y", "q"), list(), list(), list(map()));
  }

  @Test
  void everyTypeRoundTripsThroughSqlAndDataFrameWrites() throws Exception {
    String t = newTable(ALL_TYPES);
    String table = "quiver.db." + t;
    long created = version(t);
    spark.spark().sql("INSERT INTO " + table + " " + row(1, 0) + " UNION ALL " + row(2, 1) + " UNION ALL " + row(3, 2));
    assertThat(version(t)).isEqualTo(created + 1);
    spark.spark().sql(row(4, 0) + " UNION ALL " + row(5, 1) + " UNION ALL " + row(6, 2)).writeTo(table).append();
    assertThat(version(t)).isEqualTo(created + 2);

    List<List<Object>> rows = QuiverReadBack.rows(uri(t), 0);
    List<List<Object>> expected = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      expected.add(expected(i + 1, i % 3));
    }
    assertThat(rows).containsExactlyElementsOf(expected);

    // An empty append publishes no version.
    spark.spark().sql(row(7, 0)).where("false").writeTo(table).append();
    assertThat(version(t)).isEqualTo(created + 2);

    // INSERT OVERWRITE replaces every row (the schema is kept).
    spark.spark().sql("INSERT OVERWRITE " + table + " " + row(8, 2));
    assertThat(QuiverReadBack.rows(uri(t), 0)).containsExactly(expected(8, 2));
    assertThat(version(t)).isEqualTo(created + 3);

    // DataFrame overwrite, then an empty one (a truncate) which still empties the table.
    spark.spark().sql(row(9, 0)).writeTo(table).overwrite(org.apache.spark.sql.functions.lit(true));
    assertThat(QuiverReadBack.rows(uri(t), 0)).containsExactly(expected(9, 0));
    spark.spark().sql("INSERT OVERWRITE " + table + " " + row(10, 0) + " WHERE false");
    assertThat(QuiverReadBack.rows(uri(t), 0)).isEmpty();
    assertThat(version(t)).isEqualTo(created + 5);
    try (Dataset ds = Dataset.open(uri(t))) {
      assertThat(ds.schema().fields()).extracting(f -> f.name()).startsWith("i64", "b", "i8");
    }
  }

  @Test
  void pathWritesCreateTheTableThenAppendAndOverwrite() throws Exception {
    String path = spark.newPath("p1");
    spark.spark().range(0, 5).write().format("quiver").mode("append").save(path);
    spark.spark().range(5, 8).write().format("quiver").mode("append").save(path);
    assertThat(QuiverReadBack.column(path, 0)).containsExactlyElementsOf(range(0, 8).stream().map(x -> (Object) x)
        .toList());
    spark.spark().range(100, 102).write().format("quiver").mode("overwrite").save(path);
    assertThat(QuiverReadBack.column(path, 0)).containsExactly(100L, 101L);
  }

  @Test
  void ctasWritesTheQueryAndAFailingCtasLeavesNoTable() throws Exception {
    spark.spark().sql("CREATE TABLE quiver.db.ctas AS SELECT id, id * 2 AS doubled FROM range(4)");
    assertThat(QuiverReadBack.rows(uri("ctas"), 0)).containsExactly(list(0L, 0L), list(1L, 2L), list(2L, 4L),
        list(3L, 6L));

    assertThatThrownBy(() -> spark.spark().sql(
        "CREATE TABLE quiver.db.ctas_bad AS SELECT id, CASE WHEN id < 2 THEN id ELSE CAST(raise_error('boom at ' || id) AS BIGINT) END AS x"
        + " FROM range(4)"))
        .hasStackTraceContaining("boom at");
    // Spark's CreateTableAsSelectExec drops the table it created when the write fails (no staging catalog).
    assertThat(spark.spark().catalog().tableExists("quiver.db.ctas_bad")).isFalse();
    assertThatThrownBy(() -> Dataset.open(uri("ctas_bad"))).isInstanceOf(io.quiver.exceptions.QuiverException.class);
  }

  @Test
  void unsignedAndNonMicrosecondColumnsAreConverted() throws Exception {
    org.apache.arrow.vector.types.pojo.Schema schema = new org.apache.arrow.vector.types.pojo.Schema(List.of(
        field("id", new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true)),
        field("u8", new org.apache.arrow.vector.types.pojo.ArrowType.Int(8, false)),
        field("u16", new org.apache.arrow.vector.types.pojo.ArrowType.Int(16, false)),
        field("u32", new org.apache.arrow.vector.types.pojo.ArrowType.Int(32, false)),
        field("u64", new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, false)),
        field("ls", org.apache.arrow.vector.types.pojo.ArrowType.LargeUtf8.INSTANCE),
        field("lb", org.apache.arrow.vector.types.pojo.ArrowType.LargeBinary.INSTANCE),
        field("fb", new org.apache.arrow.vector.types.pojo.ArrowType.FixedSizeBinary(2)),
        field("dm", new org.apache.arrow.vector.types.pojo.ArrowType.Date(
            org.apache.arrow.vector.types.DateUnit.MILLISECOND)),
        field("tsec", new org.apache.arrow.vector.types.pojo.ArrowType.Timestamp(
            org.apache.arrow.vector.types.TimeUnit.SECOND, null)),
        field("tmilli", new org.apache.arrow.vector.types.pojo.ArrowType.Timestamp(
            org.apache.arrow.vector.types.TimeUnit.MILLISECOND, null)),
        field("tnano", new org.apache.arrow.vector.types.pojo.ArrowType.Timestamp(
            org.apache.arrow.vector.types.TimeUnit.NANOSECOND, "UTC")),
        new org.apache.arrow.vector.types.pojo.Field("ll",
            org.apache.arrow.vector.types.pojo.FieldType.nullable(
                org.apache.arrow.vector.types.pojo.ArrowType.LargeList.INSTANCE),
            List.of(field("element", new org.apache.arrow.vector.types.pojo.ArrowType.Int(32, true)))),
        new org.apache.arrow.vector.types.pojo.Field("fl",
            org.apache.arrow.vector.types.pojo.FieldType.nullable(
                new org.apache.arrow.vector.types.pojo.ArrowType.FixedSizeList(2)),
            List.of(field("element", new org.apache.arrow.vector.types.pojo.ArrowType.Int(32, true))))));
    try (Dataset ds = Dataset.create(uri("odd"), schema, List.of(), io.quiver.dataset.DatasetOptions.defaults())) {
      assertThat(ds.version()).isPositive();
    }
    spark.spark().sql("SELECT CAST(1 AS BIGINT) AS id, CAST(200 AS SMALLINT) AS u8, 65535 AS u16,"
        + " CAST(4294967295 AS BIGINT) AS u32, CAST('18446744073709551615' AS DECIMAL(20,0)) AS u64, 'large' AS ls,"
        + " X'0102' AS lb, X'0A0B' AS fb, DATE'2024-03-01' AS dm, TIMESTAMP_NTZ'2024-01-02 03:04:05.999999' AS tsec,"
        + " TIMESTAMP_NTZ'1969-12-31 23:59:59.999999' AS tmilli, TIMESTAMP'2024-01-02 03:04:05.123456' AS tnano,"
        + " array(1, 2, 3) AS ll, array(4, null) AS fl"
        + " UNION ALL SELECT 2, null, null, null, null, null, null, null, null, null, null, null, null, null")
        .coalesce(1).writeTo("quiver.db.odd").append();
    try (Dataset ds = Dataset.open(uri("odd"));
        org.apache.arrow.vector.ipc.ArrowReader reader = ds.newScan().open()) {
      assertThat(reader.loadNextBatch()).isTrue();
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      assertThat(root.getRowCount()).isEqualTo(2);
      int r = ((BigIntVector) root.getVector("id")).get(0) == 1 ? 0 : 1;
      assertThat(((org.apache.arrow.vector.UInt1Vector) root.getVector("u8")).getValueAsLong(r)).isEqualTo(200);
      assertThat(((org.apache.arrow.vector.UInt2Vector) root.getVector("u16")).getValueAsLong(r)).isEqualTo(65535);
      assertThat(((org.apache.arrow.vector.UInt4Vector) root.getVector("u32")).getValueAsLong(r))
          .isEqualTo(4294967295L);
      assertThat(((org.apache.arrow.vector.UInt8Vector) root.getVector("u64")).getObjectNoOverflow(r))
          .isEqualTo(new java.math.BigInteger("18446744073709551615"));
      assertThat(QuiverReadBack.norm(root.getVector("ls").getObject(r))).isEqualTo("large");
      assertThat(QuiverReadBack.norm(root.getVector("lb").getObject(r))).isEqualTo("0x0102");
      assertThat(QuiverReadBack.norm(root.getVector("fb").getObject(r))).isEqualTo("0x0a0b");
      assertThat(((org.apache.arrow.vector.DateMilliVector) root.getVector("dm")).get(r))
          .isEqualTo(LocalDate.of(2024, 3, 1).toEpochDay() * 86_400_000L);
      assertThat(((org.apache.arrow.vector.TimeStampVector) root.getVector("tsec")).get(r))
          .isEqualTo(micros("2024-01-02T03:04:05Z") / 1_000_000L);
      // Floored, as a cast to milliseconds does: -1 µs is -1 ms.
      assertThat(((org.apache.arrow.vector.TimeStampVector) root.getVector("tmilli")).get(r)).isEqualTo(-1L);
      assertThat(((org.apache.arrow.vector.TimeStampVector) root.getVector("tnano")).get(r))
          .isEqualTo(micros("2024-01-02T03:04:05.123456Z") * 1000L);
      assertThat(QuiverReadBack.norm(root.getVector("ll").getObject(r))).isEqualTo(list(1, 2, 3));
      assertThat(QuiverReadBack.norm(root.getVector("fl").getObject(r))).isEqualTo(list(4, null));
      for (org.apache.arrow.vector.FieldVector v : root.getFieldVectors()) {
        if (!v.getName().equals("id")) {
          assertThat(v.isNull(1 - r)).as(v.getName()).isTrue();
        }
      }
    }
    assertThatThrownBy(() -> spark.spark().sql("SELECT CAST(3 AS BIGINT) AS id, CAST(-1 AS SMALLINT) AS u8, 1 AS u16,"
        + " CAST(1 AS BIGINT) AS u32, CAST(1 AS DECIMAL(20,0)) AS u64, 'x' AS ls, X'01' AS lb, X'0A0B' AS fb,"
        + " DATE'2024-03-01' AS dm, TIMESTAMP_NTZ'2024-01-02 03:04:05' AS tsec, TIMESTAMP_NTZ'2024-01-02 03:04:05'"
        + " AS tmilli, TIMESTAMP'2024-01-02 03:04:05' AS tnano, array(1) AS ll, array(1, 2) AS fl")
        .writeTo("quiver.db.odd").append())
        .hasStackTraceContaining("column 'u8' is unsigned and holds 0 to 255; a row to write holds -1");
  }

  private static org.apache.arrow.vector.types.pojo.Field field(String name,
      org.apache.arrow.vector.types.pojo.ArrowType type) {
    return new org.apache.arrow.vector.types.pojo.Field(name,
        org.apache.arrow.vector.types.pojo.FieldType.nullable(type), null);
  }

  @Test
  void deleteFromWhereRemovesTheMatchingRowsInOneCommit() throws Exception {
    String t = newTable("id BIGINT, name STRING");
    spark.spark().sql("INSERT INTO quiver.db." + t + " SELECT id, CAST(id AS STRING) FROM range(10)");
    long before = version(t);
    spark.spark().sql("DELETE FROM quiver.db." + t + " WHERE id >= 7 OR name = '2'");
    assertThat(ids(t)).containsExactly(0L, 1L, 3L, 4L, 5L, 6L);
    assertThat(version(t)).isEqualTo(before + 1);
    // Spark reads back what it wrote (read path), too.
    assertThat(spark.spark().table("quiver.db." + t).count()).isEqualTo(6);
  }

  // ---------------------------------------------------------------- refusals

  private static LogicalWriteInfo info(StructType schema, String queryId) {
    return new LogicalWriteInfo() {
      @Override
      public CaseInsensitiveStringMap options() {
        return new CaseInsensitiveStringMap(Map.of(WriteSizes.ROWS_PER_BATCH, "4"));
      }

      @Override
      public String queryId() {
        return queryId;
      }

      @Override
      public StructType schema() {
        return schema;
      }
    };
  }

  private static QuiverTable load(String t) {
    return QuiverTable.load("quiver.db." + t, new TableRef(uri(t), Map.of()), new VersionRef.Latest());
  }

  @Test
  void aSchemaMismatchIsATypedErrorNamingExpectedAndFoundColumns() throws Exception {
    String t = newTable("id BIGINT, name STRING");
    StructType wrong = new StructType().add("id", DataTypes.IntegerType).add("label", DataTypes.StringType);
    assertThatThrownBy(() -> new QuiverWriteBuilder(load(t), info(wrong, "q")).build())
        .isInstanceOf(SchemaMismatchException.class)
        .hasMessageContaining("Expected columns: [id BIGINT, name STRING]")
        .hasMessageContaining("found: [id INT, label STRING]");
    // Spark checks catalog writes itself, too.
    assertThatThrownBy(() -> spark.spark().sql("SELECT 1 AS nope").writeTo("quiver.db." + t).append())
        .hasMessageContaining("nope");
  }

  @Test
  void anOverwriteByAFilterReplacesTheMatchingRowsInOneCommit() throws Exception {
    String t = newTable("id BIGINT");
    spark.spark().range(3).writeTo("quiver.db." + t).append();
    long before = version(t);
    spark.spark().range(10, 12).writeTo("quiver.db." + t).overwrite(col("id").gt(1));
    assertThat(ids(t)).containsExactly(0L, 1L, 10L, 11L);
    assertThat(version(t)).isEqualTo(before + 1);
    try (Dataset ds = Dataset.open(uri(t))) {
      assertThat(ds.versionInfo(before + 1).operation()).isEqualTo("row-delta");
    }
    // INSERT OVERWRITE … WHERE-style filters over several columns are one commit too.
    spark.spark().sql("INSERT INTO quiver.db." + t + " REPLACE WHERE id >= 10 SELECT 20L AS id");
    assertThat(ids(t)).containsExactly(0L, 1L, 20L);
  }

  @Test
  void anOverwriteByAFilterQuiverCannotEvaluateIsRefusedWithTheReason() throws Exception {
    String t = newTable("id BIGINT");
    spark.spark().range(3).writeTo("quiver.db." + t).append();
    assertThatThrownBy(() -> spark.spark().range(1).writeTo("quiver.db." + t).overwrite(col("id").plus(1).gt(2)))
        .hasStackTraceContaining("is not one Quiver evaluates");
    assertThat(ids(t)).containsExactly(0L, 1L, 2L);
  }


  @Test
  void aTimeTravelledTableIsReadOnly() throws Exception {
    String t = newTable("id BIGINT");
    spark.spark().range(3).writeTo("quiver.db." + t).append();
    QuiverTable old = QuiverTable.load("x", new TableRef(uri(t), Map.of()), new VersionRef.Number(version(t) - 1));
    assertThatThrownBy(() -> new QuiverWriteBuilder(old, info(old.schema(), "q")).build())
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("read-only");
  }

  // ---------------------------------------------------------------- exactly once

  @Test
  void aTaskFailingAfterWritingItsFilesIsRetriedAndEveryRowLandsOnce() throws Exception {
    String t = newTable("id BIGINT");
    List<String> failedFiles = Collections.synchronizedList(new ArrayList<>());
    WriteHooks.set(new WriteHooks() {
      @Override
      public void afterFilesWritten(int partitionId, int attemptNumber, long epochId, List<String> files) {
        if (partitionId == 0 && attemptNumber == 0) {
          failedFiles.addAll(files);
          throw new IllegalStateException("injected failure after writing " + files);
        }
      }
    });
    spark.spark().range(0, 1000, 1, 2).writeTo("quiver.db." + t).append();
    assertThat(failedFiles).isNotEmpty();
    assertThat(failedFiles).allSatisfy(f -> assertThat(file(t, f)).doesNotExist()); // the aborted attempt's files
    assertThat(ids(t)).containsExactlyElementsOf(range(0, 1000));
  }

  private static List<WriterCommitMessage> writeDirect(DataWriterFactory factory, int partition, long taskId,
      long from, long to) throws Exception {
    try (DataWriter<InternalRow> w = factory.createWriter(partition, taskId)) {
      for (long i = from; i < to; i++) {
        w.write(new GenericInternalRow(new Object[] {i, UTF8String.fromString("r" + i)}));
      }
      return List.of(w.commit());
    }
  }

  @Test
  void duplicateAttemptsOfAPartitionAndARetriedDriverCommitPublishOnce() throws Exception {
    String t = newTable("id BIGINT, name STRING");
    QuiverTable table = load(t);
    String queryId = UUID.randomUUID().toString();
    BatchWrite write = new QuiverWriteBuilder(table, info(table.schema(), queryId)).build().toBatch();
    assertThat(write.useCommitCoordinator()).isFalse();
    DataWriterFactory factory = write.createBatchWriterFactory(() -> 2);
    List<WriterCommitMessage> messages = new ArrayList<>();
    messages.addAll(writeDirect(factory, 0, 1, 0, 10));   // partition 0, first attempt
    messages.addAll(writeDirect(factory, 1, 2, 10, 25));  // partition 1
    messages.addAll(writeDirect(factory, 0, 3, 0, 10));   // partition 0 again (a speculative duplicate)
    WriterCommitMessage[] array = messages.toArray(new WriterCommitMessage[0]);
    long before = version(t);

    write.commit(array);
    assertThat(version(t)).isEqualTo(before + 1);
    assertThat(ids(t)).containsExactlyElementsOf(range(0, 25));

    // The driver retries its commit: the key is found, nothing is published.
    write.commit(array);
    // A new driver (same query id, as after a restart) commits the same messages: still once.
    BatchWrite again = new QuiverWriteBuilder(load(t), info(table.schema(), queryId)).build().toBatch();
    again.commit(array);
    assertThat(version(t)).isEqualTo(before + 1);
    assertThat(ids(t)).containsExactlyElementsOf(range(0, 25));
    // ... and an abort after the commit happened deletes nothing.
    again.abort(array);
    assertThat(ids(t)).containsExactlyElementsOf(range(0, 25));
  }

  /** Records every file every task attempt wrote, and runs {@code failing}'s hooks (shared with SparkRowLevelTest). */
  static List<String> recordFiles(WriteHooks failing) {
    List<String> written = Collections.synchronizedList(new ArrayList<>());
    WriteHooks.set(new WriteHooks() {
      @Override
      public void afterFilesWritten(int partitionId, int attemptNumber, long epochId, List<String> files) {
        written.addAll(files);
        failing.afterFilesWritten(partitionId, attemptNumber, epochId, files);
      }

      @Override
      public void beforeTableCommit(String key, long readVersion) {
        failing.beforeTableCommit(key, readVersion);
      }

      @Override
      public void afterTableCommit(String key, long version) {
        failing.afterTableCommit(key, version);
      }
    });
    return written;
  }

  @Test
  void anAbortAfterACommitOfUnknownOutcomeDeletesNothing() throws Exception {
    String t = newTable("id BIGINT");
    long before = version(t);
    List<String> written = recordFiles(new WriteHooks() {
      @Override
      public void beforeTableCommit(String key, long readVersion) {
        throw new CommitStateUnknownException(uri(t), "_versions/x", "injected: the store timed out on the put",
            new java.io.IOException("timeout"));
      }
    });
    assertThatThrownBy(() -> spark.spark().range(0, 10, 1, 2).writeTo("quiver.db." + t).append())
        .isInstanceOf(CommitStateUnknownException.class).hasMessageContaining("injected");
    assertThat(written).isNotEmpty().allSatisfy(f -> assertThat(file(t, f)).exists());
    assertThat(version(t)).isEqualTo(before);
  }

  @Test
  void anAbortAfterACertainFailureDeletesTheFiles() throws Exception {
    String t = newTable("id BIGINT");
    long before = version(t);
    List<String> written = recordFiles(new WriteHooks() {
      @Override
      public void beforeTableCommit(String key, long readVersion) {
        throw new IllegalStateException("injected: driver failure before the commit");
      }
    });
    assertThatThrownBy(() -> spark.spark().range(0, 10, 1, 2).writeTo("quiver.db." + t).append())
        .hasMessageContaining("injected");
    assertThat(written).isNotEmpty().allSatisfy(f -> assertThat(file(t, f)).doesNotExist());
    assertThat(version(t)).isEqualTo(before);
  }

  @Test
  void aFailureAfterTheTableCommitKeepsTheCommittedFiles() throws Exception {
    String t = newTable("id BIGINT");
    List<String> written = recordFiles(new WriteHooks() {
      @Override
      public void afterTableCommit(String key, long version) {
        throw new IllegalStateException("injected: driver failure after the commit");
      }
    });
    assertThatThrownBy(() -> spark.spark().range(0, 10, 1, 2).writeTo("quiver.db." + t).append())
        .hasMessageContaining("injected");
    assertThat(written).isNotEmpty().allSatisfy(f -> assertThat(file(t, f)).exists());
    assertThat(ids(t)).containsExactlyElementsOf(range(0, 10));
  }

  private static void javaAppend(String t, long from, long to) {
    try (Dataset ds = Dataset.open(uri(t));
        RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(ds.schema().toArrow(), allocator)) {
      root.allocateNew();
      BigIntVector id = (BigIntVector) root.getVector("id");
      VarCharVector src = (VarCharVector) root.getVector("src");
      int n = 0;
      for (long i = from; i < to; i++, n++) {
        id.setSafe(n, i);
        src.setSafe(n, "java".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      root.setRowCount(n);
      ds.append(List.of(root));
    }
  }

  @Test
  void aConcurrentJavaAppendDuringASparkAppendKeepsBoth() throws Exception {
    String t = newTable("id BIGINT, src STRING");
    WriteHooks.set(new WriteHooks() {
      @Override
      public void beforeTableCommit(String key, long readVersion) {
        javaAppend(t, 1000, 1010);
      }
    });
    spark.spark().sql("SELECT id, 'spark' AS src FROM range(0, 100, 1, 2)").writeTo("quiver.db." + t).append();
    List<List<Object>> rows = QuiverReadBack.rows(uri(t), 0);
    assertThat(rows).extracting(r -> r.get(0)).containsExactlyElementsOf(
        java.util.stream.Stream.concat(range(0, 100).stream(), range(1000, 1010).stream()).map(x -> (Object) x)
            .toList());
    assertThat(rows).extracting(r -> r.get(1)).containsOnly("spark", "java");
  }

  @Test
  void anOverwriteRacingAConcurrentCommitFailsWithTheConflictAndDeletesItsFiles() throws Exception {
    String t = newTable("id BIGINT, src STRING");
    javaAppend(t, 0, 5);
    List<String> written = recordFiles(new WriteHooks() {
      @Override
      public void beforeTableCommit(String key, long readVersion) {
        javaAppend(t, 1000, 1001);
      }
    });
    assertThatThrownBy(() -> spark.spark().sql("SELECT id, 'spark' AS src FROM range(0, 10, 1, 2)")
        .writeTo("quiver.db." + t).overwrite(org.apache.spark.sql.functions.lit(true)))
        .isInstanceOf(io.quiver.exceptions.CommitConflictException.class)
        .satisfies(e -> assertThat(e.getMessage()).isNotBlank());
    assertThat(written).isNotEmpty().allSatisfy(f -> assertThat(file(t, f)).doesNotExist());
    assertThat(ids(t)).containsExactly(0L, 1L, 2L, 3L, 4L, 1000L);
  }

  static boolean exists(Path p) {
    return Files.exists(p);
  }

  static Path path(String s) {
    return Paths.get(s);
  }
}
