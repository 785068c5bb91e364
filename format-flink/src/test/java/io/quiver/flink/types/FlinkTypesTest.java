package io.quiver.flink.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.InvalidSchemaException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlinkTypesTest {
  private RootAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close(); // throws if any Arrow buffer leaked
  }

  // ---------------------------------------------------------------- a schema of every type

  private static Field f(String name, ArrowType type, boolean nullable, Field... children) {
    return new Field(name, new FieldType(nullable, type, null), children.length == 0 ? null : List.of(children));
  }

  private static Field map(String name, Field key, Field value) {
    return f(name, new ArrowType.Map(false), true,
        f("entries", ArrowType.Struct.INSTANCE, false, key, value));
  }

  static final Schema EVERY_TYPE = new Schema(List.of(
      f("b", ArrowType.Bool.INSTANCE, true),
      f("i8", new ArrowType.Int(8, true), true),
      f("i16", new ArrowType.Int(16, true), true),
      f("i32", new ArrowType.Int(32, true), false),
      f("i64", new ArrowType.Int(64, true), true),
      f("u8", new ArrowType.Int(8, false), true),
      f("u16", new ArrowType.Int(16, false), true),
      f("u32", new ArrowType.Int(32, false), true),
      f("u64", new ArrowType.Int(64, false), true),
      f("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), true),
      f("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), true),
      f("dec", new ArrowType.Decimal(10, 2, 128), true),
      f("bigdec", new ArrowType.Decimal(38, 10, 128), true),
      f("dec256", new ArrowType.Decimal(30, 3, 256), true),
      f("s", ArrowType.Utf8.INSTANCE, true),
      f("ls", ArrowType.LargeUtf8.INSTANCE, true),
      f("bin", ArrowType.Binary.INSTANCE, true),
      f("lbin", ArrowType.LargeBinary.INSTANCE, true),
      f("fbin", new ArrowType.FixedSizeBinary(3), true),
      f("d", new ArrowType.Date(DateUnit.DAY), true),
      f("dms", new ArrowType.Date(DateUnit.MILLISECOND), true),
      f("tsec", new ArrowType.Time(TimeUnit.SECOND, 32), true),
      f("tms", new ArrowType.Time(TimeUnit.MILLISECOND, 32), true),
      f("ts_s", new ArrowType.Timestamp(TimeUnit.SECOND, null), true),
      f("ts_ms", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null), true),
      f("ts_us", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null), true),
      f("ts_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null), true),
      f("ltz_us", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"), true),
      f("ltz_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, "Europe/Paris"), true),
      f("st", ArrowType.Struct.INSTANCE, true,
          f("x", new ArrowType.Int(64, true), true),
          f("inner", ArrowType.Struct.INSTANCE, true, f("y", ArrowType.Utf8.INSTANCE, true))),
      f("ints", ArrowType.List.INSTANCE, true, f("element", new ArrowType.Int(32, true), true)),
      f("rows", ArrowType.LargeList.INSTANCE, true,
          f("element", ArrowType.Struct.INSTANCE, true, f("k", ArrowType.Utf8.INSTANCE, true))),
      f("nested", ArrowType.List.INSTANCE, true,
          f("element", ArrowType.List.INSTANCE, true, f("element", ArrowType.Utf8.INSTANCE, true))),
      f("pair", new ArrowType.FixedSizeList(2), true, f("element", new ArrowType.Int(16, true), true)),
      map("m", f("key", ArrowType.Utf8.INSTANCE, false), f("value", new ArrowType.Int(64, true), true))));

  private static StringData str(String s) {
    return StringData.fromString(s);
  }

  private static GenericMapData mapOf(Object... kv) {
    Map<Object, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return new GenericMapData(m);
  }

  /** A row with a value in every column: {@code i} varies the values, negative and edge values included. */
  static GenericRowData full(int i) {
    return GenericRowData.of(
        i % 2 == 0,
        (byte) (-128 + i),
        (short) (-32768 + i),
        i,
        Long.MIN_VALUE + i,
        (short) (255 - i),
        65535 - i,
        4294967295L - i,
        DecimalData.fromBigDecimal(new BigDecimal("18446744073709551615").subtract(BigDecimal.valueOf(i)), 20, 0),
        1.5f * i,
        -2.25 * i,
        DecimalData.fromBigDecimal(new BigDecimal("-12345678.9" + i), 10, 2),
        DecimalData.fromBigDecimal(new BigDecimal("1234567890123456789012345678.012345678" + i), 38, 10),
        DecimalData.fromBigDecimal(new BigDecimal("-123456789012345678901234567.12" + i), 30, 3),
        str("héllo " + i),
        str("large ✓ " + i),
        new byte[] {1, 2, (byte) i},
        new byte[0],
        new byte[] {(byte) 0xFF, 0, (byte) i},
        -719162 + i, // 0001-01-01 and on
        19000 + i,
        (3600 + i) * 1000,
        86_399_999 - i,
        TimestampData.fromEpochMillis(-62_135_596_800_000L + i * 1000L), // seconds: 0001-01-01
        TimestampData.fromEpochMillis(1_700_000_000_123L + i),
        TimestampData.fromEpochMillis(-1_000_001L, 456_000 + i * 1000), // before 1970, with micros
        TimestampData.fromLocalDateTime(LocalDateTime.of(2262, 4, 11, 23, 47, 16, 854_775_000 + i)),
        TimestampData.fromEpochMillis(1_700_000_000_000L, 999_000),
        TimestampData.fromEpochMillis(-1L, 999_999),
        GenericRowData.of(7L + i, GenericRowData.of(str("deep"))),
        new GenericArrayData(new Object[] {1, null, i}),
        new GenericArrayData(new Object[] {GenericRowData.of(str("a")), null, GenericRowData.of((Object) null)}),
        new GenericArrayData(new Object[] {
            new GenericArrayData(new Object[] {str("x"), null}), null, new GenericArrayData(new Object[0])}),
        new GenericArrayData(new Object[] {(short) i, null}),
        mapOf(str("one"), 1L, str("none"), null));
  }

  /** A row with a null in every nullable column, and empty containers. */
  static GenericRowData nulls(int i) {
    GenericRowData row = new GenericRowData(EVERY_TYPE.getFields().size());
    row.setField(3, i); // i32 is not nullable
    return row;
  }

  /** The rows a round trip must keep. */
  static List<RowData> rows() {
    List<RowData> rows = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      rows.add(full(i));
      rows.add(nulls(i));
    }
    GenericRowData empties = full(9);
    empties.setField(29, GenericRowData.of(null, null)); // a struct of nulls is not a null struct
    empties.setField(30, new GenericArrayData(new Object[0]));
    empties.setField(34, mapOf());
    rows.add(empties);
    return rows;
  }

  // ---------------------------------------------------------------- the mapping

  @Test
  void everyArrowTypeMapsToItsFlinkTypeWithNullability() {
    RowType t = FlinkTypes.toRowType(EVERY_TYPE);
    assertThat(t.isNullable()).isFalse();
    assertThat(t.getFieldNames()).isEqualTo(EVERY_TYPE.getFields().stream().map(Field::getName).toList());
    assertThat(t.asSummaryString()).isEqualTo("ROW<`b` BOOLEAN, `i8` TINYINT, `i16` SMALLINT, `i32` INT NOT NULL,"
        + " `i64` BIGINT, `u8` SMALLINT, `u16` INT, `u32` BIGINT, `u64` DECIMAL(20, 0), `f32` FLOAT, `f64` DOUBLE,"
        + " `dec` DECIMAL(10, 2), `bigdec` DECIMAL(38, 10), `dec256` DECIMAL(30, 3), `s` STRING, `ls` STRING,"
        + " `bin` BYTES, `lbin` BYTES, `fbin` BINARY(3), `d` DATE, `dms` DATE, `tsec` TIME(0), `tms` TIME(3),"
        + " `ts_s` TIMESTAMP(0), `ts_ms` TIMESTAMP(3), `ts_us` TIMESTAMP(6), `ts_ns` TIMESTAMP(9),"
        + " `ltz_us` TIMESTAMP_LTZ(6), `ltz_ns` TIMESTAMP_LTZ(9), `st` ROW<`x` BIGINT, `inner` ROW<`y` STRING>>,"
        + " `ints` ARRAY<INT>, `rows` ARRAY<ROW<`k` STRING>>, `nested` ARRAY<ARRAY<STRING>>, `pair` ARRAY<SMALLINT>,"
        + " `m` MAP<STRING NOT NULL, BIGINT>> NOT NULL");
  }

  @Test
  void flinkTypesMapToArrowAndBack() {
    RowType flink = RowType.of(false,
        new LogicalType[] {
            new IntType(false), new BigIntType(), new DecimalType(12, 4), new VarCharType(10), new BinaryType(4),
            new TimeType(3), new TimestampType(false, 6), new TimestampType(9), new LocalZonedTimestampType(3),
            new LocalZonedTimestampType(0), new ArrayType(new VarCharType(false, VarCharType.MAX_LENGTH)),
            new MapType(new VarCharType(false, VarCharType.MAX_LENGTH), new ArrayType(new IntType())),
            RowType.of(new LogicalType[] {new IntType(), new RowType(List.of(new RowType.RowField("z",
                new BigIntType(false))))}, new String[] {"a", "r"})},
        new String[] {"id", "n", "price", "name", "code", "t", "ts", "tsn", "ltz", "ltz0", "tags", "m", "s"});
    Schema arrow = FlinkTypes.toArrowSchema(flink);
    assertThat(arrow.findField("ts").getType()).isEqualTo(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null));
    assertThat(arrow.findField("ts").isNullable()).isFalse();
    assertThat(arrow.findField("ltz").getType()).isEqualTo(new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC"));
    assertThat(arrow.findField("ltz0").getType()).isEqualTo(new ArrowType.Timestamp(TimeUnit.SECOND, "UTC"));
    assertThat(arrow.findField("code").getType()).isEqualTo(new ArrowType.FixedSizeBinary(4));
    // Back: every type is kept but VARCHAR(10), which Quiver stores as utf8 (STRING).
    RowType back = FlinkTypes.toRowType(arrow);
    assertThat(back.getTypeAt(3)).isEqualTo(new VarCharType(VarCharType.MAX_LENGTH));
    for (int i = 0; i < flink.getFieldCount(); i++) {
      if (i != 3) {
        assertThat(back.getTypeAt(i)).as(flink.getFieldNames().get(i)).isEqualTo(flink.getTypeAt(i));
      }
    }
    // A Quiver table accepts the schema.
    io.quiver.schema.Schema.fromArrow(arrow, new io.quiver.schema.FieldIdAllocator(0));
  }

  @Test
  void unsupportedTypesAreTypedErrorsNamingTheColumnTypeAndWhatIsSupported() {
    Schema half = new Schema(List.of(f("s", ArrowType.Struct.INSTANCE, true,
        f("h", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF), true))));
    assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> FlinkTypes.toRowType(half))
        .withMessageContaining("column 's.h'").withMessageContaining("FloatingPoint(HALF)")
        .withMessageContaining("supported: bool");
    Schema micros = new Schema(List.of(f("t", new ArrowType.Time(TimeUnit.MICROSECOND, 64), true)));
    assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> FlinkTypes.toRowType(micros))
        .withMessageContaining("column 't'").withMessageContaining("Time(MICROSECOND, 64)")
        .withMessageContaining("milliseconds");
    Schema duration = new Schema(List.of(f("d", new ArrowType.Duration(TimeUnit.SECOND), true)));
    assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> FlinkTypes.toRowType(duration))
        .withMessageContaining("column 'd'").withMessageContaining("project the column away");
    RowType multiset = RowType.of(new LogicalType[] {new MultisetType(new IntType())}, new String[] {"bag"});
    assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> FlinkTypes.toArrowSchema(multiset))
        .withMessageContaining("column 'bag'").withMessageContaining("MULTISET<INT>")
        .withMessageContaining("supported: BOOLEAN");
  }

  // ---------------------------------------------------------------- converters

  @Test
  void everyTypeRoundTripsThroughArrowIncludingNullsNestingDecimalsAndTimestamps() {
    List<RowData> rows = rows();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(EVERY_TYPE, allocator)) {
      RowDataArrowWriter writer = new RowDataArrowWriter(root);
      assertThat(writer.rowType()).isEqualTo(FlinkTypes.toRowType(EVERY_TYPE));
      for (RowData r : rows) {
        writer.write(r);
      }
      assertThat(writer.rowCount()).isEqualTo(rows.size());
      assertThat(writer.bufferedBytes()).isGreaterThan(rows.size() * 100L);
      writer.finish();
      assertThat(root.getRowCount()).isEqualTo(rows.size());
      ArrowRowDataReader reader = ArrowRowDataReader.of(root);
      assertThat(reader.readFrom(0)).isEqualTo(rows);
      assertThat(reader.readFrom(rows.size() - 1)).isEqualTo(List.of(rows.get(rows.size() - 1)));

      // The next batch, after a reset, holds only its own rows.
      writer.reset();
      assertThat(writer.rowCount()).isZero();
      assertThat(writer.bufferedBytes()).isZero();
      writer.write(full(3));
      writer.finish();
      assertThat(ArrowRowDataReader.of(root).readFrom(0)).isEqualTo(List.of(full(3)));
    }
  }

  @Test
  void rowsWrittenThroughQuiverReadBackEqual(@TempDir Path dir) throws Exception {
    List<RowData> rows = rows();
    String uri = dir.resolve("every-type").toString();
    DatasetOptions options = DatasetOptions.builder().allocator(allocator).build();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(EVERY_TYPE, allocator)) {
      RowDataArrowWriter writer = new RowDataArrowWriter(root);
      rows.forEach(writer::write);
      try (Dataset ds = Dataset.create(uri, EVERY_TYPE, List.of(writer.finish()), options)) {
        assertThat(FlinkTypes.toRowType(ds.schema())).isEqualTo(writer.rowType());
        List<RowData> read = new ArrayList<>();
        try (ArrowReader scan = ds.newScan().open()) {
          while (scan.loadNextBatch()) {
            read.addAll(ArrowRowDataReader.of(scan.getVectorSchemaRoot()).readFrom(0));
          }
        }
        assertThat(read).isEqualTo(rows);
      }
    }
  }

  @Test
  void valuesAColumnCannotHoldAreTypedErrorsNamingTheColumn() {
    Schema schema = new Schema(List.of(
        f("id", new ArrowType.Int(64, true), false),
        f("u", new ArrowType.Int(8, false), true),
        f("fb", new ArrowType.FixedSizeBinary(2), true),
        f("ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null), true),
        f("s", ArrowType.Struct.INSTANCE, true, f("need", ArrowType.Utf8.INSTANCE, false))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      RowDataArrowWriter writer = new RowDataArrowWriter(root);
      writer.write(GenericRowData.of(1L, (short) 255, new byte[2], TimestampData.fromEpochMillis(0),
          GenericRowData.of(str("ok"))));
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> writer.write(GenericRowData.of(null, null, null, null, null)))
          .withMessageContaining("column 'id' is not nullable");
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> writer.write(GenericRowData.of(2L, (short) 256, null, null, null)))
          .withMessageContaining("column 'u'").withMessageContaining("0 to 255");
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> writer.write(GenericRowData.of(2L, null, new byte[3], null, null)))
          .withMessageContaining("column 'fb'").withMessageContaining("exactly 2 bytes");
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> writer.write(GenericRowData.of(2L, null, null,
              TimestampData.fromLocalDateTime(LocalDateTime.of(3000, 1, 1, 0, 0)), null)))
          .withMessageContaining("column 'ns'").withMessageContaining("1677 to 2262");
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> writer.write(GenericRowData.of(2L, null, null, null, GenericRowData.of((Object) null))))
          .withMessageContaining("column 's.need' is not nullable");
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> writer.write(GenericRowData.of(2L)))
          .withMessageContaining("a row of 1 fields").withMessageContaining("[id, u, fb, ns, s]");
      assertThat(writer.rowCount()).isEqualTo(1);
    }
  }

  // ---------------------------------------------------------------- serializer

  @Test
  void theSerializerRoundTripsAndDeepCopiesEveryType() throws Exception {
    RowType type = FlinkTypes.toRowType(EVERY_TYPE);
    TypeSerializer<RowData> serializer = FlinkTypes.typeInfo(type).createSerializer(new SerializerConfigImpl());
    List<RowData> rows = rows();
    GenericRowData retract = full(1);
    retract.setRowKind(RowKind.UPDATE_BEFORE);
    rows.add(retract);
    DataOutputSerializer out = new DataOutputSerializer(256);
    for (RowData r : rows) {
      serializer.serialize(r, out);
    }
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    List<RowData> back = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      back.add(serializer.deserialize(in));
    }
    assertThat(back).isEqualTo(rows);
    assertThat(back.get(back.size() - 1).getRowKind()).isEqualTo(RowKind.UPDATE_BEFORE);

    GenericRowData original = full(2);
    RowData copy = serializer.copy(original);
    assertThat(copy).isEqualTo(original).isNotSameAs(original);
    ((byte[]) original.getField(16))[0] = 42; // the copy's bytes are its own
    assertThat(copy.getBinary(16)[0]).isEqualTo((byte) 1);

    // Its snapshot restores an equal serializer, compatible as is; another row type is incompatible.
    DataOutputSerializer snap = new DataOutputSerializer(64);
    TypeSerializerSnapshot.writeVersionedSnapshot(snap, serializer.snapshotConfiguration());
    TypeSerializerSnapshot<RowData> restored = TypeSerializerSnapshot.readVersionedSnapshot(
        new DataInputDeserializer(snap.getCopyOfBuffer()), getClass().getClassLoader());
    assertThat(restored.restoreSerializer()).isEqualTo(serializer);
    assertThat(serializer.snapshotConfiguration().resolveSchemaCompatibility(restored).isCompatibleAsIs()).isTrue();
    RowType other = RowType.of(new LogicalType[] {new IntType()}, new String[] {"x"});
    assertThat(new RowDataSerializer(other).snapshotConfiguration().resolveSchemaCompatibility(restored)
        .isIncompatible()).isTrue();
  }

  @Test
  void stringsAreUtf8() {
    Schema schema = new Schema(List.of(f("s", ArrowType.Utf8.INSTANCE, true)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      RowDataArrowWriter writer = new RowDataArrowWriter(root);
      writer.write(GenericRowData.of(str("日本")));
      writer.finish();
      assertThat(new String(((org.apache.arrow.vector.VarCharVector) root.getVector(0)).get(0),
          StandardCharsets.UTF_8)).isEqualTo("日本");
    }
  }
}
