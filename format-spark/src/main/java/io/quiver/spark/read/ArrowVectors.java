package io.quiver.spark.read;

import io.quiver.exceptions.InvalidSchemaException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Arrow vectors as Spark column vectors, without copying: Spark's {@link ArrowColumnVector} where it reads
 * the vector (and every child) itself, else a small adapter reading the Arrow buffers with the conversion
 * {@link io.quiver.spark.types.SparkTypes} names (unsigned integers widened, {@code uint64} as {@code
 * decimal(20, 0)}, timestamps of any unit as microseconds, millisecond dates as days, fixed-size binary and
 * lists, large lists, and structs, lists and maps holding such children).
 */
final class ArrowVectors {
  private ArrowVectors() {}

  /** The Spark column vector over {@code vector}, read as {@code type}. */
  static ColumnVector wrap(ValueVector vector, DataType type) {
    if (native_(vector)) {
      return new ArrowColumnVector(vector);
    }
    return new Adapter(vector, type);
  }

  /** Whether Spark's ArrowColumnVector reads this vector and all its children. */
  private static boolean native_(ValueVector v) {
    if (v instanceof BitVector || v instanceof TinyIntVector || v instanceof SmallIntVector || v instanceof IntVector
        || v instanceof BigIntVector || v instanceof Float4Vector || v instanceof Float8Vector
        || v instanceof DecimalVector || v instanceof VarCharVector || v instanceof LargeVarCharVector
        || v instanceof VarBinaryVector || v instanceof LargeVarBinaryVector || v instanceof DateDayVector
        || v instanceof TimeStampMicroTZVector || v instanceof TimeStampMicroVector) {
      return true;
    }
    if (v instanceof MapVector m) {
      if (!(m.getDataVector() instanceof StructVector entries) || entries.size() != 2) {
        return false;
      }
      // Spark finds the entries' children by these names.
      return entries.getChild(MapVector.KEY_NAME) != null && entries.getChild(MapVector.VALUE_NAME) != null
          && native_(entries.getChild(MapVector.KEY_NAME)) && native_(entries.getChild(MapVector.VALUE_NAME));
    }
    if (v instanceof ListVector l) {
      return native_(l.getDataVector());
    }
    if (v instanceof StructVector s) {
      for (ValueVector child : s.getChildrenFromFields()) {
        if (!native_(child)) {
          return false;
        }
      }
      return true;
    }
    return false;
  }

  /** A column vector of one value on every row: {@code _fragment}. */
  static final class ConstantLong extends ColumnVector {
    private final long value;

    ConstantLong(long value) {
      super(DataTypes.LongType);
      this.value = value;
    }

    @Override
    public long getLong(int rowId) {
      return value;
    }

    @Override
    public void close() {}

    @Override
    public boolean hasNull() {
      return false;
    }

    @Override
    public int numNulls() {
      return 0;
    }

    @Override
    public boolean isNullAt(int rowId) {
      return false;
    }

    @Override
    public boolean getBoolean(int rowId) {
      throw unsupported("boolean");
    }

    @Override
    public byte getByte(int rowId) {
      throw unsupported("byte");
    }

    @Override
    public short getShort(int rowId) {
      throw unsupported("short");
    }

    @Override
    public int getInt(int rowId) {
      throw unsupported("int");
    }

    @Override
    public float getFloat(int rowId) {
      throw unsupported("float");
    }

    @Override
    public double getDouble(int rowId) {
      throw unsupported("double");
    }

    @Override
    public ColumnarArray getArray(int rowId) {
      throw unsupported("array");
    }

    @Override
    public ColumnarMap getMap(int rowId) {
      throw unsupported("map");
    }

    @Override
    public Decimal getDecimal(int rowId, int precision, int scale) {
      throw unsupported("decimal");
    }

    @Override
    public UTF8String getUTF8String(int rowId) {
      throw unsupported("string");
    }

    @Override
    public byte[] getBinary(int rowId) {
      throw unsupported("binary");
    }

    @Override
    public ColumnVector getChild(int ordinal) {
      throw unsupported("struct");
    }

