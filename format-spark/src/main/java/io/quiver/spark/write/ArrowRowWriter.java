package io.quiver.spark.write;

import io.quiver.exceptions.InvalidArgumentException;
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
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
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
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.Decimal;

/**
 * Writes Spark's {@link InternalRow}s into the vectors of a {@link VectorSchemaRoot} of the TABLE's Arrow schema:
 * one field writer per Arrow field, reading the Spark value the type mapping of {@link
 * io.quiver.spark.types.SparkTypes} gives that field (so a uint32 column is read as a Spark long, a
 * millisecond date as a Spark date, a nanosecond timestamp as Spark's microseconds, …) and converting it.
 *
 * <p>Conversions that lose information are not silent: a value out of an unsigned column's range, a
 * fixed-size binary or list of the wrong length, or a null in a NOT NULL field throws an {@link
 * InvalidArgumentException} naming the column. Spark's microsecond timestamps written into a second or
 * millisecond column are floored to that unit (as a cast would); into a nanosecond column they are multiplied
 * exactly.
 *
 * <p>Not Spark's {@code ArrowWriter}: that one only writes the Arrow types Spark itself produces.
 */
final class ArrowRowWriter {
  private final VectorSchemaRoot root;
  private final FieldWriter[] writers;

  ArrowRowWriter(VectorSchemaRoot root) {
    this.root = root;
    List<FieldVector> vectors = root.getFieldVectors();
    this.writers = new FieldWriter[vectors.size()];
    for (int i = 0; i < writers.length; i++) {
      FieldVector v = vectors.get(i);
      writers[i] = writer(v, v.getField().getName());
    }
  }

  /** Writes {@code row} at position {@code index} of every vector. */
  void write(InternalRow row, int index) {
    for (int i = 0; i < writers.length; i++) {
      writers[i].write(row, i, index);
    }
  }

  /** Sets the row count of the root (and so every vector's value count). */
  void finish(int rows) {
    root.setRowCount(rows);
  }

  // ---------------------------------------------------------------- field writers

  /** Writes the value at {@code ordinal} of a Spark row or array into position {@code index} of its vector. */
  abstract static class FieldWriter {
    final String path;
    final boolean nullable;

    FieldWriter(FieldVector vector, String path) {
      this.path = path;
      this.nullable = vector.getField().isNullable();
    }

    final void write(SpecializedGetters in, int ordinal, int index) {
      if (in.isNullAt(ordinal)) {
        if (!nullable) {
          throw new InvalidArgumentException("column '" + path + "' is NOT NULL in the Quiver table, but a row to"
              + " write holds null there; filter or fill the nulls first (coalesce) or make the column nullable"
              + " (ALTER TABLE … ALTER COLUMN " + path + " DROP NOT NULL)");
        }
        setNull(index);
      } else {
        set(in, ordinal, index);
      }
    }

    abstract void set(SpecializedGetters in, int ordinal, int index);

    /** Marks position {@code index} null (children included, so they stay aligned). */
    abstract void setNull(int index);
  }

  private interface Setter {
    void set(SpecializedGetters in, int ordinal, int index);
  }

  /** A leaf writer: a setter plus the vector's own setNull. */
  private static FieldWriter leaf(FieldVector v, String path, Setter setter) {
    return new FieldWriter(v, path) {
      @Override
      void set(SpecializedGetters in, int ordinal, int index) {
        setter.set(in, ordinal, index);
      }

      @Override
      void setNull(int index) {
        v.setNull(index);
      }
    };
  }

