package io.quiver.flink.types;

import io.quiver.exceptions.InvalidSchemaException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * Quiver's Arrow types and Flink's logical types, both ways: the one mapping the connector's source, sink
 * and converters share, so a table written from Flink reads back with the types it was written with.
 *
 * <table>
 *   <caption>Arrow (Quiver) to Flink</caption>
 *   <tr><th>Arrow</th><th>Flink</th></tr>
 *   <tr><td>bool</td><td>BOOLEAN</td></tr>
 *   <tr><td>int8, int16, int32, int64</td><td>TINYINT, SMALLINT, INT, BIGINT</td></tr>
 *   <tr><td>uint8, uint16, uint32</td><td>SMALLINT, INT, BIGINT (widened)</td></tr>
 *   <tr><td>uint64</td><td>DECIMAL(20, 0)</td></tr>
 *   <tr><td>float32, float64</td><td>FLOAT, DOUBLE</td></tr>
 *   <tr><td>decimal128(p, s), decimal256(p, s) with p &le; 38</td><td>DECIMAL(p, s)</td></tr>
 *   <tr><td>utf8, large utf8</td><td>STRING (VARCHAR of the largest length)</td></tr>
 *   <tr><td>binary, large binary</td><td>BYTES (VARBINARY of the largest length)</td></tr>
 *   <tr><td>fixed-size binary(n)</td><td>BINARY(n)</td></tr>
 *   <tr><td>date (day or millisecond)</td><td>DATE</td></tr>
 *   <tr><td>time (second, millisecond)</td><td>TIME(0), TIME(3)</td></tr>
 *   <tr><td>timestamp (second, milli, micro, nano) without a time zone</td><td>TIMESTAMP(0, 3, 6, 9)</td></tr>
 *   <tr><td>timestamp (second, milli, micro, nano) with a time zone</td><td>TIMESTAMP_LTZ(0, 3, 6, 9)</td></tr>
 *   <tr><td>struct</td><td>ROW</td></tr>
 *   <tr><td>list, large list, fixed-size list</td><td>ARRAY</td></tr>
 *   <tr><td>map</td><td>MAP (keys not null)</td></tr>
 * </table>
 *
 * <p>An Arrow field's nullability is the Flink type's, and the reverse. Arrow types Flink has no
 * counterpart for (half floats, decimals wider than 38 digits, time of day in micro- or nanoseconds — Flink's
 * TIME holds milliseconds —, durations, intervals) make {@link #toRowType} throw an {@link
 * InvalidSchemaException} naming the column, its type and what is supported, so the caller can project the
 * column away.
 *
 * <p>Flink to Arrow (tables created from Flink): BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE,
 * DECIMAL(p, s) → decimal128(p, s), CHAR/VARCHAR/STRING → utf8, BINARY(n) → fixed-size binary(n),
 * VARBINARY/BYTES → binary, DATE → date (day), TIME(p) → time (millisecond, 32 bits), TIMESTAMP(p) and
 * TIMESTAMP_LTZ(p) → timestamp of the smallest unit holding p digits (0: second, 1–3: milli, 4–6: micro,
 * 7–9: nano; LTZ with zone {@code UTC}), ROW → struct, ARRAY → list, MAP → map. Other Flink types (MULTISET,
 * intervals, RAW, VARIANT, structured types, ...) throw.
 */
public final class FlinkTypes {
  private FlinkTypes() {}

  private static final String ARROW_SUPPORTED = "bool, int8-64, uint8-64, float32/64, decimal (up to 38 digits),"
      + " utf8, large utf8, binary, large binary, fixed-size binary, date, time (second or millisecond),"
      + " timestamp, struct, list, large list, fixed-size list and map";
  private static final String FLINK_SUPPORTED = "BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL,"
      + " CHAR, VARCHAR/STRING, BINARY, VARBINARY/BYTES, DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ, ROW, ARRAY and MAP";

  // ---------------------------------------------------------------- Arrow to Flink

  /** The Flink row type of an Arrow schema (top-level field order kept; the row itself is not null). */
  public static RowType toRowType(Schema arrow) {
    List<RowType.RowField> fields = new ArrayList<>();
    for (Field f : arrow.getFields()) {
      fields.add(new RowType.RowField(f.getName(), toLogicalType(f, f.getName())));
    }
    return new RowType(false, fields);
  }