    private UnsupportedOperationException unsupported(String as) {
      return new UnsupportedOperationException("a bigint column cannot be read as " + as);
    }
  }

  /** Reads the Arrow vectors ArrowColumnVector does not, per SparkTypes' mapping. */
  static final class Adapter extends ColumnVector {
    private final ValueVector v;
    private final ColumnVector[] children;
    private final long timestampScale; // micros per stored unit; 0 for nanoseconds (divided), -1 not a timestamp

    Adapter(ValueVector v, DataType type) {
      super(type);
      this.v = v;
      long scale = -1;
      if (v instanceof TimeStampVector) {
        TimeUnit unit = ((ArrowType.Timestamp) v.getField().getType()).getUnit();
        scale = switch (unit) {
          case SECOND -> 1_000_000L;
          case MILLISECOND -> 1_000L;
          case MICROSECOND -> 1L;
          case NANOSECOND -> 0L;
        };
      }
      this.timestampScale = scale;
      if (v instanceof StructVector s) {
        StructType st = (StructType) type;
        List<ValueVector> kids = List.copyOf(s.getChildrenFromFields());
        children = new ColumnVector[st.fields().length];
        for (int i = 0; i < children.length; i++) {
          children[i] = wrap(kids.get(i), st.fields()[i].dataType());
        }
      } else if (v instanceof MapVector m) {
        MapType mt = (MapType) type;
        StructVector entries = (StructVector) m.getDataVector();
        List<ValueVector> kv = List.copyOf(entries.getChildrenFromFields());
        children = new ColumnVector[] {wrap(kv.get(0), mt.keyType()), wrap(kv.get(1), mt.valueType())};
      } else if (v instanceof ListVector l) {
        children = new ColumnVector[] {wrap(l.getDataVector(), ((ArrayType) type).elementType())};
      } else if (v instanceof LargeListVector l) {
        children = new ColumnVector[] {wrap(l.getDataVector(), ((ArrayType) type).elementType())};
      } else if (v instanceof FixedSizeListVector l) {
        children = new ColumnVector[] {wrap(l.getDataVector(), ((ArrayType) type).elementType())};
      } else if (v instanceof BitVector || v instanceof TinyIntVector || v instanceof SmallIntVector
          || v instanceof IntVector || v instanceof BigIntVector || v instanceof Float4Vector
          || v instanceof Float8Vector || v instanceof DecimalVector || v instanceof Decimal256Vector
          || v instanceof VarCharVector || v instanceof LargeVarCharVector || v instanceof VarBinaryVector
          || v instanceof LargeVarBinaryVector || v instanceof FixedSizeBinaryVector || v instanceof DateDayVector
          || v instanceof DateMilliVector || v instanceof TimeStampVector || v instanceof UInt1Vector
          || v instanceof UInt2Vector || v instanceof UInt4Vector || v instanceof UInt8Vector) {
        children = new ColumnVector[0];
      } else {
        throw new InvalidSchemaException("column '" + v.getName() + "' is stored as Arrow " + v.getField().getType()
            + " (" + v.getClass().getSimpleName() + "), which the Quiver Spark reader cannot read as " + type.sql()
            + "; project the column away to read the others");
      }
    }

    @Override
    public void close() {
      // The partition reader owns the Arrow vectors.
    }

    @Override
    public boolean hasNull() {
      return v.getNullCount() > 0;
    }

    @Override
    public int numNulls() {
      return v.getNullCount();
    }

    @Override
    public boolean isNullAt(int rowId) {
      return v.isNull(rowId);
    }

    @Override
    public boolean getBoolean(int rowId) {
      return ((BitVector) v).get(rowId) != 0;
    }

    @Override
    public byte getByte(int rowId) {
      return ((TinyIntVector) v).get(rowId);
    }

    @Override
    public short getShort(int rowId) {
      if (v instanceof UInt1Vector u) {
        return (short) (u.get(rowId) & 0xFF);
      }
      return ((SmallIntVector) v).get(rowId);
    }

