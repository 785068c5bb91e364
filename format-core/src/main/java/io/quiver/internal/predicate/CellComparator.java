package io.quiver.internal.predicate;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.file.StatValues;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/** Compares two non-null cells of one row, for {@link io.quiver.predicate.Predicate.ColumnComparison}. */
abstract class CellComparator {
  /** The sign of {@code left[row]} compared with {@code right[row]}. */
  abstract int compare(FieldVector left, FieldVector right, int row);

  /**
   * The comparator for two columns: of one type, or both integers, or both floating point.
   *
   * @throws InvalidArgumentException if the two types do not compare
   */
  static CellComparator of(String leftName, Field left, String rightName, Field right) {
    ArrowType l = left.getType();
    ArrowType r = right.getType();
    if (l instanceof ArrowType.FloatingPoint && r instanceof ArrowType.FloatingPoint) {
      return new CellComparator() {
        @Override
        int compare(FieldVector a, FieldVector b, int row) {
          return ValueComparator.compareDoubles(CellValues.real(a, row), CellValues.real(b, row));
        }
      };
    }
    boolean comparable = (l instanceof ArrowType.Int li && r instanceof ArrowType.Int ri && !isUInt64(li) && !isUInt64(ri))
        || l.equals(r);
    if (!comparable || !CellValues.isKeyType(l)) {
      throw new InvalidArgumentException(
          "cannot compare column '" + leftName + "' (" + ValueComparator.describe(l) + ") with column '" + rightName
              + "' (" + ValueComparator.describe(r) + "); compare columns of one type (any integers, or any"
              + " floating-point numbers, compare with each other)");
    }
    return new CellComparator() {
      @Override
      int compare(FieldVector a, FieldVector b, int row) {
        return StatValues.compare(CellValues.of(a, row), CellValues.of(b, row));
      }
    };
  }

  private static boolean isUInt64(ArrowType.Int t) {
    return !t.getIsSigned() && t.getBitWidth() == 64;
  }
}
