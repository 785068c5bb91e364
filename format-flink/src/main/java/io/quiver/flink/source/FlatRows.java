package io.quiver.flink.source;

import io.quiver.exceptions.InvalidArgumentException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Lifts struct members out of the rows a scan reads: one top-level field per column path, in the order the
 * paths were given ({@code "s.x"} becomes a field holding {@code s}'s member {@code x}, null where {@code s}
 * is). This is the shape Flink SQL's nested projection pushdown expects of a source.
 */
public final class FlatRows implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int[][] positions;
  private final LogicalType[][] types;
  private final RowType producedType;

  private FlatRows(int[][] positions, LogicalType[][] types, RowType producedType) {
    this.positions = positions;
    this.types = types;
    this.producedType = producedType;
  }

  /** The flattening of the rows of {@code read} (what the scan returns) into one field per path. */
  public static FlatRows of(RowType read, List<String> paths) {
    int[][] positions = new int[paths.size()][];
    LogicalType[][] types = new LogicalType[paths.size()][];
    List<RowType.RowField> fields = new ArrayList<>();
    for (int p = 0; p < paths.size(); p++) {
      List<String> names = ColumnPaths.split(paths.get(p));
      positions[p] = new int[names.size()];
      types[p] = new LogicalType[names.size()];
      LogicalType at = read;
      for (int i = 0; i < names.size(); i++) {
        if (!(at instanceof RowType row) || row.getFieldIndex(names.get(i)) < 0) {
          throw new InvalidArgumentException("column path '" + paths.get(p) + "' is not in the rows read ("
              + read.asSummaryString() + ")");
        }
        int index = row.getFieldIndex(names.get(i));
        positions[p][i] = index;
        at = row.getTypeAt(index);
        types[p][i] = at;
      }
      fields.add(new RowType.RowField(String.join("_", names), at));
    }
    return new FlatRows(positions, types, new RowType(false, fields));
  }

  /** The type of the flattened rows. */
  public RowType producedType() {
    return producedType;
  }

  public RowData apply(RowData row) {
    GenericRowData out = new GenericRowData(row.getRowKind(), positions.length);
    for (int p = 0; p < positions.length; p++) {
      out.setField(p, value(row, positions[p], types[p]));
    }
    return out;
  }

  private static Object value(RowData row, int[] path, LogicalType[] types) {
    RowData at = row;
    for (int i = 0; i < path.length - 1; i++) {
      if (at.isNullAt(path[i])) {
        return null;
      }
      at = at.getRow(path[i], ((RowType) types[i]).getFieldCount());
    }
    int last = path.length - 1;
    return RowData.createFieldGetter(types[last], path[last]).getFieldOrNull(at);
  }
}
