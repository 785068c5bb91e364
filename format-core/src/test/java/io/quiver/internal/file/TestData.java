package io.quiver.internal.file;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalDayVector;
import org.apache.arrow.vector.IntervalMonthDayNanoVector;
import org.apache.arrow.vector.IntervalYearVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Seeded random Arrow data for any schema a data file supports (every primitive type, lists, maps,
 * structs, nested arbitrarily), with about 20% nulls on nullable fields. Reusable by other modules'
 * tests through format-core's test-jar.
 */
public final class TestData {
  private TestData() {}

  /** A new root of {@code rows} random rows; the caller closes it. Same seed, same data. */
  public static VectorSchemaRoot randomBatch(Schema schema, int rows, long seed, BufferAllocator allocator) {
    SplittableRandom random = new SplittableRandom(seed);
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    try {
      for (FieldVector v : root.getFieldVectors()) {
        v.allocateNew();
        fill(v, rows, random);
      }
      root.setRowCount(rows);
      return root;
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
  }

  /** Fills {@code v} with exactly {@code n} values and sets its value count. */
  private static void fill(FieldVector v, int n, SplittableRandom r) {
    boolean nullable = v.getField().isNullable();
    if (v instanceof StructVector s) {
      for (int i = 0; i < n; i++) {
        if (isNull(nullable, r)) {
          s.setNull(i);
        } else {
          s.setIndexDefined(i);
        }
      }
      for (FieldVector c : s.getChildrenFromFields()) {
        fill(c, n, r);
      }
      s.setValueCount(n);
      return;
    }
    if (v instanceof ListVector l) { // includes MapVector
      int total = 0;
      for (int i = 0; i < n; i++) {
        if (isNull(nullable, r)) {
          l.setNull(i);
        } else {
          l.startNewValue(i);
          int size = r.nextInt(4);
          l.endValue(i, size);
          total += size;
        }
      }
      fill(l.getDataVector(), total, r);
      l.setValueCount(n);
      return;
    }
    if (v instanceof LargeListVector l) {
      int total = 0;
      for (int i = 0; i < n; i++) {
        if (isNull(nullable, r)) {
          l.setNull(i);
        } else {
          l.startNewValue(i);
          int size = r.nextInt(4);
          l.endValue(i, size);
          total += size;
        }
      }
      fill(l.getDataVector(), total, r);
      l.setValueCount(n);
      return;
    }
    if (v instanceof FixedSizeListVector l) {
      for (int i = 0; i < n; i++) {
        if (isNull(nullable, r)) {
          l.setNull(i);
        } else {
          l.setNotNull(i);
        }
      }
      fill(l.getDataVector(), n * l.getListSize(), r);
      l.setValueCount(n);
      return;
    }
    for (int i = 0; i < n; i++) {
      if (isNull(nullable, r)) {
        if (v instanceof BaseFixedWidthVector f) {
          while (f.getValueCapacity() <= i) {
            f.reAlloc();
          }
          f.setNull(i);
        }
        // variable-width: leaving the slot unset makes it null (fillHoles on the next set)
        continue;
      }
      setRandom(v, i, r);
    }
    v.setValueCount(n);
  }

  private static boolean isNull(boolean nullable, SplittableRandom r) {
    return nullable && r.nextInt(5) == 0;
  }

  private static void setRandom(FieldVector v, int i, SplittableRandom r) {
    if (v instanceof BitVector x) {
      x.setSafe(i, r.nextBoolean() ? 1 : 0);
    } else if (v instanceof TinyIntVector x) {
      x.setSafe(i, (byte) r.nextInt());
    } else if (v instanceof SmallIntVector x) {
      x.setSafe(i, (short) r.nextInt());
    } else if (v instanceof IntVector x) {
      x.setSafe(i, r.nextInt());
    } else if (v instanceof BigIntVector x) {
      x.setSafe(i, r.nextLong());
    } else if (v instanceof UInt1Vector x) {
      x.setSafe(i, r.nextInt(256));
    } else if (v instanceof UInt2Vector x) {
      x.setSafe(i, r.nextInt(65536));
    } else if (v instanceof UInt4Vector x) {
      x.setSafe(i, r.nextInt());
    } else if (v instanceof UInt8Vector x) {
      x.setSafe(i, r.nextLong());
    } else if (v instanceof Float2Vector x) {
      x.setSafe(i, (short) r.nextInt(0x7c00)); // finite, non-negative half floats
    } else if (v instanceof Float4Vector x) {
      x.setSafe(i, (float) (r.nextDouble() * 2000 - 1000));
    } else if (v instanceof Float8Vector x) {
      x.setSafe(i, r.nextDouble() * 2e6 - 1e6);
    } else if (v instanceof VarCharVector x) {
      x.setSafe(i, randomText(r));
    } else if (v instanceof LargeVarCharVector x) {
      x.setSafe(i, randomText(r));
    } else if (v instanceof VarBinaryVector x) {
      x.setSafe(i, randomBytes(r, r.nextInt(13)));
    } else if (v instanceof LargeVarBinaryVector x) {
      x.setSafe(i, randomBytes(r, r.nextInt(13)));
    } else if (v instanceof FixedSizeBinaryVector x) {
      x.setSafe(i, randomBytes(r, x.getByteWidth()));
    } else if (v instanceof DecimalVector x) {
      x.setSafe(i, randomDecimal(r, x.getPrecision(), x.getScale()));
    } else if (v instanceof Decimal256Vector x) {
      x.setSafe(i, randomDecimal(r, x.getPrecision(), x.getScale()));
    } else if (v instanceof DateDayVector x) {
      x.setSafe(i, r.nextInt(-100_000, 100_000));
    } else if (v instanceof DateMilliVector x) {
      x.setSafe(i, r.nextInt(-100_000, 100_000) * 86_400_000L);
    } else if (v instanceof TimeSecVector x) {
      x.setSafe(i, r.nextInt(86_400));
    } else if (v instanceof TimeMilliVector x) {
      x.setSafe(i, r.nextInt(86_400_000));
    } else if (v instanceof TimeMicroVector x) {
      x.setSafe(i, r.nextLong(86_400_000_000L));
    } else if (v instanceof TimeNanoVector x) {
      x.setSafe(i, r.nextLong(86_400_000_000_000L));
    } else if (v instanceof TimeStampVector x) {
      // +-100 years in any unit stays representable as java.time values
      long seconds = r.nextLong(-3_155_760_000L, 3_155_760_000L);
      TimeUnit unit = ((ArrowType.Timestamp) x.getField().getType()).getUnit();
      x.setSafe(i, seconds * unitsPerSecond(unit) + r.nextLong(unitsPerSecond(unit)));
    } else if (v instanceof DurationVector x) {
      x.setSafe(i, r.nextLong(-1_000_000_000_000L, 1_000_000_000_000L));
    } else if (v instanceof IntervalYearVector x) {
      x.setSafe(i, r.nextInt(-1200, 1200));
    } else if (v instanceof IntervalDayVector x) {
      x.setSafe(i, r.nextInt(-10_000, 10_000), r.nextInt(86_400_000));
    } else if (v instanceof IntervalMonthDayNanoVector x) {
      x.setSafe(i, r.nextInt(-1200, 1200), r.nextInt(-10_000, 10_000), r.nextLong(86_400_000_000_000L));
    } else {
      throw new IllegalArgumentException("TestData cannot fill " + v.getField());
    }
  }

  private static long unitsPerSecond(TimeUnit unit) {
    return switch (unit) {
      case SECOND -> 1;
      case MILLISECOND -> 1_000;
      case MICROSECOND -> 1_000_000;
      case NANOSECOND -> 1_000_000_000;
    };
  }

  private static final String ALPHABET = "abcdefghijXYZ0123 _-éßø中文😀";

  private static byte[] randomText(SplittableRandom r) {
    int len = r.nextInt(9);
    StringBuilder sb = new StringBuilder();
    int[] cps = ALPHABET.codePoints().toArray();
    for (int k = 0; k < len; k++) {
      sb.appendCodePoint(cps[r.nextInt(cps.length)]);
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] randomBytes(SplittableRandom r, int len) {
    byte[] b = new byte[len];
    for (int k = 0; k < len; k++) {
      b[k] = (byte) r.nextInt();
    }
    return b;
  }

  private static BigDecimal randomDecimal(SplittableRandom r, int precision, int scale) {
    int digits = 1 + r.nextInt(precision);
    StringBuilder sb = new StringBuilder(r.nextBoolean() ? "-" : "");
    for (int k = 0; k < digits; k++) {
      sb.append((char) ('0' + r.nextInt(10)));
    }
    return new BigDecimal(new BigInteger(sb.toString()), scale);
  }

  // ---- schemas ----

  public static Field field(String name, ArrowType type, boolean nullable, Field... children) {
    return new Field(name, new FieldType(nullable, type, null), List.of(children));
  }

  public static Field nullable(String name, ArrowType type, Field... children) {
    return field(name, type, true, children);
  }

  /** A map field with non-null keys of {@code keyType} and nullable values of {@code valueType}. */
  public static Field map(String name, ArrowType keyType, ArrowType valueType) {
    return nullable(
        name,
        new ArrowType.Map(false),
        field(
            "entries",
            ArrowType.Struct.INSTANCE,
            false,
            field("key", keyType, false),
            nullable("value", valueType)));
  }

  /** One top-level field of every supported primitive type, nullable. */
  public static List<Field> primitiveFields() {
    List<Field> f = new ArrayList<>();
    f.add(nullable("bool", ArrowType.Bool.INSTANCE));
    for (int w : new int[] {8, 16, 32, 64}) {
      f.add(nullable("i" + w, new ArrowType.Int(w, true)));
      f.add(nullable("u" + w, new ArrowType.Int(w, false)));
    }
    f.add(nullable("f16", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)));
    f.add(nullable("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)));
    f.add(nullable("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)));
    f.add(nullable("utf8", ArrowType.Utf8.INSTANCE));
    f.add(nullable("large_utf8", ArrowType.LargeUtf8.INSTANCE));
    f.add(nullable("binary", ArrowType.Binary.INSTANCE));
    f.add(nullable("large_binary", ArrowType.LargeBinary.INSTANCE));
    f.add(nullable("fixed_binary", new ArrowType.FixedSizeBinary(5)));
    f.add(nullable("dec128", new ArrowType.Decimal(38, 9, 128)));
    f.add(nullable("dec256", new ArrowType.Decimal(76, 20, 256)));
    f.add(nullable("date_day", new ArrowType.Date(DateUnit.DAY)));
    f.add(nullable("date_ms", new ArrowType.Date(DateUnit.MILLISECOND)));
    f.add(nullable("time_s", new ArrowType.Time(TimeUnit.SECOND, 32)));
    f.add(nullable("time_ms", new ArrowType.Time(TimeUnit.MILLISECOND, 32)));
    f.add(nullable("time_us", new ArrowType.Time(TimeUnit.MICROSECOND, 64)));
    f.add(nullable("time_ns", new ArrowType.Time(TimeUnit.NANOSECOND, 64)));
    for (TimeUnit u : TimeUnit.values()) {
      String n = u.name().toLowerCase();
      f.add(nullable("ts_" + n, new ArrowType.Timestamp(u, null)));
      f.add(nullable("ts_tz_" + n, new ArrowType.Timestamp(u, "Europe/Paris")));
      f.add(nullable("dur_" + n, new ArrowType.Duration(u)));
    }
    f.add(nullable("iv_ym", new ArrowType.Interval(IntervalUnit.YEAR_MONTH)));
    f.add(nullable("iv_dt", new ArrowType.Interval(IntervalUnit.DAY_TIME)));
    f.add(nullable("iv_mdn", new ArrowType.Interval(IntervalUnit.MONTH_DAY_NANO)));
    f.add(field("required_i64", new ArrowType.Int(64, true), false));
    f.add(field("required_utf8", ArrowType.Utf8.INSTANCE, false));
    return f;
  }

  /** Nested fields: lists, large list, fixed-size list, map, struct in struct, list of struct, struct with list. */
  public static List<Field> nestedFields() {
    ArrowType i32 = new ArrowType.Int(32, true);
    return List.of(
        nullable("list_i32", ArrowType.List.INSTANCE, nullable("item", i32)),
        nullable("large_list_utf8", ArrowType.LargeList.INSTANCE, nullable("item", ArrowType.Utf8.INSTANCE)),
        nullable("fsl_f64", new ArrowType.FixedSizeList(3),
            nullable("item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))),
        map("map_utf8_i64", ArrowType.Utf8.INSTANCE, new ArrowType.Int(64, true)),
        nullable("s", ArrowType.Struct.INSTANCE,
            nullable("x", i32),
            nullable("inner", ArrowType.Struct.INSTANCE,
                nullable("y", ArrowType.Utf8.INSTANCE),
                nullable("z", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"))),
            nullable("tags", ArrowType.List.INSTANCE, nullable("item", ArrowType.Utf8.INSTANCE))),
        nullable("list_of_struct", ArrowType.List.INSTANCE,
            nullable("item", ArrowType.Struct.INSTANCE,
                nullable("a", new ArrowType.Decimal(10, 2, 128)),
                nullable("b", ArrowType.Binary.INSTANCE))),
        nullable("list_of_list", ArrowType.List.INSTANCE,
            nullable("item", ArrowType.List.INSTANCE, nullable("item", ArrowType.Bool.INSTANCE))),
        field("required_struct", ArrowType.Struct.INSTANCE, false,
            field("k", new ArrowType.Int(64, true), false),
            nullable("m", map("m", ArrowType.Utf8.INSTANCE, ArrowType.Utf8.INSTANCE).getType(),
                map("m", ArrowType.Utf8.INSTANCE, ArrowType.Utf8.INSTANCE).getChildren().toArray(new Field[0]))));
  }

  /** Every supported type, primitives and nested, in one schema. */
  public static Schema allTypesSchema() {
    List<Field> all = new ArrayList<>(primitiveFields());
    all.addAll(nestedFields());
    return new Schema(all, Map.of("origin", "TestData"));
  }
}
