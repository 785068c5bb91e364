package io.quiver.flink.sink;

import java.io.Serializable;
import java.util.HexFormat;
import java.util.List;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The primary key of rows of one row type: its columns' positions and types, each row's key as a canonical
 * string (equal keys, equal strings — also across processes, so it keys Flink's shuffle), and the key columns
 * alone as a row. Rows read back from Quiver ({@code ArrowRowDataReader}) and rows Flink hands the sink hold
 * values the same way, so their keys compare equal exactly when the key values are.
 */
final class UpsertKeys implements Serializable {
  private static final long serialVersionUID = 1L;

  private final List<String> columns;
  private final int[] positions;
  private final LogicalType[] types;
  private final RowType keyType;
  /** Getters of the key columns in a full row, and in a key row. */
  private final RowData.FieldGetter[] inRow;
  private final RowData.FieldGetter[] inKeyRow;

  UpsertKeys(RowType rowType, List<String> columns) {
    this.columns = List.copyOf(columns);
    this.positions = new int[columns.size()];
    this.types = new LogicalType[columns.size()];
    RowType.RowField[] fields = new RowType.RowField[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      int at = rowType.getFieldIndex(columns.get(i));
      if (at < 0) {
        throw new io.quiver.exceptions.InvalidArgumentException("primary key column '" + columns.get(i)
            + "' is not a column of " + rowType.asSummaryString());
      }
      positions[i] = at;
      types[i] = rowType.getTypeAt(at);
      fields[i] = new RowType.RowField(columns.get(i), types[i]);
    }
    this.keyType = new RowType(false, List.of(fields));
    this.inRow = new RowData.FieldGetter[types.length];
    this.inKeyRow = new RowData.FieldGetter[types.length];
    for (int i = 0; i < types.length; i++) {
      inRow[i] = RowData.createFieldGetter(types[i], positions[i]);
      inKeyRow[i] = RowData.createFieldGetter(types[i], i);
    }
  }

  /** The key columns' names. */
  List<String> columns() {
    return columns;
  }

  /** The row type of the key columns alone. */
  RowType keyType() {
    return keyType;
  }

  LogicalType type(int i) {
    return types[i];
  }

  /** The key of {@code row} (a row of the full row type). */
  String of(RowData row) {
    return canonical(row, inRow);
  }

  /** The key of {@code keyRow} (a row of {@link #keyType()}). */
  String ofKeyRow(RowData keyRow) {
    return canonical(keyRow, inKeyRow);
  }

  /** The key columns of {@code row}, as a row of {@link #keyType()}. */
  RowData keyRow(RowData row) {
    GenericRowData out = new GenericRowData(types.length);
    for (int i = 0; i < types.length; i++) {
      out.setField(i, inRow[i].getFieldOrNull(row));
    }
    return out;
  }

  private String canonical(RowData row, RowData.FieldGetter[] getters) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < types.length; i++) {
      if (i > 0) {
        sb.append('\u0000');
      }
      Object v = getters[i].getFieldOrNull(row);
      if (v == null) {
        sb.append("\u0001null");
      } else if (v instanceof byte[] b) {
        sb.append(HexFormat.of().formatHex(b));
      } else if (v instanceof DecimalData d) {
        sb.append(d.toBigDecimal().toPlainString());
      } else {
        sb.append(v); // numbers, booleans, StringData, TimestampData (its full precision)
      }
    }
    return sb.toString();
  }
}
