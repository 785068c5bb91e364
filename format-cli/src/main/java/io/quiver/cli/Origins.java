package io.quiver.cli;

import java.nio.file.Path;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Where the import's column types came from (inferred from a sample, given by {@code --type}, or the
 * table's), so that a value that does not fit says what to do about it.
 */
final class Origins {
  private final boolean table;
  private final Set<String> given;
  private final int sampleRows;

  private Origins(boolean table, Set<String> given, int sampleRows) {
    this.table = table;
    this.given = given;
    this.sampleRows = sampleRows;
  }

  static Origins table() {
    return new Origins(true, Set.of(), 0);
  }

  static Origins of(Set<String> given, int sampleRows) {
    return new Origins(false, Set.copyOf(given), sampleRows);
  }

  /** The top-level column of a path such as {@code a.b[]}. */
  static String top(String path) {
    int end = path.length();
    int dot = path.indexOf('.');
    int bracket = path.indexOf('[');
    if (dot >= 0) {
      end = dot;
    }
    if (bracket >= 0 && bracket < end) {
      end = bracket;
    }
    return path.substring(0, end);
  }

  /** The one-line error for {@code value} on {@code line} not fitting {@code w}'s type. */
  UserException badValue(Path file, long line, ColumnWriter w, String value) {
    String type = w.typeName();
    String column = top(w.path);
    String nested = column.equals(w.path) ? "" : " (in column '" + column + "')";
    String why;
    if (table) {
      why = "the table's column is " + Types.name(topType(w));
    } else if (given.contains(column)) {
      why = "as --type " + column + "=" + Types.name(topType(w)) + " says";
    } else {
      why = type + " was inferred from the first " + sampleRows + " rows; pass --type " + column + "="
          + (nested.isEmpty() ? suggest(w.vector.getField().getType(), value) : "string")
          + " or a larger --sample-rows";
    }
    return new UserException(file + " line " + line + " column '" + w.path + "'" + nested + ": '" + value
        + "' is not a " + type + " value (" + why + ")");
  }

  private static ArrowType topType(ColumnWriter w) {
    return w.vector.getField().getType();
  }

  /** The narrowest CLI type holding both the inferred type's values and {@code value}. */
  static String suggest(ArrowType inferred, String value) {
    byte[] c = value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    boolean isLong;
    try {
      ColumnWriter.parseLong(c, 0, c.length);
      isLong = true;
    } catch (NumberFormatException e) {
      isLong = false;
    }
    if (inferred instanceof ArrowType.Int && !isLong && ColumnWriter.isDouble(value)) {
      return "float64";
    }
    if (inferred instanceof ArrowType.Int && isLong) {
      return "int64";
    }
    if (inferred instanceof ArrowType.Date) {
      try {
        ColumnWriter.parseTimestampMicros(c, 0, c.length);
        return "timestamp";
      } catch (RuntimeException e) {
        return "string";
      }
    }
    return "string";
  }
}
