package io.quiver.flink.types;

import io.quiver.exceptions.InvalidSchemaException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Reads the rows of one Arrow batch as Flink {@link RowData}, with the types {@link FlinkTypes} maps the
 * batch's schema to. Every value is copied into {@link GenericRowData}, {@code StringData}, {@link
 * DecimalData}, {@link TimestampData}, {@code byte[]}, {@link GenericArrayData} and {@link GenericMapData},
 * so the rows stay valid after the batch's Arrow memory is released.
 *
 * <p>One reader per batch: {@code ArrowRowDataReader.of(root)} binds the batch's vectors (a few objects), and
 * {@link #read(int)} converts one row. Not thread-safe.
 */
public final class ArrowRowDataReader {
  private final RowType rowType;
  private final Column[] columns;
  private final int rowCount;

  private ArrowRowDataReader(VectorSchemaRoot root) {
    this.rowType = FlinkTypes.toRowType(root.getSchema());
    List<FieldVector> vectors = root.getFieldVectors();
    this.columns = new Column[vectors.size()];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = column(vectors.get(i));
    }
    this.rowCount = root.getRowCount();
  }

  /**
   * A reader of {@code root}'s current rows.
   *
   * @throws InvalidSchemaException if a column has a type Flink cannot read (see {@link FlinkTypes})
   */
  public static ArrowRowDataReader of(VectorSchemaRoot root) {
    return new ArrowRowDataReader(root);
  }

  /** The Flink type of the batch's rows. */
  public RowType rowType() {
    return rowType;
  }

  /** Rows in the batch. */
  public int rowCount() {
    return rowCount;
  }

  /** Row {@code index} of the batch, copied (an insert, {@code RowKind.INSERT}). */
  public RowData read(int index) {
    GenericRowData row = new GenericRowData(columns.length);
    for (int c = 0; c < columns.length; c++) {
      row.setField(c, columns[c].get(index));
    }
    return row;
  }

  /** Rows {@code [from, rowCount())} of the batch, copied. */
  public List<RowData> readFrom(int from) {
    List<RowData> rows = new ArrayList<>(Math.max(0, rowCount - from));
    for (int i = from; i < rowCount; i++) {
      rows.add(read(i));
    }
    return rows;
  }

  /** One vector's values as Flink's internal data objects; {@code null} for a null slot. */
  private interface Column {
    Object get(int index);
  }

  private static Column column(ValueVector v) {
    Column value = value(v);
    return index -> v.isNull(index) ? null : value.get(index);
  }

  private static Column value(ValueVector v) {
    if (v instanceof BitVector b) {
      return i -> b.get(i) != 0;
    } else if (v instanceof TinyIntVector t) {
      return t::get;
    } else if (v instanceof SmallIntVector s) {
      return s::get;
    } else if (v instanceof IntVector iv) {
      return iv::get;
    } else if (v instanceof BigIntVector l) {
      return l::get;
    } else if (v instanceof UInt1Vector u) {
      return i -> (short) (u.get(i) & 0xFF);
    } else if (v instanceof UInt2Vector u) {
      return i -> (int) u.get(i);
    } else if (v instanceof UInt4Vector u) {
      return i -> u.get(i) & 0xFFFF_FFFFL;
    } else if (v instanceof UInt8Vector u) {
      return i -> {
        long bits = u.get(i);
        BigInteger unsigned = bits >= 0 ? BigInteger.valueOf(bits) : BigInteger.valueOf(bits).add(BigInteger.ONE.shiftLeft(64));
        return DecimalData.fromBigDecimal(new BigDecimal(unsigned), 20, 0);
      };
    } else if (v instanceof Float4Vector f) {
      return f::get;
    } else if (v instanceof Float8Vector d) {
      return d::get;
    } else if (v instanceof DecimalVector d) {
      int p = d.getPrecision();
      int s = d.getScale();
      return i -> DecimalData.fromBigDecimal(d.getObject(i), p, s);
    } else if (v instanceof Decimal256Vector d) {
      int p = d.getPrecision();
      int s = d.getScale();
      return i -> DecimalData.fromBigDecimal(d.getObject(i), p, s);
    } else if (v instanceof VarCharVector s) {
      return i -> StringData.fromBytes(s.get(i));
    } else if (v instanceof LargeVarCharVector s) {
      return i -> StringData.fromBytes(s.get(i));
    } else if (v instanceof VarBinaryVector b) {
      return b::get;
    } else if (v instanceof LargeVarBinaryVector b) {
      return b::get;
    } else if (v instanceof FixedSizeBinaryVector b) {
      return b::get;
    } else if (v instanceof DateDayVector d) {
      return d::get;
    } else if (v instanceof DateMilliVector d) {
      return i -> (int) Math.floorDiv(d.get(i), 86_400_000L);
    } else if (v instanceof TimeSecVector t) {
      return i -> t.get(i) * 1000;
    } else if (v instanceof TimeMilliVector t) {
      return t::get;
    } else if (v instanceof TimeStampVector t) {
      return timestamp(t);
    } else if (v instanceof MapVector m) {
      StructVector entries = (StructVector) m.getDataVector();
      Column key = column(entries.getChildrenFromFields().get(0));
      Column value = column(entries.getChildrenFromFields().get(1));
      return i -> {
        int start = m.getElementStartIndex(i);
        int end = m.getElementEndIndex(i);
        Map<Object, Object> map = new LinkedHashMap<>();
        for (int e = start; e < end; e++) {
          map.put(key.get(e), value.get(e));
        }
        return new GenericMapData(map);
      };
    } else if (v instanceof ListVector l) {
      Column element = column(l.getDataVector());
      return i -> elements(element, l.getElementStartIndex(i), l.getElementEndIndex(i));
    } else if (v instanceof LargeListVector l) {
      Column element = column(l.getDataVector());
      return i -> elements(element, Math.toIntExact(l.getElementStartIndex(i)),
          Math.toIntExact(l.getElementEndIndex(i)));
    } else if (v instanceof FixedSizeListVector l) {
      Column element = column(l.getDataVector());
      int size = l.getListSize();
      return i -> elements(element, i * size, i * size + size);
    } else if (v instanceof StructVector s) {
      List<FieldVector> kids = s.getChildrenFromFields();
      Column[] children = new Column[kids.size()];
      for (int c = 0; c < children.length; c++) {
        children[c] = column(kids.get(c));
      }
      return i -> {
        GenericRowData row = new GenericRowData(children.length);
        for (int c = 0; c < children.length; c++) {
          row.setField(c, children[c].get(i));
        }
        return row;
      };
    }
    throw new InvalidSchemaException("column '" + v.getName() + "' is stored as Arrow " + v.getField().getType()
        + " (" + v.getClass().getSimpleName() + "), which the Quiver Flink reader cannot read; project the column"
        + " away to read the others");
  }

  private static GenericArrayData elements(Column element, int start, int end) {
    Object[] values = new Object[end - start];
    for (int e = start; e < end; e++) {
      values[e - start] = element.get(e);
    }
    return new GenericArrayData(values);
  }

  private static Column timestamp(TimeStampVector t) {
    return switch (((ArrowType.Timestamp) t.getField().getType()).getUnit()) {
      case SECOND -> i -> TimestampData.fromEpochMillis(Math.multiplyExact(t.get(i), 1000L));
      case MILLISECOND -> i -> TimestampData.fromEpochMillis(t.get(i));
      case MICROSECOND -> i -> {
        long micros = t.get(i);
        return TimestampData.fromEpochMillis(Math.floorDiv(micros, 1000L), (int) Math.floorMod(micros, 1000L) * 1000);
      };
      case NANOSECOND -> i -> {
        long nanos = t.get(i);
        return TimestampData.fromEpochMillis(Math.floorDiv(nanos, 1_000_000L), (int) Math.floorMod(nanos, 1_000_000L));
      };
    };
  }
}
