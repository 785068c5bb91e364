package io.quiver.flink.types;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;
import org.apache.flink.types.RowKind;

/**
 * Serializes {@link RowData} of one {@link RowType} (any implementation in, {@link GenericRowData} out) for
 * Flink's network, state and {@code collect}: the row kind, then each field's null flag and value by its type
 * (the types {@link FlinkTypes} maps to). {@link #copy(RowData)} is a deep copy into {@link GenericRowData}.
 *
 * <p>Its snapshot stores the row type's serializable string; a restore with another row type is incompatible.
 */
public final class RowDataSerializer extends TypeSerializer<RowData> {
  private static final long serialVersionUID = 1L;

  private final RowType rowType;
  private transient Codec codec;

  /** A serializer of rows of {@code rowType}. */
  public RowDataSerializer(RowType rowType) {
    this.rowType = Objects.requireNonNull(rowType, "rowType");
  }

  /** The row type serialized. */
  public RowType rowType() {
    return rowType;
  }

  private Codec codec() {
    if (codec == null) {
      codec = codec(rowType);
    }
    return codec;
  }

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public TypeSerializer<RowData> duplicate() {
    return new RowDataSerializer(rowType);
  }

  @Override
  public RowData createInstance() {
    return new GenericRowData(rowType.getFieldCount());
  }

  @Override
  public RowData copy(RowData from) {
    GenericRowData copy = (GenericRowData) codec().copy(from);
    copy.setRowKind(from.getRowKind());
    return copy;
  }

  @Override
  public RowData copy(RowData from, RowData reuse) {
    return copy(from);
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(RowData record, DataOutputView target) throws IOException {
    target.writeByte(record.getRowKind().toByteValue());
    codec().write(record, target);
  }

  @Override
  public RowData deserialize(DataInputView source) throws IOException {
    RowKind kind = RowKind.fromByteValue(source.readByte());
    GenericRowData row = (GenericRowData) codec().read(source);
    row.setRowKind(kind);
    return row;
  }

  @Override
  public RowData deserialize(RowData reuse, DataInputView source) throws IOException {
    return deserialize(source);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    serialize(deserialize(source), target);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowDataSerializer other && other.rowType.equals(rowType);
  }

  @Override
  public int hashCode() {
    return rowType.hashCode();
  }

  @Override
  public TypeSerializerSnapshot<RowData> snapshotConfiguration() {
    return new Snapshot(rowType);
  }

  /** The serializer's configuration in checkpoints: its row type. */
  public static final class Snapshot implements TypeSerializerSnapshot<RowData> {
    private RowType rowType;

    /** For Flink's restore (read by {@link #readSnapshot}). */
    public Snapshot() {}

    Snapshot(RowType rowType) {
      this.rowType = rowType;
    }

    @Override
    public int getCurrentVersion() {
      return 1;
    }

    @Override
    public void writeSnapshot(DataOutputView out) throws IOException {
      byte[] type = rowType.asSerializableString().getBytes(StandardCharsets.UTF_8);
      out.writeInt(type.length);
      out.write(type);
    }

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader userCodeClassLoader) throws IOException {
      if (readVersion != 1) {
        throw new IOException("a Quiver RowDataSerializer snapshot of version " + readVersion + " cannot be read"
            + " by this connector, which reads version 1; restore with the connector version that wrote it");
      }
      byte[] type = new byte[in.readInt()];
      in.readFully(type);
      rowType = (RowType) LogicalTypeParser.parse(new String(type, StandardCharsets.UTF_8), userCodeClassLoader);
    }

    @Override
    public TypeSerializer<RowData> restoreSerializer() {
      return new RowDataSerializer(rowType);
    }

    @Override
    public TypeSerializerSchemaCompatibility<RowData> resolveSchemaCompatibility(
        TypeSerializerSnapshot<RowData> oldSnapshot) {
      return oldSnapshot instanceof Snapshot old && old.rowType.equals(rowType)
          ? TypeSerializerSchemaCompatibility.compatibleAsIs()
          : TypeSerializerSchemaCompatibility.incompatible();
    }
  }

  // ---------------------------------------------------------------- codecs by type

  /** One type's values (Flink's internal data objects): written, read back, deep-copied. */
  private interface Codec {
    void write(Object value, DataOutputView out) throws IOException;

    Object read(DataInputView in) throws IOException;

    Object copy(Object value);
  }