  /** The Flink row type of a Quiver schema. */
  public static RowType toRowType(io.quiver.schema.Schema schema) {
    return toRowType(schema.toArrow());
  }

  /** The {@code TypeInformation} of {@code RowData} rows of {@code rowType} (what the source produces). */
  public static TypeInformation<RowData> typeInfo(RowType rowType) {
    return new RowDataTypeInfo(rowType);
  }

  /**
   * The Flink type of an Arrow field (and its children); {@code path} names it in errors.
   *
   * @throws InvalidSchemaException if Flink has no type for it
   */
  public static LogicalType toLogicalType(Field field, String path) {
    boolean n = field.isNullable();
    ArrowType type = field.getType();
    switch (type.getTypeID()) {
      case Bool:
        return new BooleanType(n);
      case Int: {
        ArrowType.Int i = (ArrowType.Int) type;
        switch (i.getBitWidth()) {
          case 8: return i.getIsSigned() ? new TinyIntType(n) : new SmallIntType(n);
          case 16: return i.getIsSigned() ? new SmallIntType(n) : new IntType(n);
          case 32: return i.getIsSigned() ? new IntType(n) : new BigIntType(n);
          default: return i.getIsSigned() ? new BigIntType(n) : new DecimalType(n, 20, 0);
        }
      }
      case FloatingPoint: {
        FloatingPointPrecision p = ((ArrowType.FloatingPoint) type).getPrecision();
        if (p == FloatingPointPrecision.SINGLE) {
          return new FloatType(n);
        }
        if (p == FloatingPointPrecision.DOUBLE) {
          return new DoubleType(n);
        }
        throw unsupported(path, type, "Flink has no half-precision float; store it as float32");
      }
      case Decimal: {
        ArrowType.Decimal d = (ArrowType.Decimal) type;
        if (d.getPrecision() > DecimalType.MAX_PRECISION || d.getScale() < 0 || d.getScale() > d.getPrecision()) {
          throw unsupported(path, type, "Flink decimals hold at most " + DecimalType.MAX_PRECISION
              + " digits with a scale from 0 to the precision");
        }
        return new DecimalType(n, d.getPrecision(), d.getScale());
      }
      case Utf8:
      case LargeUtf8:
        return new VarCharType(n, VarCharType.MAX_LENGTH);
      case Binary:
      case LargeBinary:
        return new VarBinaryType(n, VarBinaryType.MAX_LENGTH);
      case FixedSizeBinary:
        return new BinaryType(n, ((ArrowType.FixedSizeBinary) type).getByteWidth());
      case Date:
        return new DateType(n);
      case Time: {
        TimeUnit unit = ((ArrowType.Time) type).getUnit();
        if (unit == TimeUnit.SECOND) {
          return new TimeType(n, 0);
        }
        if (unit == TimeUnit.MILLISECOND) {
          return new TimeType(n, 3);
        }
        throw unsupported(path, type, "Flink's TIME holds milliseconds, so " + unit.name().toLowerCase()
            + "s would be truncated; store it as time32 (millisecond)");
      }
      case Timestamp: {
        ArrowType.Timestamp t = (ArrowType.Timestamp) type;
        int precision = switch (t.getUnit()) {
          case SECOND -> 0;
          case MILLISECOND -> 3;
          case MICROSECOND -> 6;
          case NANOSECOND -> 9;
        };
        return t.getTimezone() == null ? new TimestampType(n, precision) : new LocalZonedTimestampType(n, precision);
      }
      case Struct: {
        List<RowType.RowField> children = new ArrayList<>();
        for (Field c : field.getChildren()) {
          children.add(new RowType.RowField(c.getName(), toLogicalType(c, path + "." + c.getName())));
        }
        return new RowType(n, children);
      }
      case List:
      case LargeList:
      case FixedSizeList: {
        Field element = field.getChildren().get(0);
        return new ArrayType(n, toLogicalType(element, path + "." + element.getName()));
      }
      case Map: {
        Field entries = field.getChildren().get(0);
        Field key = entries.getChildren().get(0);
        Field value = entries.getChildren().get(1);
        return new MapType(n, toLogicalType(key, path + "." + key.getName()),
            toLogicalType(value, path + "." + value.getName()));
      }
      default:
        throw unsupported(path, type, "Flink has no type for it; project the column away to read the others");
    }
  }