  static FieldWriter writer(FieldVector vector, String path) {
    Field field = vector.getField();
    ArrowType type = field.getType();
    switch (type.getTypeID()) {
      case Bool: {
        BitVector v = (BitVector) vector;
        return leaf(v, path, (in, o, i) -> v.setSafe(i, in.getBoolean(o) ? 1 : 0));
      }
      case Int:
        return intWriter(vector, path, (ArrowType.Int) type);
      case FloatingPoint: {
        if (vector instanceof Float4Vector v) {
          return leaf(v, path, (in, o, i) -> v.setSafe(i, in.getFloat(o)));
        }
        if (vector instanceof Float8Vector v) {
          return leaf(v, path, (in, o, i) -> v.setSafe(i, in.getDouble(o)));
        }
        break;
      }
      case Decimal: {
        ArrowType.Decimal d = (ArrowType.Decimal) type;
        int p = d.getPrecision();
        int s = d.getScale();
        if (vector instanceof DecimalVector v) {
          return leaf(v, path, (in, o, i) -> {
            Decimal value = in.getDecimal(o, p, s);
            if (p <= Decimal.MAX_LONG_DIGITS()) {
              v.setSafe(i, value.toUnscaledLong());
            } else {
              v.setSafe(i, value.toJavaBigDecimal());
            }
          });
        }
        if (vector instanceof Decimal256Vector v) {
          return leaf(v, path, (in, o, i) -> v.setSafe(i, in.getDecimal(o, p, s).toJavaBigDecimal()));
        }
        break;
      }
      case Utf8: {
        VarCharVector v = (VarCharVector) vector;
        return leaf(v, path, (in, o, i) -> {
          byte[] b = in.getUTF8String(o).getBytes();
          v.setSafe(i, b, 0, b.length);
        });
      }
      case LargeUtf8: {
        LargeVarCharVector v = (LargeVarCharVector) vector;
        return leaf(v, path, (in, o, i) -> {
          byte[] b = in.getUTF8String(o).getBytes();
          v.setSafe(i, b, 0, b.length);
        });
      }
      case Binary: {
        VarBinaryVector v = (VarBinaryVector) vector;
        return leaf(v, path, (in, o, i) -> {
          byte[] b = in.getBinary(o);
          v.setSafe(i, b, 0, b.length);
        });
      }
      case LargeBinary: {
        LargeVarBinaryVector v = (LargeVarBinaryVector) vector;
        return leaf(v, path, (in, o, i) -> {
          byte[] b = in.getBinary(o);
          v.setSafe(i, b, 0, b.length);
        });
      }
      case FixedSizeBinary: {
        FixedSizeBinaryVector v = (FixedSizeBinaryVector) vector;
        int width = v.getByteWidth();
        return leaf(v, path, (in, o, i) -> {
          byte[] b = in.getBinary(o);
          if (b.length != width) {
            throw new InvalidArgumentException("column '" + path + "' holds fixed-size binary values of " + width
                + " bytes; a row to write holds " + b.length + " bytes");
          }
          v.setSafe(i, b);
        });
      }
      case Date: {
        if (((ArrowType.Date) type).getUnit() == DateUnit.DAY) {
          DateDayVector v = (DateDayVector) vector;
          return leaf(v, path, (in, o, i) -> v.setSafe(i, in.getInt(o)));
        }
        DateMilliVector v = (DateMilliVector) vector;
        return leaf(v, path, (in, o, i) -> v.setSafe(i, in.getInt(o) * 86_400_000L));
      }
      case Timestamp: {
        TimeStampVector v = (TimeStampVector) vector;
        switch (((ArrowType.Timestamp) type).getUnit()) {
          case SECOND:
            return leaf(v, path, (in, o, i) -> v.setSafe(i, Math.floorDiv(in.getLong(o), 1_000_000L)));
          case MILLISECOND:
            return leaf(v, path, (in, o, i) -> v.setSafe(i, Math.floorDiv(in.getLong(o), 1_000L)));
          case MICROSECOND:
            return leaf(v, path, (in, o, i) -> v.setSafe(i, in.getLong(o)));
          case NANOSECOND:
            return leaf(v, path, (in, o, i) -> {
              long micros = in.getLong(o);
              try {
                v.setSafe(i, Math.multiplyExact(micros, 1_000L));
              } catch (ArithmeticException e) {
                throw new InvalidArgumentException("column '" + path + "' stores nanoseconds since the epoch, which"
                    + " cannot hold the timestamp of " + micros + " microseconds (years 1677 to 2262 only)");
              }
            });
          default:
            break;
        }
        break;
      }
      case Struct:
        return structWriter((StructVector) vector, path);
      case List:
        if (vector instanceof MapVector) {
          break;
        }
        return listWriter((ListVector) vector, path);
      case LargeList:
        return largeListWriter((LargeListVector) vector, path);
      case FixedSizeList:
        return fixedSizeListWriter((FixedSizeListVector) vector, path);
      case Map:
        return mapWriter((MapVector) vector, path);
      default:
        break;
    }
    throw new InvalidSchemaException("column '" + path + "' has Arrow type " + type + ", which Spark cannot write"
        + " (it has no Spark type); write the table with Quiver's Java API, or drop the column");
  }

  private static FieldWriter intWriter(FieldVector vector, String path, ArrowType.Int t) {
    if (t.getIsSigned()) {
      switch (t.getBitWidth()) {
        case 8: {
          TinyIntVector v = (TinyIntVector) vector;
          return leaf(v, path, (in, o, i) -> v.setSafe(i, in.getByte(o)));
        }
        case 16: {
          SmallIntVector v = (SmallIntVector) vector;
          return leaf(v, path, (in, o, i) -> v.setSafe(i, in.getShort(o)));
        }
        case 32: {
          IntVector v = (IntVector) vector;
          return leaf(v, path, (in, o, i) -> v.setSafe(i, in.getInt(o)));
        }
        default: {
          BigIntVector v = (BigIntVector) vector;
          return leaf(v, path, (in, o, i) -> v.setSafe(i, in.getLong(o)));
        }
      }
    }
    switch (t.getBitWidth()) {
      case 8: {
        UInt1Vector v = (UInt1Vector) vector;
        return leaf(v, path, (in, o, i) -> v.setSafe(i, (int) unsigned(path, in.getShort(o), 0xFFL)));
      }
      case 16: {
        UInt2Vector v = (UInt2Vector) vector;
        return leaf(v, path, (in, o, i) -> v.setSafe(i, (int) unsigned(path, in.getInt(o), 0xFFFFL)));
      }
      case 32: {
        UInt4Vector v = (UInt4Vector) vector;
        return leaf(v, path, (in, o, i) -> v.setSafe(i, (int) unsigned(path, in.getLong(o), 0xFFFF_FFFFL)));
      }
      default: {
        UInt8Vector v = (UInt8Vector) vector;
        return leaf(v, path, (in, o, i) -> {
          BigDecimal d = in.getDecimal(o, 20, 0).toJavaBigDecimal();
          BigInteger b = d.toBigIntegerExact();
          if (b.signum() < 0 || b.bitLength() > 64) {
            throw outOfRange(path, d.toPlainString(), "0 to 18446744073709551615");
          }
          v.setSafe(i, b.longValue());
        });
      }
    }
  }