  /** A codec of immutable values (boxed primitives, decimals, timestamps). */
  private interface Immutable extends Codec {
    @Override
    default Object copy(Object value) {
      return value;
    }
  }

  private static Codec codec(LogicalType type) {
    switch (type.getTypeRoot()) {
      case BOOLEAN:
        return new Immutable() {
          public void write(Object v, DataOutputView out) throws IOException { out.writeBoolean((Boolean) v); }
          public Object read(DataInputView in) throws IOException { return in.readBoolean(); }
        };
      case TINYINT:
        return new Immutable() {
          public void write(Object v, DataOutputView out) throws IOException { out.writeByte((Byte) v); }
          public Object read(DataInputView in) throws IOException { return in.readByte(); }
        };
      case SMALLINT:
        return new Immutable() {
          public void write(Object v, DataOutputView out) throws IOException { out.writeShort((Short) v); }
          public Object read(DataInputView in) throws IOException { return in.readShort(); }
        };
      case INTEGER:
      case DATE:
      case TIME_WITHOUT_TIME_ZONE:
        return new Immutable() {
          public void write(Object v, DataOutputView out) throws IOException { out.writeInt((Integer) v); }
          public Object read(DataInputView in) throws IOException { return in.readInt(); }
        };
      case BIGINT:
        return new Immutable() {
          public void write(Object v, DataOutputView out) throws IOException { out.writeLong((Long) v); }
          public Object read(DataInputView in) throws IOException { return in.readLong(); }
        };
      case FLOAT:
        return new Immutable() {
          public void write(Object v, DataOutputView out) throws IOException { out.writeFloat((Float) v); }
          public Object read(DataInputView in) throws IOException { return in.readFloat(); }
        };
      case DOUBLE:
        return new Immutable() {
          public void write(Object v, DataOutputView out) throws IOException { out.writeDouble((Double) v); }
          public Object read(DataInputView in) throws IOException { return in.readDouble(); }
        };
      case DECIMAL: {
        DecimalType d = (DecimalType) type;
        int p = d.getPrecision();
        int s = d.getScale();
        if (DecimalData.isCompact(p)) {
          return new Immutable() {
            public void write(Object v, DataOutputView out) throws IOException {
              out.writeLong(((DecimalData) v).toUnscaledLong());
            }
            public Object read(DataInputView in) throws IOException {
              return DecimalData.fromUnscaledLong(in.readLong(), p, s);
            }
          };
        }
        return new Immutable() {
          public void write(Object v, DataOutputView out) throws IOException {
            writeBytes(((DecimalData) v).toUnscaledBytes(), out);
          }
          public Object read(DataInputView in) throws IOException {
            return DecimalData.fromUnscaledBytes(readBytes(in), p, s);
          }
        };
      }
      case TIMESTAMP_WITHOUT_TIME_ZONE:
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return new Immutable() {
          public void write(Object v, DataOutputView out) throws IOException {
            TimestampData t = (TimestampData) v;
            out.writeLong(t.getMillisecond());
            out.writeInt(t.getNanoOfMillisecond());
          }
          public Object read(DataInputView in) throws IOException {
            return TimestampData.fromEpochMillis(in.readLong(), in.readInt());
          }
        };
      case CHAR:
      case VARCHAR:
        return new Codec() {
          public void write(Object v, DataOutputView out) throws IOException {
            writeBytes(((StringData) v).toBytes(), out);
          }
          public Object read(DataInputView in) throws IOException {
            return StringData.fromBytes(readBytes(in));
          }
          public Object copy(Object v) {
            return StringData.fromBytes(((StringData) v).toBytes());
          }
        };
      case BINARY:
      case VARBINARY:
        return new Codec() {
          public void write(Object v, DataOutputView out) throws IOException { writeBytes((byte[]) v, out); }
          public Object read(DataInputView in) throws IOException { return readBytes(in); }
          public Object copy(Object v) { return ((byte[]) v).clone(); }
        };
      case ROW:
        return row((RowType) type);
      case ARRAY:
        return array(((ArrayType) type).getElementType());
      case MAP:
        return map((MapType) type);
      default:
        throw new io.quiver.exceptions.InvalidSchemaException("a Flink row with a field of type "
            + type.asSummaryString() + " cannot be serialized by the Quiver connector's RowDataSerializer; it"
            + " serializes the types FlinkTypes maps Quiver's columns to");
    }
  }

