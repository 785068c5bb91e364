package io.quiver.flink.types;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.InvalidSchemaException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * Appends Flink {@link RowData} rows to the vectors of a caller-owned {@link VectorSchemaRoot}, converting
 * each value to the column's Arrow type by {@link FlinkTypes}' mapping (read back by {@link
 * ArrowRowDataReader} as the same values). The rows are read by position, with the Flink types the root's
 * Arrow schema maps to: {@link #rowType()}.
 *
 * <p>Use: {@link #write} rows, {@link #finish()} (sets the value counts; the root is then a complete batch),
 * hand the root on, {@link #reset()} for the next batch. {@link #bufferedBytes()} estimates the Arrow bytes the
 * rows written since the last reset hold, for rolling batches or files by size. The root and its allocator
 * stay the caller's: this writer allocates through them and closes nothing. Not thread-safe.
 *
 * <p>A null in a non-nullable column, a value outside an unsigned column's range, a binary of the wrong
 * length for a fixed-size binary column, an array of the wrong size for a fixed-size list, and a timestamp
 * outside the range of a nanosecond column throw {@link InvalidArgumentException} naming the column; the
 * rows written before stay written.
 */
public final class RowDataArrowWriter {
  private final VectorSchemaRoot root;
  private final RowType rowType;
  private final Writer[] writers;
  private final RowValues top = new RowValues();
  private int rows;
  private long bytes;

  /**
   * A writer into {@code root}, allocating its vectors anew.
   *
   * @throws InvalidSchemaException if a column has an Arrow type Flink has no type for
   */
  public RowDataArrowWriter(VectorSchemaRoot root) {
    this.root = root;
    this.rowType = FlinkTypes.toRowType(root.getSchema());
    List<FieldVector> vectors = root.getFieldVectors();
    this.writers = new Writer[vectors.size()];
    for (int i = 0; i < writers.length; i++) {
      writers[i] = writer(vectors.get(i), rowType.getTypeAt(i), vectors.get(i).getName());
    }
    root.allocateNew();
  }

  /** The Flink type of the rows this writer takes (by position). */
  public RowType rowType() {
    return rowType;
  }

  /** Appends one row (its {@code RowKind} is not stored). */
  public void write(RowData row) {
    if (row.getArity() != writers.length) {
      throw new InvalidArgumentException("a row of " + row.getArity() + " fields cannot be written to a batch of "
          + writers.length + " columns " + rowType.getFieldNames() + "; give rows of the table's columns, in order");
    }
    top.row = row;
    for (int i = 0; i < writers.length; i++) {
      writers[i].write(rows, top, i);
    }
    rows++;
  }

  /** Rows written since the last {@link #reset()}. */
  public int rowCount() {
    return rows;
  }

  /** Estimated Arrow bytes of the rows written since the last {@link #reset()} (values, offsets, validity). */
  public long bufferedBytes() {
    return bytes;
  }

  /** Sets the root's row count and every vector's value count: the root is then a complete batch. */
  public VectorSchemaRoot finish() {
    root.setRowCount(rows);
    return root;
  }

  /** Empties the vectors (keeping their buffers) for the next batch. */
  public void reset() {
    for (FieldVector v : root.getFieldVectors()) {
      v.reset();
    }
    root.setRowCount(0);
    rows = 0;
    bytes = 0;
  }

  // ---------------------------------------------------------------- the values of a row or an array

  /** RowData's and ArrayData's getters, so one writer reads a field of a row and an element of an array. */
  private interface Values {
    boolean isNullAt(int pos);

    boolean getBoolean(int pos);

    byte getByte(int pos);

    short getShort(int pos);

    int getInt(int pos);

    long getLong(int pos);

    float getFloat(int pos);

    double getDouble(int pos);

    StringData getString(int pos);

    DecimalData getDecimal(int pos, int precision, int scale);

    TimestampData getTimestamp(int pos, int precision);

    byte[] getBinary(int pos);

    ArrayData getArray(int pos);

    MapData getMap(int pos);

    RowData getRow(int pos, int arity);
  }

  private static final class RowValues implements Values {
    RowData row;

    @Override public boolean isNullAt(int pos) { return row.isNullAt(pos); }
    @Override public boolean getBoolean(int pos) { return row.getBoolean(pos); }
    @Override public byte getByte(int pos) { return row.getByte(pos); }
    @Override public short getShort(int pos) { return row.getShort(pos); }
    @Override public int getInt(int pos) { return row.getInt(pos); }
    @Override public long getLong(int pos) { return row.getLong(pos); }
    @Override public float getFloat(int pos) { return row.getFloat(pos); }
    @Override public double getDouble(int pos) { return row.getDouble(pos); }
    @Override public StringData getString(int pos) { return row.getString(pos); }
    @Override public DecimalData getDecimal(int pos, int p, int s) { return row.getDecimal(pos, p, s); }
    @Override public TimestampData getTimestamp(int pos, int p) { return row.getTimestamp(pos, p); }
    @Override public byte[] getBinary(int pos) { return row.getBinary(pos); }
    @Override public ArrayData getArray(int pos) { return row.getArray(pos); }
    @Override public MapData getMap(int pos) { return row.getMap(pos); }
    @Override public RowData getRow(int pos, int arity) { return row.getRow(pos, arity); }
  }

  private static final class ArrayValues implements Values {
    ArrayData array;

    @Override public boolean isNullAt(int pos) { return array.isNullAt(pos); }
    @Override public boolean getBoolean(int pos) { return array.getBoolean(pos); }
    @Override public byte getByte(int pos) { return array.getByte(pos); }
    @Override public short getShort(int pos) { return array.getShort(pos); }
    @Override public int getInt(int pos) { return array.getInt(pos); }
    @Override public long getLong(int pos) { return array.getLong(pos); }
    @Override public float getFloat(int pos) { return array.getFloat(pos); }
    @Override public double getDouble(int pos) { return array.getDouble(pos); }
    @Override public StringData getString(int pos) { return array.getString(pos); }
    @Override public DecimalData getDecimal(int pos, int p, int s) { return array.getDecimal(pos, p, s); }
    @Override public TimestampData getTimestamp(int pos, int p) { return array.getTimestamp(pos, p); }
    @Override public byte[] getBinary(int pos) { return array.getBinary(pos); }
    @Override public ArrayData getArray(int pos) { return array.getArray(pos); }
    @Override public MapData getMap(int pos) { return array.getMap(pos); }
    @Override public RowData getRow(int pos, int arity) { return array.getRow(pos, arity); }
  }

  // ---------------------------------------------------------------- writers, one per vector

  /** Writes one value of a column: a null, or the value converted to the vector's type. */
  private abstract class Writer {
    final ValueVector vector;
    final String path;
    final boolean nullable;
    final int fixedBytes;

    Writer(ValueVector vector, String path) {
      this.vector = vector;
      this.path = path;
      this.nullable = vector.getField().isNullable();
      this.fixedBytes = vector instanceof BaseFixedWidthVector f ? f.getTypeWidth() : 0;
    }

    final void write(int index, Values src, int pos) {
      if (src.isNullAt(pos)) {
        if (!nullable) {
          throw new InvalidArgumentException("column '" + path + "' is not nullable but a row holds a null there;"
              + " filter the nulls out or make the column nullable");
        }
        setNull(index);
      } else {
        setValue(index, src, pos);
      }
      bytes += fixedBytes + 1;
    }

    void setNull(int index) {
      ((FieldVector) vector).setNull(index);
    }

    abstract void setValue(int index, Values src, int pos);

    InvalidArgumentException outOfRange(Object value, String range) {
      return new InvalidArgumentException("column '" + path + "' (Arrow " + vector.getField().getType()
          + ") cannot hold " + value + ": it holds " + range + "; filter or clamp such values before the sink");
    }
  }

  /** A writer for {@code setValue} alone. */
  private interface Setter {
    void set(int index, Values src, int pos);
  }

  private Writer simple(ValueVector v, String path, Setter setter) {
    return new Writer(v, path) {
      @Override
      void setValue(int index, Values src, int pos) {
        setter.set(index, src, pos);
      }
    };
  }

  private Writer writer(ValueVector v, LogicalType type, String path) {
    if (v instanceof BitVector b) {
      return simple(v, path, (i, s, p) -> b.setSafe(i, s.getBoolean(p) ? 1 : 0));
    } else if (v instanceof TinyIntVector t) {
      return simple(v, path, (i, s, p) -> t.setSafe(i, s.getByte(p)));
    } else if (v instanceof SmallIntVector t) {
      return simple(v, path, (i, s, p) -> t.setSafe(i, s.getShort(p)));
    } else if (v instanceof IntVector t) {
      return simple(v, path, (i, s, p) -> t.setSafe(i, s.getInt(p)));
    } else if (v instanceof BigIntVector t) {
      return simple(v, path, (i, s, p) -> t.setSafe(i, s.getLong(p)));
    } else if (v instanceof Float4Vector t) {
      return simple(v, path, (i, s, p) -> t.setSafe(i, s.getFloat(p)));
    } else if (v instanceof Float8Vector t) {
      return simple(v, path, (i, s, p) -> t.setSafe(i, s.getDouble(p)));
    } else if (v instanceof UInt1Vector || v instanceof UInt2Vector || v instanceof UInt4Vector
        || v instanceof UInt8Vector) {
      return unsigned(v, path);
    } else if (v instanceof DecimalVector || v instanceof Decimal256Vector) {
      return decimal(v, (DecimalType) type, path);
    } else if (v instanceof VarCharVector || v instanceof LargeVarCharVector || v instanceof VarBinaryVector
        || v instanceof LargeVarBinaryVector || v instanceof FixedSizeBinaryVector) {
      return bytesWriter(v, path);
    } else if (v instanceof DateDayVector t) {
      return simple(v, path, (i, s, p) -> t.setSafe(i, s.getInt(p)));
    } else if (v instanceof DateMilliVector t) {
      return simple(v, path, (i, s, p) -> t.setSafe(i, s.getInt(p) * 86_400_000L));
    } else if (v instanceof TimeSecVector t) {
      return simple(v, path, (i, s, p) -> t.setSafe(i, Math.floorDiv(s.getInt(p), 1000)));
    } else if (v instanceof TimeMilliVector t) {
      return simple(v, path, (i, s, p) -> t.setSafe(i, s.getInt(p)));
    } else if (v instanceof TimeStampVector t) {
      return timestamp(t, type, path);
    } else if (v instanceof MapVector m) {
      return map(m, (org.apache.flink.table.types.logical.MapType) type, path);
    } else if (v instanceof ListVector || v instanceof LargeListVector || v instanceof FixedSizeListVector) {
      return list(v, ((org.apache.flink.table.types.logical.ArrayType) type).getElementType(), path);
    } else if (v instanceof StructVector s) {
      return struct(s, (RowType) type, path);
    }
    throw new InvalidSchemaException("column '" + path + "' is an Arrow " + v.getField().getType() + " ("
        + v.getClass().getSimpleName() + "), which the Quiver Flink writer cannot write");
  }

  private Writer unsigned(ValueVector v, String path) {
    if (v instanceof UInt1Vector u) {
      return new Writer(v, path) {
        @Override
        void setValue(int index, Values src, int pos) {
          short value = src.getShort(pos);
          if (value < 0 || value > 0xFF) {
            throw outOfRange(value, "0 to 255");
          }
          u.setSafe(index, value);
        }
      };
    } else if (v instanceof UInt2Vector u) {
      return new Writer(v, path) {
        @Override
        void setValue(int index, Values src, int pos) {
          int value = src.getInt(pos);
          if (value < 0 || value > 0xFFFF) {
            throw outOfRange(value, "0 to 65535");
          }
          u.setSafe(index, value);
        }
      };
    } else if (v instanceof UInt4Vector u) {
      return new Writer(v, path) {
        @Override
        void setValue(int index, Values src, int pos) {
          long value = src.getLong(pos);
          if (value < 0 || value > 0xFFFF_FFFFL) {
            throw outOfRange(value, "0 to 4294967295");
          }
          u.setSafe(index, (int) value);
        }
      };
    }
    UInt8Vector u = (UInt8Vector) v;
    return new Writer(v, path) {
      @Override
      void setValue(int index, Values src, int pos) {
        BigInteger value = src.getDecimal(pos, 20, 0).toBigDecimal().toBigIntegerExact();
        if (value.signum() < 0 || value.bitLength() > 64) {
          throw outOfRange(value, "0 to 18446744073709551615");
        }
        u.setSafe(index, value.longValue());
      }
    };
  }

  private Writer decimal(ValueVector v, DecimalType type, String path) {
    int precision = type.getPrecision();
    int scale = type.getScale();
    if (v instanceof DecimalVector d) {
      return simple(v, path, (i, s, p) -> {
        DecimalData value = s.getDecimal(p, precision, scale);
        if (value.isCompact()) {
          d.setSafe(i, value.toUnscaledLong());
        } else {
          d.setSafe(i, value.toBigDecimal());
        }
      });
    }
    Decimal256Vector d = (Decimal256Vector) v;
    return simple(v, path, (i, s, p) -> {
      BigDecimal value = s.getDecimal(p, precision, scale).toBigDecimal();
      d.setSafe(i, value);
    });
  }

  private Writer bytesWriter(ValueVector v, String path) {
    return new Writer(v, path) {
      @Override
      void setValue(int index, Values src, int pos) {
        if (v instanceof VarCharVector s) {
          byte[] utf8 = src.getString(pos).toBytes();
          s.setSafe(index, utf8);
          bytes += utf8.length + 4;
        } else if (v instanceof LargeVarCharVector s) {
          byte[] utf8 = src.getString(pos).toBytes();
          s.setSafe(index, utf8);
          bytes += utf8.length + 8;
        } else if (v instanceof VarBinaryVector b) {
          byte[] value = src.getBinary(pos);
          b.setSafe(index, value);
          bytes += value.length + 4;
        } else if (v instanceof LargeVarBinaryVector b) {
          byte[] value = src.getBinary(pos);
          b.setSafe(index, value);
          bytes += value.length + 8;
        } else {
          FixedSizeBinaryVector b = (FixedSizeBinaryVector) v;
          byte[] value = src.getBinary(pos);
          if (value.length != b.getByteWidth()) {
            throw outOfRange(value.length + " bytes", "exactly " + b.getByteWidth() + " bytes");
          }
          b.setSafe(index, value);
        }
      }
    };
  }

  private Writer timestamp(TimeStampVector t, LogicalType type, String path) {
    int precision = type instanceof TimestampType ts ? ts.getPrecision()
        : ((LocalZonedTimestampType) type).getPrecision();
    return switch (((ArrowType.Timestamp) t.getField().getType()).getUnit()) {
      case SECOND -> simple(t, path, (i, s, p) ->
          t.setSafe(i, Math.floorDiv(s.getTimestamp(p, precision).getMillisecond(), 1000L)));
      case MILLISECOND -> simple(t, path, (i, s, p) -> t.setSafe(i, s.getTimestamp(p, precision).getMillisecond()));
      case MICROSECOND -> simple(t, path, (i, s, p) -> {
        TimestampData ts = s.getTimestamp(p, precision);
        t.setSafe(i, Math.addExact(Math.multiplyExact(ts.getMillisecond(), 1000L), ts.getNanoOfMillisecond() / 1000));
      });
      case NANOSECOND -> new Writer(t, path) {
        @Override
        void setValue(int index, Values src, int pos) {
          TimestampData ts = src.getTimestamp(pos, precision);
          try {
            t.setSafe(index, Math.addExact(Math.multiplyExact(ts.getMillisecond(), 1_000_000L),
                ts.getNanoOfMillisecond()));
          } catch (ArithmeticException e) {
            throw outOfRange(ts, "nanoseconds since 1970 in 64 bits (years 1677 to 2262)");
          }
        }
      };
    };
  }

  private Writer struct(StructVector s, RowType type, String path) {
    List<FieldVector> kids = s.getChildrenFromFields();
    Writer[] children = new Writer[kids.size()];
    for (int c = 0; c < children.length; c++) {
      children[c] = writer(kids.get(c), type.getTypeAt(c), path + "." + kids.get(c).getName());
    }
    RowValues child = new RowValues();
    return new Writer(s, path) {
      @Override
      void setNull(int index) {
        s.setNull(index);
      }

      @Override
      void setValue(int index, Values src, int pos) {
        s.setIndexDefined(index);
        child.row = src.getRow(pos, children.length);
        for (int c = 0; c < children.length; c++) {
          children[c].write(index, child, c);
        }
      }
    };
  }

  private Writer list(ValueVector v, LogicalType elementType, String path) {
    FieldVector data = v instanceof ListVector l ? l.getDataVector()
        : v instanceof LargeListVector l ? l.getDataVector() : ((FixedSizeListVector) v).getDataVector();
    Writer element = writer(data, elementType, path + "." + data.getName());
    ArrayValues child = new ArrayValues();
    return new Writer(v, path) {
      @Override
      void setValue(int index, Values src, int pos) {
        ArrayData array = src.getArray(pos);
        int size = array.size();
        long start;
        if (v instanceof ListVector l) {
          start = l.startNewValue(index);
        } else if (v instanceof LargeListVector l) {
          start = l.startNewValue(index);
        } else {
          FixedSizeListVector l = (FixedSizeListVector) v;
          if (size != l.getListSize()) {
            throw outOfRange("an array of " + size + " elements", "arrays of exactly " + l.getListSize());
          }
          start = l.startNewValue(index);
        }
        child.array = array;
        for (int e = 0; e < size; e++) {
          element.write(Math.toIntExact(start + e), child, e);
        }
        if (v instanceof ListVector l) {
          l.endValue(index, size);
        } else if (v instanceof LargeListVector l) {
          l.endValue(index, size);
        }
        bytes += 4;
      }
    };
  }

  private Writer map(MapVector m, org.apache.flink.table.types.logical.MapType type, String path) {
    StructVector entries = (StructVector) m.getDataVector();
    List<FieldVector> kv = entries.getChildrenFromFields();
    Writer key = writer(kv.get(0), type.getKeyType(), path + "." + kv.get(0).getName());
    Writer value = writer(kv.get(1), type.getValueType(), path + "." + kv.get(1).getName());
    ArrayValues keys = new ArrayValues();
    ArrayValues values = new ArrayValues();
    return new Writer(m, path) {
      @Override
      void setValue(int index, Values src, int pos) {
        MapData map = src.getMap(pos);
        int size = map.size();
        int start = m.startNewValue(index);
        keys.array = map.keyArray();
        values.array = map.valueArray();
        for (int e = 0; e < size; e++) {
          entries.setIndexDefined(start + e);
          key.write(start + e, keys, e);
          value.write(start + e, values, e);
        }
        m.endValue(index, size);
        bytes += 4;
      }
    };
  }
}
