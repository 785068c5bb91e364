package io.quiver.internal.predicate;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.manifest.StatValue;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.ReusableByteArray;

/**
 * Compares a column's non-null value with one literal converted to the column's type. The conversion happens
 * once, at bind time, and is exact: a literal that falls between two representable values (2.5 for an integer
 * column, a nanosecond instant for a second-precision timestamp) compares correctly with both neighbours, and
 * one outside the column type's range compares as above or below every value.
 */
abstract public class ValueComparator {
  /** Negative, zero or positive as the value at {@code row} is below, equal to or above the literal. */
  abstract int compare(FieldVector vector, int row);

  /**
   * Negative, zero or positive as a column statistics bound (docs/format.md §3.1) is below, equal to or above
   * the literal: the same order {@link #compare} applies to values, so pruning by bounds agrees with the filter.
   *
   * @throws IllegalArgumentException if the bound is not of the kind the column's type stores
   */
  abstract int compareBound(StatValue bound);

  /** For floating-point columns: how NaN compares with the literal (NaN is above every number). */
  int compareNaN() {
    throw new IllegalArgumentException("only floating-point values are NaN");
  }

  private static IllegalArgumentException wrongKind(StatValue bound) {
    return new IllegalArgumentException("bound " + bound + " is not of the kind the column stores");
  }

  private static final String SUPPORTED =
      "comparisons work on integer, floating-point, decimal, boolean, string, binary, date and timestamp columns;"
          + " IS NULL works on any column";

  /** Throws unless values of this field can be compared with literals at all. */
  static void checkComparable(String column, Field field) {
    ArrowType t = field.getType();
    if (t instanceof ArrowType.Int || t instanceof ArrowType.FloatingPoint || t instanceof ArrowType.Decimal
        || t instanceof ArrowType.Bool || t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8
        || t instanceof ArrowType.Binary || t instanceof ArrowType.LargeBinary
        || t instanceof ArrowType.FixedSizeBinary || t instanceof ArrowType.Date
        || t instanceof ArrowType.Timestamp) {
      return;
    }
    throw new InvalidArgumentException(
        "cannot compare column '" + column + "' of type " + describe(t) + " with a literal: " + SUPPORTED);
  }