  private static void writeBytes(byte[] bytes, DataOutputView out) throws IOException {
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static byte[] readBytes(DataInputView in) throws IOException {
    byte[] bytes = new byte[in.readInt()];
    in.readFully(bytes);
    return bytes;
  }

  private static Codec row(RowType type) {
    int arity = type.getFieldCount();
    RowData.FieldGetter[] getters = new RowData.FieldGetter[arity];
    Codec[] fields = new Codec[arity];
    for (int i = 0; i < arity; i++) {
      getters[i] = RowData.createFieldGetter(type.getTypeAt(i), i);
      fields[i] = codec(type.getTypeAt(i));
    }
    return new Codec() {
      public void write(Object v, DataOutputView out) throws IOException {
        RowData row = (RowData) v;
        for (int i = 0; i < arity; i++) {
          writeNullable(getters[i].getFieldOrNull(row), fields[i], out);
        }
      }

      public Object read(DataInputView in) throws IOException {
        GenericRowData row = new GenericRowData(arity);
        for (int i = 0; i < arity; i++) {
          row.setField(i, in.readBoolean() ? null : fields[i].read(in));
        }
        return row;
      }

      public Object copy(Object v) {
        RowData row = (RowData) v;
        GenericRowData copy = new GenericRowData(arity);
        for (int i = 0; i < arity; i++) {
          Object field = getters[i].getFieldOrNull(row);
          copy.setField(i, field == null ? null : fields[i].copy(field));
        }
        return copy;
      }
    };
  }

  private static Codec array(LogicalType elementType) {
    ArrayData.ElementGetter getter = ArrayData.createElementGetter(elementType);
    Codec element = codec(elementType);
    return new Codec() {
      public void write(Object v, DataOutputView out) throws IOException {
        ArrayData array = (ArrayData) v;
        out.writeInt(array.size());
        for (int i = 0; i < array.size(); i++) {
          writeNullable(getter.getElementOrNull(array, i), element, out);
        }
      }

      public Object read(DataInputView in) throws IOException {
        Object[] values = new Object[in.readInt()];
        for (int i = 0; i < values.length; i++) {
          values[i] = in.readBoolean() ? null : element.read(in);
        }
        return new GenericArrayData(values);
      }

      public Object copy(Object v) {
        ArrayData array = (ArrayData) v;
        Object[] values = new Object[array.size()];
        for (int i = 0; i < values.length; i++) {
          Object e = getter.getElementOrNull(array, i);
          values[i] = e == null ? null : element.copy(e);
        }
        return new GenericArrayData(values);
      }
    };
  }

  private static Codec map(MapType type) {
    ArrayData.ElementGetter keyGetter = ArrayData.createElementGetter(type.getKeyType());
    ArrayData.ElementGetter valueGetter = ArrayData.createElementGetter(type.getValueType());
    Codec key = codec(type.getKeyType());
    Codec value = codec(type.getValueType());
    return new Codec() {
      public void write(Object v, DataOutputView out) throws IOException {
        MapData map = (MapData) v;
        ArrayData keys = map.keyArray();
        ArrayData values = map.valueArray();
        out.writeInt(map.size());
        for (int i = 0; i < map.size(); i++) {
          writeNullable(keyGetter.getElementOrNull(keys, i), key, out);
          writeNullable(valueGetter.getElementOrNull(values, i), value, out);
        }
      }

      public Object read(DataInputView in) throws IOException {
        int size = in.readInt();
        Map<Object, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < size; i++) {
          Object k = in.readBoolean() ? null : key.read(in);
          map.put(k, in.readBoolean() ? null : value.read(in));
        }
        return new GenericMapData(map);
      }

      public Object copy(Object v) {
        MapData map = (MapData) v;
        ArrayData keys = map.keyArray();
        ArrayData values = map.valueArray();
        Map<Object, Object> copy = new LinkedHashMap<>();
        for (int i = 0; i < map.size(); i++) {
          Object k = keyGetter.getElementOrNull(keys, i);
          Object e = valueGetter.getElementOrNull(values, i);
          copy.put(k == null ? null : key.copy(k), e == null ? null : value.copy(e));
        }
        return new GenericMapData(copy);
      }
    };
  }

  private static void writeNullable(Object value, Codec codec, DataOutputView out) throws IOException {
    out.writeBoolean(value == null);
    if (value != null) {
      codec.write(value, out);
    }
  }
}
