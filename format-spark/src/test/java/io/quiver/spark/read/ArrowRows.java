package io.quiver.spark.read;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
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
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Test batches from Java values: a row is a list of cell values, one per top-level field; a struct cell is
 * a {@code List} of member values, a list cell a {@code List}, a map cell a {@code Map}, null is null.
 * Integers are given as {@code Number}, strings as {@code String}, binaries as {@code byte[]}, dates as
 * epoch days (or millis for millisecond dates), timestamps in the column's unit.
 */
final class ArrowRows {
  private ArrowRows() {}

  static Field field(String name, ArrowType type, Field... children) {
    return new Field(name, FieldType.nullable(type), List.of(children));
  }

  static Field required(String name, ArrowType type, Field... children) {
    return new Field(name, FieldType.notNullable(type), List.of(children));
  }

  static Field map(String name, ArrowType key, ArrowType value) {
    return field(name, new ArrowType.Map(false), required("entries", ArrowType.Struct.INSTANCE,
        required("key", key), field("value", value)));
  }

  @SafeVarargs
  static List<Object> row(Object... cells) {
    List<Object> out = new ArrayList<>();
    for (Object c : cells) {
      out.add(c);
    }
    return out;
  }

  static Map<Object, Object> mapOf(Object... kv) {
    Map<Object, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  static VectorSchemaRoot batch(BufferAllocator allocator, Schema schema, List<List<Object>> rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    for (int r = 0; r < rows.size(); r++) {
      List<Object> row = rows.get(r);
      for (int c = 0; c < schema.getFields().size(); c++) {
        set(root.getVector(c), r, row.get(c));
      }
    }
    root.setRowCount(rows.size());
    return root;
  }

  @SuppressWarnings("unchecked")
  static void set(FieldVector v, int i, Object value) {
    if (value == null) {
      if (v instanceof StructVector s) {
        s.setNull(i);
      } else if (v instanceof ListVector l) {
        l.setNull(i);
      } else if (v instanceof LargeListVector l) {
        l.setNull(i);
      } else if (v instanceof FixedSizeListVector l) {
        l.setNull(i);
      } else if (v instanceof BaseFixedWidthVector f) {
        f.setNull(i);
      } else if (v instanceof BaseVariableWidthVector f) {
        f.setNull(i);
      } else {
        ((org.apache.arrow.vector.BaseLargeVariableWidthVector) v).setNull(i);
      }
      return;
    }
    if (v instanceof BitVector b) {
      b.setSafe(i, (Boolean) value ? 1 : 0);
    } else if (v instanceof TinyIntVector t) {
      t.setSafe(i, ((Number) value).byteValue());
    } else if (v instanceof SmallIntVector t) {
      t.setSafe(i, ((Number) value).shortValue());
    } else if (v instanceof IntVector t) {
      t.setSafe(i, ((Number) value).intValue());
    } else if (v instanceof BigIntVector t) {
      t.setSafe(i, ((Number) value).longValue());
    } else if (v instanceof UInt1Vector t) {
      t.setSafe(i, ((Number) value).intValue());
    } else if (v instanceof UInt2Vector t) {
      t.setSafe(i, ((Number) value).intValue());
    } else if (v instanceof UInt4Vector t) {
      t.setSafe(i, ((Number) value).intValue());
    } else if (v instanceof UInt8Vector t) {
      t.setSafe(i, ((Number) value).longValue());
    } else if (v instanceof Float4Vector t) {
      t.setSafe(i, ((Number) value).floatValue());
    } else if (v instanceof Float8Vector t) {
      t.setSafe(i, ((Number) value).doubleValue());
    } else if (v instanceof DecimalVector t) {
      t.setSafe(i, (BigDecimal) value);
    } else if (v instanceof Decimal256Vector t) {
      t.setSafe(i, (BigDecimal) value);
    } else if (v instanceof VarCharVector t) {
      t.setSafe(i, ((String) value).getBytes(StandardCharsets.UTF_8));
    } else if (v instanceof LargeVarCharVector t) {
      t.setSafe(i, ((String) value).getBytes(StandardCharsets.UTF_8));
    } else if (v instanceof VarBinaryVector t) {
      t.setSafe(i, (byte[]) value);
    } else if (v instanceof LargeVarBinaryVector t) {
      t.setSafe(i, (byte[]) value);
    } else if (v instanceof FixedSizeBinaryVector t) {
      t.setSafe(i, (byte[]) value);
    } else if (v instanceof DateDayVector t) {
      t.setSafe(i, ((Number) value).intValue());
    } else if (v instanceof DateMilliVector t) {
      t.setSafe(i, ((Number) value).longValue());
    } else if (v instanceof TimeStampVector t) {
      t.setSafe(i, ((Number) value).longValue());
    } else if (v instanceof StructVector s) {
      List<Object> members = (List<Object>) value;
      List<FieldVector> kids = s.getChildrenFromFields();
      for (int k = 0; k < kids.size(); k++) {
        set(kids.get(k), i, members.get(k));
      }
      s.setIndexDefined(i);
    } else if (v instanceof MapVector m) {
      Map<Object, Object> entries = (Map<Object, Object>) value;
      int start = m.startNewValue(i);
      StructVector e = (StructVector) m.getDataVector();
      int k = 0;
      for (Map.Entry<Object, Object> entry : entries.entrySet()) {
        set(e.getChildrenFromFields().get(0), start + k, entry.getKey());
        set(e.getChildrenFromFields().get(1), start + k, entry.getValue());
        e.setIndexDefined(start + k);
        k++;
      }
      m.endValue(i, entries.size());
    } else if (v instanceof ListVector l) {
      List<Object> items = (List<Object>) value;
      int start = l.startNewValue(i);
      for (int k = 0; k < items.size(); k++) {
        set(l.getDataVector(), start + k, items.get(k));
      }
      l.endValue(i, items.size());
    } else if (v instanceof LargeListVector l) {
      List<Object> items = (List<Object>) value;
      long start = l.startNewValue(i);
      for (int k = 0; k < items.size(); k++) {
        set(l.getDataVector(), (int) start + k, items.get(k));
      }
      l.endValue(i, items.size());
    } else if (v instanceof FixedSizeListVector l) {
      List<Object> items = (List<Object>) value;
      for (int k = 0; k < items.size(); k++) {
        set(l.getDataVector(), i * l.getListSize() + k, items.get(k));
      }
      l.setNotNull(i);
    } else {
      throw new IllegalArgumentException("no setter for " + v.getClass());
    }
  }
}
