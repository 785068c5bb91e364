package io.quiver.cli;

import java.util.Locale;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** The type names the command line reads ({@code --type}, {@code add-column}) and prints. */
final class Types {
  static final String NAMES =
      "bool, int8, int16, int32, int64, float32, float64, string, binary, date, timestamp (UTC), timestamp_ntz,"
          + " decimal(p,s)";

  private Types() {}

  static ArrowType parse(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT);
    switch (n) {
      case "bool":
      case "boolean":
        return ArrowType.Bool.INSTANCE;
      case "int8":
        return new ArrowType.Int(8, true);
      case "int16":
        return new ArrowType.Int(16, true);
      case "int32":
      case "int":
        return new ArrowType.Int(32, true);
      case "int64":
      case "long":
      case "bigint":
        return new ArrowType.Int(64, true);
      case "float32":
      case "float":
        return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case "float64":
      case "double":
        return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case "string":
      case "utf8":
      case "text":
        return ArrowType.Utf8.INSTANCE;
      case "binary":
        return ArrowType.Binary.INSTANCE;
      case "date":
        return new ArrowType.Date(DateUnit.DAY);
      case "timestamp":
        return new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
      case "timestamp_ntz":
        return new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
      default:
        if (n.matches("decimal\\(\\s*\\d+\\s*,\\s*\\d+\\s*\\)")) {
          String[] ps = n.substring(8, n.length() - 1).split(",");
          return new ArrowType.Decimal(Integer.parseInt(ps[0].trim()), Integer.parseInt(ps[1].trim()), 128);
        }
        throw new UserException("unknown type '" + name + "'; known types: " + NAMES);
    }
  }

  static String name(ArrowType t) {
    if (t instanceof ArrowType.Bool) {
      return "bool";
    }
    if (t instanceof ArrowType.Int i) {
      return (i.getIsSigned() ? "int" : "uint") + i.getBitWidth();
    }
    if (t instanceof ArrowType.FloatingPoint f) {
      return f.getPrecision() == FloatingPointPrecision.SINGLE ? "float32"
          : f.getPrecision() == FloatingPointPrecision.DOUBLE ? "float64" : "float16";
    }
    if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8) {
      return "string";
    }
    if (t instanceof ArrowType.Binary || t instanceof ArrowType.LargeBinary) {
      return "binary";
    }
    if (t instanceof ArrowType.Date) {
      return "date";
    }
    if (t instanceof ArrowType.Timestamp ts) {
      return ts.getTimezone() == null ? "timestamp_ntz" : "timestamp";
    }
    if (t instanceof ArrowType.Decimal d) {
      return "decimal(" + d.getPrecision() + "," + d.getScale() + ")";
    }
    if (t instanceof ArrowType.Struct) {
      return "struct";
    }
    if (t instanceof ArrowType.List) {
      return "list";
    }
    return t.toString().toLowerCase(Locale.ROOT);
  }
}
