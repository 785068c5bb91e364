package io.quiver.spark.types;

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
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Quiver's Arrow types and Spark's SQL types, both ways. The one mapping every part of the connector uses
 * (reads, writes, DDL), so a table created from Spark reads back with the Spark types it was created with.
 *
 * <table>
 *   <caption>Arrow (Quiver) to Spark</caption>
 *   <tr><th>Arrow</th><th>Spark</th></tr>
 *   <tr><td>bool</td><td>boolean</td></tr>
 *   <tr><td>int8, int16, int32, int64</td><td>byte, short, int, long</td></tr>
 *   <tr><td>uint8, uint16, uint32</td><td>short, int, long (widened)</td></tr>
 *   <tr><td>uint64</td><td>decimal(20, 0)</td></tr>
 *   <tr><td>float32, float64</td><td>float, double</td></tr>
 *   <tr><td>decimal128(p, s)</td><td>decimal(p, s)</td></tr>
 *   <tr><td>utf8, large utf8</td><td>string</td></tr>
 *   <tr><td>binary, large binary, fixed-size binary</td><td>binary</td></tr>
 *   <tr><td>date (day or millisecond)</td><td>date</td></tr>
 *   <tr><td>timestamp (any unit) with a time zone</td><td>timestamp (microseconds)</td></tr>
 *   <tr><td>timestamp (any unit) without a time zone</td><td>timestamp_ntz (microseconds)</td></tr>
 *   <tr><td>struct</td><td>struct</td></tr>
 *   <tr><td>list, large list, fixed-size list</td><td>array</td></tr>
 *   <tr><td>map</td><td>map</td></tr>
 * </table>
 *
 * <p>Types Spark has no counterpart for (decimal256 wider than 38 digits, half floats, time of day,
 * durations, intervals, unions) make the column unreadable from Spark: {@link #toSpark} throws an
 * {@link InvalidSchemaException} naming the column and its type, so the caller can project it away.
 *
 * <p>Spark to Arrow (tables created or columns added from Spark): boolean, byte, short, int, long, float,
 * double, decimal(p, s) → decimal128, string → utf8, binary → binary, date → date (day), timestamp →
 * timestamp (microsecond, UTC), timestamp_ntz → timestamp (microsecond, no zone), struct, array → list,
 * map → map (keys non-null).
 */
public final class SparkTypes {
  private SparkTypes() {}

  /** The Spark schema of an Arrow schema, top-level field order kept. */
  public static StructType toSpark(Schema arrow) {
    List<StructField> fields = new ArrayList<>();
    for (Field f : arrow.getFields()) {
      fields.add(toSpark(f, f.getName()));
    }
    return new StructType(fields.toArray(new StructField[0]));
  }

  /** The Spark field of an Arrow field; {@code path} names it in errors. */
  public static StructField toSpark(Field field, String path) {
    return new StructField(field.getName(), toSparkType(field, path), field.isNullable(), Metadata.empty());
  }

  /** Whether Spark can read {@code field} (and all its children). */
  public static boolean readable(Field field) {
    try {
      toSparkType(field, field.getName());
      return true;
    } catch (InvalidSchemaException e) {
      return false;
    }
  }

  private static DataType toSparkType(Field field, String path) {
    ArrowType type = field.getType();
    switch (type.getTypeID()) {
      case Bool:
        return DataTypes.BooleanType;
      case Int: {
        ArrowType.Int i = (ArrowType.Int) type;
        if (i.getIsSigned()) {
          switch (i.getBitWidth()) {
            case 8: return DataTypes.ByteType;
            case 16: return DataTypes.ShortType;
            case 32: return DataTypes.IntegerType;
            default: return DataTypes.LongType;
          }
        }
        switch (i.getBitWidth()) {
          case 8: return DataTypes.ShortType;
          case 16: return DataTypes.IntegerType;
          case 32: return DataTypes.LongType;
          default: return DataTypes.createDecimalType(20, 0);
        }
      }
      case FloatingPoint: {
        FloatingPointPrecision p = ((ArrowType.FloatingPoint) type).getPrecision();
        if (p == FloatingPointPrecision.SINGLE) {
          return DataTypes.FloatType;
        }
        if (p == FloatingPointPrecision.DOUBLE) {
          return DataTypes.DoubleType;
        }
        throw unsupported(path, type, "Spark has no half-precision float; project the column away or store it"
            + " as float32");
      }
      case Decimal: {
        ArrowType.Decimal d = (ArrowType.Decimal) type;
        if (d.getPrecision() > DecimalType.MAX_PRECISION()) {
          throw unsupported(path, type, "Spark decimals hold at most " + DecimalType.MAX_PRECISION() + " digits");
        }
        return DataTypes.createDecimalType(d.getPrecision(), d.getScale());
      }
      case Utf8:
      case LargeUtf8:
        return DataTypes.StringType;
      case Binary:
      case LargeBinary:
      case FixedSizeBinary:
        return DataTypes.BinaryType;
      case Date:
        return DataTypes.DateType;
      case Timestamp:
        return ((ArrowType.Timestamp) type).getTimezone() == null ? DataTypes.TimestampNTZType
            : DataTypes.TimestampType;
      case Struct: {
        List<StructField> children = new ArrayList<>();
        for (Field c : field.getChildren()) {
          children.add(toSpark(c, path + "." + c.getName()));
        }
        return new StructType(children.toArray(new StructField[0]));
      }
      case List:
      case LargeList:
      case FixedSizeList: {
        Field element = field.getChildren().get(0);
        return new ArrayType(toSparkType(element, path + ".element"), element.isNullable());
      }
      case Map: {
        Field entries = field.getChildren().get(0);
        Field key = entries.getChildren().get(0);
        Field value = entries.getChildren().get(1);
        return new MapType(toSparkType(key, path + ".key"), toSparkType(value, path + ".value"),
            value.isNullable());
      }
      default:
        throw unsupported(path, type, "Spark has no type for it; project the column away to read the others");
    }
  }

  private static InvalidSchemaException unsupported(String path, ArrowType type, String why) {
    return new InvalidSchemaException("column '" + path + "' has Arrow type " + type + ", which Spark cannot read: "
        + why);
  }

  // ---------------------------------------------------------------- Spark to Arrow

  /** The Arrow schema for a Spark schema (a table created, or columns added, from Spark). */
  public static Schema toArrow(StructType spark) {
    List<Field> fields = new ArrayList<>();
    for (StructField f : spark.fields()) {
      fields.add(toArrow(f.name(), f.dataType(), f.nullable()));
    }
    return new Schema(fields);
  }

  /** The Arrow field for a Spark column. */
  public static Field toArrow(String name, DataType type, boolean nullable) {
    if (type instanceof StructType s) {
      List<Field> children = new ArrayList<>();
      for (StructField f : s.fields()) {
        children.add(toArrow(f.name(), f.dataType(), f.nullable()));
      }
      return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null), children);
    }
    if (type instanceof ArrayType a) {
      return new Field(name, new FieldType(nullable, ArrowType.List.INSTANCE, null),
          List.of(toArrow("element", a.elementType(), a.containsNull())));
    }
    if (type instanceof MapType m) {
      Field key = toArrow("key", m.keyType(), false);
      Field value = toArrow("value", m.valueType(), m.valueContainsNull());
      Field entries = new Field("entries", new FieldType(false, ArrowType.Struct.INSTANCE, null), List.of(key, value));
      return new Field(name, new FieldType(nullable, new ArrowType.Map(false), null), List.of(entries));
    }
    return new Field(name, new FieldType(nullable, atomic(name, type), null), null);
  }

  private static ArrowType atomic(String name, DataType type) {
    if (type == DataTypes.BooleanType) {
      return ArrowType.Bool.INSTANCE;
    } else if (type == DataTypes.ByteType) {
      return new ArrowType.Int(8, true);
    } else if (type == DataTypes.ShortType) {
      return new ArrowType.Int(16, true);
    } else if (type == DataTypes.IntegerType) {
      return new ArrowType.Int(32, true);
    } else if (type == DataTypes.LongType) {
      return new ArrowType.Int(64, true);
    } else if (type == DataTypes.FloatType) {
      return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
    } else if (type == DataTypes.DoubleType) {
      return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
    } else if (type instanceof DecimalType d) {
      return new ArrowType.Decimal(d.precision(), d.scale(), 128);
    } else if (type == DataTypes.StringType || type instanceof org.apache.spark.sql.types.StringType) {
      return ArrowType.Utf8.INSTANCE;
    } else if (type == DataTypes.BinaryType) {
      return ArrowType.Binary.INSTANCE;
    } else if (type == DataTypes.DateType) {
      return new ArrowType.Date(DateUnit.DAY);
    } else if (type == DataTypes.TimestampType) {
      return new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
    } else if (type == DataTypes.TimestampNTZType) {
      return new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
    }
    throw new InvalidSchemaException("column '" + name + "' has Spark type " + type.sql()
        + ", which Quiver does not store; supported: boolean, byte, short, int, long, float, double, decimal, string,"
        + " binary, date, timestamp, timestamp_ntz, struct, array and map");
  }
}
