package io.quiver.internal.predicate;

import io.quiver.manifest.StatValue;
import java.math.BigDecimal;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * One cell of a vector as a {@link StatValue}: the value in its statistics representation (docs/format.md
 * §3.1), which orders as the predicate evaluator compares and which merge-insert keys are made of.
 */
public final class CellValues {
  private CellValues() {}

  /**
   * Whether cells of {@code type} have a {@link StatValue} here: integers, dates, times, timestamps,
   * durations, booleans, decimals, strings and binaries (not floating point, whose NaN has none, nor nested
   * types).
   */
  public static boolean isKeyType(ArrowType type) {
    return type instanceof ArrowType.Int || type instanceof ArrowType.Date || type instanceof ArrowType.Time
        || type instanceof ArrowType.Timestamp || type instanceof ArrowType.Duration
        || type instanceof ArrowType.Bool || type instanceof ArrowType.Decimal || type instanceof ArrowType.Utf8
        || type instanceof ArrowType.LargeUtf8 || type instanceof ArrowType.Binary
        || type instanceof ArrowType.LargeBinary || type instanceof ArrowType.FixedSizeBinary;
  }

  /** The non-null cell {@code row} of {@code v}, a vector of a {@link #isKeyType key type}. */
  public static StatValue of(FieldVector v, int row) {
    if (v instanceof UInt8Vector u) {
      return new StatValue.UInt64(u.get(row));
    }
    if (v instanceof BitVector b) {
      return new StatValue.Bool(b.get(row) != 0);
    }
    if (v instanceof BaseIntVector i) {
      return new StatValue.Int(i.getValueAsLong(row));
    }
    if (v instanceof FixedSizeBinaryVector fsb) {
      return new StatValue.Bytes(fsb.get(row));
    }
    if (v instanceof VariableWidthFieldVector w) {
      return new StatValue.Bytes(w.get(row));
    }
    if (v.getField().getType() instanceof ArrowType.Decimal) {
      return new StatValue.Decimal(((BigDecimal) v.getObject(row)).unscaledValue());
    }
    if (v instanceof BaseFixedWidthVector f) {
      // Dates, times, timestamps, durations: the stored 32- or 64-bit integer.
      return f.getTypeWidth() == 4 ? new StatValue.Int(f.getDataBuffer().getInt((long) row * 4))
          : new StatValue.Int(f.getDataBuffer().getLong((long) row * 8));
    }
    throw new IllegalArgumentException("no key value for a " + v.getField().getType() + " column");
  }

  /** Floating-point cell {@code row} of {@code v} as a double. */
  static double real(FieldVector v, int row) {
    return ((FloatingPointVector) v).getValueAsDouble(row);
  }
}
