package io.quiver.spark.write;

import io.quiver.dataset.Dataset;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.util.Text;

/** Reads a table back through Quiver's Java API ({@code Dataset.newScan()}), cells as plain Java values. */
final class QuiverReadBack {
  private QuiverReadBack() {}

  /** Every row of the latest version, each a list of normalized cells, sorted by column {@code sortBy}. */
  static List<List<Object>> rows(String uri, int sortBy) {
    List<List<Object>> out = new ArrayList<>();
    try (Dataset ds = Dataset.open(uri); ArrowReader reader = ds.newScan().open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            row.add(norm(v.getObject(i)));
          }
          out.add(row);
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    out.sort((a, b) -> compare(a.get(sortBy), b.get(sortBy)));
    return out;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(Object a, Object b) {
    if (a instanceof Comparable ca && b != null && a.getClass() == b.getClass()) {
      return ca.compareTo(b);
    }
    return String.valueOf(a).compareTo(String.valueOf(b));
  }

  static List<Object> column(String uri, int column) {
    return rows(uri, column).stream().map(r -> r.get(column)).toList();
  }

  static Object norm(Object o) {
    if (o == null) {
      return null;
    }
    if (o instanceof Text t) {
      return t.toString();
    }
    if (o instanceof byte[] b) {
      return "0x" + HexFormat.of().formatHex(b);
    }
    if (o instanceof BigDecimal d) {
      return d.toPlainString();
    }
    if (o instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      for (Object e : l) {
        out.add(norm(e));
      }
      return out;
    }
    if (o instanceof Map<?, ?> m) {
      Map<Object, Object> out = new LinkedHashMap<>();
      m.forEach((k, v) -> out.put(norm(k), norm(v)));
      return out;
    }
    return o;
  }
}