  private static long unsigned(String path, long value, long max) {
    if (value < 0 || value > max) {
      throw outOfRange(path, Long.toString(value), "0 to " + max);
    }
    return value;
  }

  private static InvalidArgumentException outOfRange(String path, String value, String range) {
    return new InvalidArgumentException("column '" + path + "' is unsigned and holds " + range + "; a row to write"
        + " holds " + value);
  }

  private static FieldWriter structWriter(StructVector v, String path) {
    List<FieldVector> vectors = v.getChildrenFromFields();
    FieldWriter[] children = new FieldWriter[vectors.size()];
    for (int c = 0; c < children.length; c++) {
      children[c] = writer(vectors.get(c), path + "." + vectors.get(c).getField().getName());
    }
    return new FieldWriter(v, path) {
      @Override
      void set(SpecializedGetters in, int ordinal, int index) {
        InternalRow row = in.getStruct(ordinal, children.length);
        v.setIndexDefined(index);
        for (int c = 0; c < children.length; c++) {
          children[c].write(row, c, index);
        }
      }

      @Override
      void setNull(int index) {
        v.setNull(index);
        for (FieldWriter c : children) {
          c.setNull(index);
        }
      }
    };
  }

  private static FieldWriter listWriter(ListVector v, String path) {
    FieldWriter element = writer(v.getDataVector(), path + ".element");
    return new FieldWriter(v, path) {
      @Override
      void set(SpecializedGetters in, int ordinal, int index) {
        ArrayData array = in.getArray(ordinal);
        int n = array.numElements();
        int start = v.startNewValue(index);
        for (int e = 0; e < n; e++) {
          element.write(array, e, start + e);
        }
        v.endValue(index, n);
      }

      @Override
      void setNull(int index) {
        v.setNull(index);
      }
    };
  }

  private static FieldWriter largeListWriter(LargeListVector v, String path) {
    FieldWriter element = writer((FieldVector) v.getDataVector(), path + ".element");
    return new FieldWriter(v, path) {
      @Override
      void set(SpecializedGetters in, int ordinal, int index) {
        ArrayData array = in.getArray(ordinal);
        int n = array.numElements();
        long start = v.startNewValue(index);
        for (int e = 0; e < n; e++) {
          element.write(array, e, Math.toIntExact(start + e));
        }
        v.endValue(index, n);
      }

      @Override
      void setNull(int index) {
        v.setNull(index);
      }
    };
  }

  private static FieldWriter fixedSizeListWriter(FixedSizeListVector v, String path) {
    FieldWriter element = writer(v.getDataVector(), path + ".element");
    int size = v.getListSize();
    return new FieldWriter(v, path) {
      @Override
      void set(SpecializedGetters in, int ordinal, int index) {
        ArrayData array = in.getArray(ordinal);
        int n = array.numElements();
        if (n != size) {
          throw new InvalidArgumentException("column '" + path + "' holds lists of exactly " + size + " elements; a"
              + " row to write holds " + n);
        }
        int start = v.startNewValue(index);
        for (int e = 0; e < n; e++) {
          element.write(array, e, start + e);
        }
      }

      @Override
      void setNull(int index) {
        int start = v.startNewValue(index);
        for (int e = 0; e < size; e++) {
          element.setNull(start + e);
        }
        v.setNull(index);
      }
    };
  }

  private static FieldWriter mapWriter(MapVector v, String path) {
    StructVector entries = (StructVector) v.getDataVector();
    List<FieldVector> kv = entries.getChildrenFromFields();
    FieldWriter key = writer(kv.get(0), path + ".key");
    FieldWriter value = writer(kv.get(1), path + ".value");
    return new FieldWriter(v, path) {
      @Override
      void set(SpecializedGetters in, int ordinal, int index) {
        MapData map = in.getMap(ordinal);
        ArrayData keys = map.keyArray();
        ArrayData values = map.valueArray();
        int n = map.numElements();
        int start = v.startNewValue(index);
        for (int e = 0; e < n; e++) {
          entries.setIndexDefined(start + e);
          key.write(keys, e, start + e);
          value.write(values, e, start + e);
        }
        v.endValue(index, n);
      }

      @Override
      void setNull(int index) {
        v.setNull(index);
      }
    };
  }
}
