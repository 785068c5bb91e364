package io.quiver.flink.table;

import java.util.List;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

/** When a declared Flink type holds the same data as a Quiver column's type. */
final class TypeMatch {
  private TypeMatch() {}

  /**
   * True when {@code a} and {@code b} are equal once nullability (at every level) and the lengths of
   * character and variable binary types are set aside: Quiver stores every string as utf8 and every
   * variable binary as binary, whatever length a DDL declares.
   */
  static boolean sameData(LogicalType a, LogicalType b) {
    return normalize(a).equals(normalize(b));
  }

  private static LogicalType normalize(LogicalType t) {
    if (t instanceof CharType || t instanceof VarCharType) {
      return new VarCharType(true, VarCharType.MAX_LENGTH);
    }
    if (t instanceof VarBinaryType) {
      return new VarBinaryType(true, VarBinaryType.MAX_LENGTH);
    }
    if (t instanceof RowType r) {
      List<RowType.RowField> fields = r.getFields().stream()
          .map(f -> new RowType.RowField(f.getName(), normalize(f.getType())))
          .toList();
      return new RowType(true, fields);
    }
    if (t instanceof ArrayType a) {
      return new ArrayType(true, normalize(a.getElementType()));
    }
    if (t instanceof MapType m) {
      return new MapType(true, normalize(m.getKeyType()), normalize(m.getValueType()));
    }
    return t.copy(true);
  }

  /** True when values of {@code t} have an exact equality, so it can be a key column. */
  static boolean keyable(LogicalType t) {
    LogicalTypeRoot root = t.getTypeRoot();
    return switch (root) {
      case FLOAT, DOUBLE, ARRAY, MAP, MULTISET, ROW, STRUCTURED_TYPE, RAW -> false;
      default -> true;
    };
  }
}
