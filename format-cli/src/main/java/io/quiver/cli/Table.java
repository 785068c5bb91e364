package io.quiver.cli;

import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.util.Text;

/** Text output helpers: aligned columns and display values of Arrow cells. */
final class Table {
  private Table() {}

  /** Prints rows with each column padded to its widest cell; {@code header} may be null. */
  static void aligned(PrintWriter out, String[] header, List<String[]> rows) {
    aligned(out, "", header, rows);
  }

  /** {@link #aligned(PrintWriter, String[], List)} with every line starting with {@code indent}. */
  static void aligned(PrintWriter out, String indent, String[] header, List<String[]> rows) {
    int columns = header != null ? header.length : rows.isEmpty() ? 0 : rows.get(0).length;
    int[] width = new int[columns];
    if (header != null) {
      for (int c = 0; c < columns; c++) {
        width[c] = header[c].length();
      }
    }
    for (String[] r : rows) {
      for (int c = 0; c < columns; c++) {
        width[c] = Math.max(width[c], r[c].length());
      }
    }
    if (header != null) {
      line(out, indent, header, width);
      String[] rule = new String[columns];
      for (int c = 0; c < columns; c++) {
        rule[c] = "-".repeat(width[c]);
      }
      line(out, indent, rule, width);
    }
    for (String[] r : rows) {
      line(out, indent, r, width);
    }
  }

  private static void line(PrintWriter out, String indent, String[] cells, int[] width) {
    StringBuilder b = new StringBuilder(indent);
    for (int c = 0; c < cells.length; c++) {
      if (c > 0) {
        b.append("  ");
      }
      b.append(c == cells.length - 1 ? cells[c] : pad(cells[c], width[c]));
    }
    out.println(b.toString().stripTrailing());
  }

  private static String pad(String s, int width) {
    return s + " ".repeat(width - s.length());
  }

  /** The cell's value as a JSON-friendly Java object: Number, Boolean, String, or null. */
  static Object value(FieldVector v, int row) {
    if (v.isNull(row)) {
      return null;
    }
    if (v instanceof DateDayVector d) {
      return LocalDate.ofEpochDay(d.get(row)).toString();
    }
    if (v instanceof DateMilliVector d) {
      return LocalDate.ofEpochDay(Math.floorDiv(d.get(row), 86_400_000L)).toString();
    }
    if (v instanceof TimeStampVector ts) {
      ArrowType.Timestamp t = (ArrowType.Timestamp) v.getField().getType();
      long raw = ts.get(row);
      Instant i = t.getUnit() == TimeUnit.SECOND ? Instant.ofEpochSecond(raw)
          : t.getUnit() == TimeUnit.MILLISECOND ? Instant.ofEpochMilli(raw)
          : t.getUnit() == TimeUnit.MICROSECOND ? Instant.ofEpochSecond(Math.floorDiv(raw, 1_000_000L),
              Math.floorMod(raw, 1_000_000L) * 1000)
          : Instant.ofEpochSecond(Math.floorDiv(raw, 1_000_000_000L), Math.floorMod(raw, 1_000_000_000L));
      return t.getTimezone() == null ? i.toString().replace("Z", "") : i.toString();
    }
    if (v instanceof VarBinaryVector b) {
      return java.util.HexFormat.of().formatHex(b.get(row));
    }
    Object o = v.getObject(row);
    if (o instanceof Text t) {
      return t.toString();
    }
    if (o instanceof byte[] bytes) {
      return new String(bytes, StandardCharsets.UTF_8);
    }
    if (o instanceof Number || o instanceof Boolean || o instanceof BigDecimal) {
      return o;
    }
    return o.toString();
  }

  static String text(FieldVector v, int row) {
    Object o = value(v, row);
    return o == null ? "null" : o.toString();
  }
}