    @Override
    public int getInt(int rowId) {
      if (v instanceof UInt2Vector u) {
        return u.get(rowId);
      }
      if (v instanceof DateDayVector d) {
        return d.get(rowId);
      }
      if (v instanceof DateMilliVector d) {
        return (int) Math.floorDiv(d.get(rowId), 86_400_000L);
      }
      return ((IntVector) v).get(rowId);
    }

    @Override
    public long getLong(int rowId) {
      if (timestampScale >= 0) {
        long stored = ((TimeStampVector) v).get(rowId);
        return timestampScale == 0 ? Math.floorDiv(stored, 1000L) : Math.multiplyExact(stored, timestampScale);
      }
      if (v instanceof UInt4Vector u) {
        return u.get(rowId) & 0xFFFF_FFFFL;
      }
      if (v instanceof UInt8Vector u) {
        return u.get(rowId); // _rowaddr: fragment id << 32 | offset, below 2^63
      }
      return ((BigIntVector) v).get(rowId);
    }

    @Override
    public float getFloat(int rowId) {
      return ((Float4Vector) v).get(rowId);
    }

    @Override
    public double getDouble(int rowId) {
      return ((Float8Vector) v).get(rowId);
    }

    @Override
    public Decimal getDecimal(int rowId, int precision, int scale) {
      if (isNullAt(rowId)) {
        return null;
      }
      BigDecimal value;
      if (v instanceof UInt8Vector u) {
        long bits = u.get(rowId);
        value = new BigDecimal(bits >= 0 ? BigInteger.valueOf(bits)
            : BigInteger.valueOf(bits).add(BigInteger.ONE.shiftLeft(64)));
      } else if (v instanceof DecimalVector d) {
        value = d.getObject(rowId);
      } else {
        value = ((Decimal256Vector) v).getObject(rowId);
      }
      return Decimal.apply(value, precision, scale);
    }

    @Override
    public UTF8String getUTF8String(int rowId) {
      if (isNullAt(rowId)) {
        return null;
      }
      if (v instanceof VarCharVector s) {
        int start = s.getOffsetBuffer().getInt((long) rowId * 4);
        int end = s.getOffsetBuffer().getInt((long) (rowId + 1) * 4);
        return UTF8String.fromAddress(null, s.getDataBuffer().memoryAddress() + start, end - start);
      }
      LargeVarCharVector s = (LargeVarCharVector) v;
      long start = s.getOffsetBuffer().getLong((long) rowId * 8);
      long end = s.getOffsetBuffer().getLong((long) (rowId + 1) * 8);
      return UTF8String.fromAddress(null, s.getDataBuffer().memoryAddress() + start, Math.toIntExact(end - start));
    }

    @Override
    public byte[] getBinary(int rowId) {
      if (isNullAt(rowId)) {
        return null;
      }
      if (v instanceof VarBinaryVector b) {
        return b.get(rowId);
      }
      if (v instanceof LargeVarBinaryVector b) {
        return b.get(rowId);
      }
      return ((FixedSizeBinaryVector) v).get(rowId);
    }

    @Override
    public ColumnarArray getArray(int rowId) {
      if (isNullAt(rowId)) {
        return null;
      }
      if (v instanceof ListVector l) {
        int start = l.getElementStartIndex(rowId);
        return new ColumnarArray(children[0], start, l.getElementEndIndex(rowId) - start);
      }
      if (v instanceof LargeListVector l) {
        long start = l.getElementStartIndex(rowId);
        return new ColumnarArray(children[0], Math.toIntExact(start),
            Math.toIntExact(l.getElementEndIndex(rowId) - start));
      }
      FixedSizeListVector l = (FixedSizeListVector) v;
      int size = l.getListSize();
      return new ColumnarArray(children[0], rowId * size, size);
    }

    @Override
    public ColumnarMap getMap(int rowId) {
      if (isNullAt(rowId)) {
        return null;
      }
      MapVector m = (MapVector) v;
      int start = m.getElementStartIndex(rowId);
      return new ColumnarMap(children[0], children[1], start, m.getElementEndIndex(rowId) - start);
    }

    @Override
    public ColumnVector getChild(int ordinal) {
      return children[ordinal];
    }
  }
}