  private static InvalidSchemaException unsupported(String path, ArrowType type, String why) {
    return new InvalidSchemaException("column '" + path + "' has Arrow type " + type
        + ", which the Quiver Flink connector cannot map: " + why + " (supported: " + ARROW_SUPPORTED + ")");
  }

  // ---------------------------------------------------------------- Flink to Arrow

  /** The Arrow schema for a Flink row type (a table created from Flink). */
  public static Schema toArrowSchema(RowType rowType) {
    List<Field> fields = new ArrayList<>();
    for (RowType.RowField f : rowType.getFields()) {
      fields.add(toArrowField(f.getName(), f.getType(), f.getName()));
    }
    return new Schema(fields);
  }

  /**
   * The Arrow field for a Flink column; {@code path} names it in errors.
   *
   * @throws InvalidSchemaException if Quiver stores no counterpart of the type
   */
  public static Field toArrowField(String name, LogicalType type, String path) {
    boolean n = type.isNullable();
    switch (type.getTypeRoot()) {
      case ROW: {
        RowType row = (RowType) type;
        if (row.getFieldCount() == 0) {
          throw new InvalidSchemaException("column '" + path + "' is a ROW without fields, which Quiver cannot"
              + " store (a struct needs at least one field); give it a field or drop the column");
        }
        List<Field> children = new ArrayList<>();
        for (RowType.RowField f : row.getFields()) {
          children.add(toArrowField(f.getName(), f.getType(), path + "." + f.getName()));
        }
        return new Field(name, new FieldType(n, ArrowType.Struct.INSTANCE, null), children);
      }
      case ARRAY: {
        LogicalType element = ((ArrayType) type).getElementType();
        return new Field(name, new FieldType(n, ArrowType.List.INSTANCE, null),
            List.of(toArrowField("element", element, path + ".element")));
      }
      case MAP: {
        MapType m = (MapType) type;
        Field key = toArrowField("key", m.getKeyType().copy(false), path + ".key");
        Field value = toArrowField("value", m.getValueType(), path + ".value");
        Field entries = new Field("entries", new FieldType(false, ArrowType.Struct.INSTANCE, null), List.of(key, value));
        return new Field(name, new FieldType(n, new ArrowType.Map(false), null), List.of(entries));
      }
      default:
        return new Field(name, new FieldType(n, atomic(path, type), null), null);
    }
  }

  private static ArrowType atomic(String path, LogicalType type) {
    switch (type.getTypeRoot()) {
      case BOOLEAN: return ArrowType.Bool.INSTANCE;
      case TINYINT: return new ArrowType.Int(8, true);
      case SMALLINT: return new ArrowType.Int(16, true);
      case INTEGER: return new ArrowType.Int(32, true);
      case BIGINT: return new ArrowType.Int(64, true);
      case FLOAT: return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case DOUBLE: return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DECIMAL: {
        DecimalType d = (DecimalType) type;
        return new ArrowType.Decimal(d.getPrecision(), d.getScale(), 128);
      }
      case CHAR:
      case VARCHAR:
        return ArrowType.Utf8.INSTANCE;
      case BINARY:
        return new ArrowType.FixedSizeBinary(((BinaryType) type).getLength());
      case VARBINARY:
        return ArrowType.Binary.INSTANCE;
      case DATE:
        return new ArrowType.Date(DateUnit.DAY);
      case TIME_WITHOUT_TIME_ZONE:
        return new ArrowType.Time(TimeUnit.MILLISECOND, 32);
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return new ArrowType.Timestamp(unitFor(((TimestampType) type).getPrecision()), null);
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return new ArrowType.Timestamp(unitFor(((LocalZonedTimestampType) type).getPrecision()), "UTC");
      default:
        throw new InvalidSchemaException("column '" + path + "' has Flink type " + type.asSummaryString()
            + ", which Quiver does not store; supported: " + FLINK_SUPPORTED);
    }
  }

  /** The smallest Arrow timestamp unit that holds {@code precision} fractional digits. */
  static TimeUnit unitFor(int precision) {
    if (precision == 0) {
      return TimeUnit.SECOND;
    }
    if (precision <= 3) {
      return TimeUnit.MILLISECOND;
    }
    return precision <= 6 ? TimeUnit.MICROSECOND : TimeUnit.NANOSECOND;
  }
}