  /**
   * The comparator for {@code literal} against {@code field}'s values.
   *
   * @throws InvalidArgumentException if the literal does not fit the column's type
   */
  static ValueComparator of(String column, Field field, Object literal) {
    checkComparable(column, field);
    ArrowType t = field.getType();
    if (t instanceof ArrowType.Int i) {
      return integer(column, t, literal, i.getBitWidth(), i.getIsSigned());
    }
    if (t instanceof ArrowType.FloatingPoint fp) {
      return floating(column, t, literal, fp.getPrecision());
    }
    if (t instanceof ArrowType.Decimal) {
      return decimal(column, t, literal);
    }
    if (t instanceof ArrowType.Bool) {
      if (!(literal instanceof Boolean b)) {
        throw mismatch(column, t, literal, "a Boolean");
      }
      int lit = b ? 1 : 0;
      return new ValueComparator() {
        @Override
        int compare(FieldVector v, int row) {
          return Integer.compare(((BitVector) v).get(row), lit);
        }

        @Override
        int compareBound(StatValue bound) {
          if (!(bound instanceof StatValue.Bool x)) {
            throw wrongKind(bound);
          }
          return Integer.compare(x.value() ? 1 : 0, lit);
        }
      };
    }
    if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8) {
      if (!(literal instanceof String s)) {
        throw mismatch(column, t, literal, "a String");
      }
      return bytes(s.getBytes(StandardCharsets.UTF_8));
    }
    if (t instanceof ArrowType.Binary || t instanceof ArrowType.LargeBinary) {
      if (!(literal instanceof byte[] b)) {
        throw mismatch(column, t, literal, "a byte[]");
      }
      return bytes(b);
    }
    if (t instanceof ArrowType.FixedSizeBinary) {
      if (!(literal instanceof byte[] b)) {
        throw mismatch(column, t, literal, "a byte[]");
      }
      return new ValueComparator() {
        @Override
        int compare(FieldVector v, int row) {
          byte[] value = ((FixedSizeBinaryVector) v).get(row);
          return java.util.Arrays.compareUnsigned(value, 0, value.length, b, 0, b.length);
        }

        @Override
        int compareBound(StatValue bound) {
          if (!(bound instanceof StatValue.Bytes x)) {
            throw wrongKind(bound);
          }
          return x.compareTo(b, b.length);
        }
      };
    }
    if (t instanceof ArrowType.Date d) {
      if (!(literal instanceof LocalDate date)) {
        throw mismatch(column, t, literal, "a LocalDate");
      }
      switch (d.getUnit()) {
        case DAY:
          return longs(BigInteger.valueOf(date.toEpochDay()), true, false, (v, row) -> ((DateDayVector) v).get(row));
        case MILLISECOND:
          return longs(BigInteger.valueOf(date.toEpochDay()).multiply(BigInteger.valueOf(86_400_000L)), true, false,
              (v, row) -> ((DateMilliVector) v).get(row));
        default:
          throw new IllegalStateException("unknown date unit " + d.getUnit());
      }
    }
    if (t instanceof ArrowType.Timestamp ts) {
      return timestamp(column, ts, literal);
    }
    throw new IllegalStateException("unhandled comparable type " + t);
  }

  // ------------------------------------------------------------------ integers and other 64-bit values

  @FunctionalInterface
  private interface LongGetter {
    long get(FieldVector v, int row);
  }

  /**
   * Values read as longs (unsigned: as unsigned 64-bit) compared with {@code floor} plus, when not {@code
   * exact}, a fraction in (0, 1).
   */
  private static ValueComparator longs(BigInteger floor, boolean exact, boolean unsigned, LongGetter getter) {
    BigInteger min = unsigned ? BigInteger.ZERO : BigInteger.valueOf(Long.MIN_VALUE);
    BigInteger max = unsigned ? BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE) : BigInteger.valueOf(Long.MAX_VALUE);
    if (floor.compareTo(max) > 0) {
      return constant(-1);
    }
    if (floor.compareTo(min) < 0) {
      // floor < min: every value is above floor + fraction (fraction < 1) too.
      return constant(1);
    }
    long bound = floor.longValue();
    return new ValueComparator() {
      @Override
      int compare(FieldVector v, int row) {
        return compareLong(getter.get(v, row));
      }

      private int compareLong(long x) {
        int c = unsigned ? Long.compareUnsigned(x, bound) : Long.compare(x, bound);
        return exact ? c : (c <= 0 ? -1 : 1);
      }

      @Override
      int compareBound(StatValue value) {
        if (value instanceof StatValue.Int i && (!unsigned || i.value() >= 0)) {
          return compareLong(i.value());
        }
        if (value instanceof StatValue.UInt64 u && unsigned) {
          return compareLong(u.bits());
        }
        throw wrongKind(value);
      }
    };
  }

  private static ValueComparator constant(int sign) {
    return new ValueComparator() {
      @Override
      int compare(FieldVector v, int row) {
        return sign;
      }

      @Override
      int compareBound(StatValue bound) {
        return sign;
      }
    };
  }

  private static ValueComparator integer(String column, ArrowType t, Object literal, int bitWidth, boolean signed) {
    BigDecimal exactValue;
    if (literal instanceof Byte || literal instanceof Short || literal instanceof Integer || literal instanceof Long) {
      exactValue = BigDecimal.valueOf(((Number) literal).longValue());
    } else if (literal instanceof BigInteger b) {
      exactValue = new BigDecimal(b);
    } else if (literal instanceof BigDecimal d) {
      exactValue = d;
    } else if (literal instanceof Float || literal instanceof Double) {
      double d = ((Number) literal).doubleValue();
      if (Double.isNaN(d)) {
        throw new InvalidArgumentException(
            "cannot compare integer column '" + column + "' with NaN; NaN is not a number any integer compares with");
      }
      if (Double.isInfinite(d)) {
        return constant(d > 0 ? -1 : 1);
      }
      exactValue = new BigDecimal(d);
    } else {
      throw mismatch(column, t, literal, "a Byte, Short, Integer, Long, BigInteger, BigDecimal, Float or Double");
    }
    BigInteger floor = exactValue.setScale(0, RoundingMode.FLOOR).toBigIntegerExact();
    boolean exact = exactValue.compareTo(new BigDecimal(floor)) == 0;
    long mask = bitWidth >= 64 ? -1L : (1L << bitWidth) - 1;
    LongGetter getter = signed
        ? (v, row) -> ((BaseIntVector) v).getValueAsLong(row)
        : (v, row) -> ((BaseIntVector) v).getValueAsLong(row) & mask;
    return longs(floor, exact, !signed, getter);
  }

  private static ValueComparator timestamp(String column, ArrowType.Timestamp t, Object literal) {
    long seconds;
    int nanos;
    boolean zoned = t.getTimezone() != null && !t.getTimezone().isEmpty();
    if (literal instanceof Instant i) {
      seconds = i.getEpochSecond();
      nanos = i.getNano();
    } else if (literal instanceof LocalDateTime ldt) {
      if (zoned) {
        throw new InvalidArgumentException(
            "column '" + column + "' is a timestamp with time zone " + t.getTimezone() + " but the literal " + ldt
                + " is a LocalDateTime, which names no instant; pass an Instant (or an OffsetDateTime or"
                + " ZonedDateTime)");
      }
      seconds = ldt.toEpochSecond(ZoneOffset.UTC);
      nanos = ldt.getNano();
    } else {
      throw mismatch(column, t, literal, zoned ? "an Instant" : "a LocalDateTime or an Instant (read as UTC)");
    }
    BigInteger totalNanos = BigInteger.valueOf(seconds).multiply(BigInteger.valueOf(1_000_000_000L))
        .add(BigInteger.valueOf(nanos));
    long perUnit;
    switch (t.getUnit()) {
      case SECOND:
        perUnit = 1_000_000_000L;
        break;
      case MILLISECOND:
        perUnit = 1_000_000L;
        break;
      case MICROSECOND:
        perUnit = 1_000L;
        break;
      case NANOSECOND:
        perUnit = 1L;
        break;
      default:
        throw new IllegalStateException("unknown time unit " + t.getUnit());
    }
    BigInteger[] qr = totalNanos.divideAndRemainder(BigInteger.valueOf(perUnit));
    BigInteger floor = qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
    return longs(floor, qr[1].signum() == 0, false, (v, row) -> ((TimeStampVector) v).get(row));
  }

  // ------------------------------------------------------------------ floating point, decimal

  private static ValueComparator floating(String column, ArrowType t, Object literal, FloatingPointPrecision p) {
    if (!(literal instanceof Number)) {
      throw mismatch(column, t, literal, "a numeric (Integer, Long, Float, Double, BigDecimal, ...)");
    }
    double lit = ((Number) literal).doubleValue();
    if (p != FloatingPointPrecision.DOUBLE) {
      // Compare at the column's precision, so that eq("f", 0.1) finds the float 0.1f.
      lit = (float) lit;
    }
    double literalValue = lit;
    return new ValueComparator() {
      @Override
      int compare(FieldVector v, int row) {
        return compareDoubles(((FloatingPointVector) v).getValueAsDouble(row), literalValue);
      }

      @Override
      int compareBound(StatValue bound) {
        if (!(bound instanceof StatValue.Real r)) {
          throw wrongKind(bound);
        }
        return compareDoubles(r.value(), literalValue);
      }

      @Override
      int compareNaN() {
        return compareDoubles(Double.NaN, literalValue);
      }
    };
  }

  /** SQL order: -0.0 equals 0.0; NaN equals NaN and is above every other value. */
  static int compareDoubles(double a, double b) {
    boolean an = Double.isNaN(a);
    boolean bn = Double.isNaN(b);
    if (an || bn) {
      return an && bn ? 0 : an ? 1 : -1;
    }
    return a < b ? -1 : a > b ? 1 : 0;
  }

  private static ValueComparator decimal(String column, ArrowType t, Object literal) {
    BigDecimal lit;
    if (literal instanceof Byte || literal instanceof Short || literal instanceof Integer || literal instanceof Long) {
      lit = BigDecimal.valueOf(((Number) literal).longValue());
    } else if (literal instanceof BigInteger b) {
      lit = new BigDecimal(b);
    } else if (literal instanceof BigDecimal d) {
      lit = d;
    } else if (literal instanceof Float || literal instanceof Double) {
      double d = ((Number) literal).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw new InvalidArgumentException(
            "cannot compare decimal column '" + column + "' with " + d + "; decimals have no NaN or infinity");
      }
      lit = new BigDecimal(literal.toString());
    } else {
      throw mismatch(column, t, literal, "a BigDecimal (or an integer, Float or Double)");
    }
    int scale = ((ArrowType.Decimal) t).getScale();
    return new ValueComparator() {
      @Override
      int compare(FieldVector v, int row) {
        BigDecimal value = v instanceof DecimalVector d ? d.getObject(row) : ((Decimal256Vector) v).getObject(row);
        return value.compareTo(lit);
      }

      @Override
      int compareBound(StatValue bound) {
        if (!(bound instanceof StatValue.Decimal d)) {
          throw wrongKind(bound);
        }
        return new BigDecimal(d.unscaled(), scale).compareTo(lit);
      }
    };
  }

  // ------------------------------------------------------------------ strings and binary

  /** Unsigned lexicographic order of the bytes (for UTF-8, code point order). */
  private static ValueComparator bytes(byte[] lit) {
    return new ValueComparator() {
      private final ThreadLocal<ReusableByteArray> scratch = ThreadLocal.withInitial(ReusableByteArray::new);

      @Override
      int compare(FieldVector v, int row) {
        ReusableByteArray buf = scratch.get();
        ((VariableWidthFieldVector) v).read(row, buf);
        return java.util.Arrays.compareUnsigned(buf.getBuffer(), 0, (int) buf.getLength(), lit, 0, lit.length);
      }

      @Override
      int compareBound(StatValue bound) {
        if (!(bound instanceof StatValue.Bytes x)) {
          throw wrongKind(bound);
        }
        return x.compareTo(lit, lit.length);
      }
    };
  }

  // ------------------------------------------------------------------ errors

  private static InvalidArgumentException mismatch(String column, ArrowType t, Object literal, String expected) {
    return new InvalidArgumentException(
        "cannot compare column '" + column + "' of type " + describe(t) + " with " + Literals.format(literal)
            + " (a " + Literals.typeOf(literal) + "): a " + describe(t) + " column takes " + expected + " literal");
  }

  static String describe(ArrowType t) {
    return t.toString();
  }
}
