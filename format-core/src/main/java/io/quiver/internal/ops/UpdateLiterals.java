package io.quiver.internal.ops;

import io.quiver.exceptions.InvalidArgumentException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Writes an update's literal value into a vector of the column's type, converting exactly: a value that
 * does not fit the column (2.5 into an integer column, 300 into int8, a string into a number) is an
 * {@link InvalidArgumentException}, never a silent truncation. Accepted Java types are those predicates
 * accept: Boolean, Byte, Short, Integer, Long, BigInteger, Float, Double, BigDecimal, String, byte[],
 * LocalDate, Instant, LocalDateTime, OffsetDateTime, ZonedDateTime.
 */
final public class UpdateLiterals {
  private UpdateLiterals() {}

  /** Sets {@code vector[index]} to {@code value} (not null) converted to the vector's type. */
  static void set(FieldVector vector, int index, Object value, String column) {
    ArrowType type = vector.getField().getType();
    if (vector instanceof BitVector bits) {
      if (!(value instanceof Boolean b)) {
        throw mismatch(column, type, value);
      }
      bits.setSafe(index, b ? 1 : 0);
    } else if (type instanceof ArrowType.Int t && vector instanceof BaseIntVector ints) {
      BigInteger v = integral(value).orElseThrow(() -> mismatch(column, type, value));
      BigInteger min = t.getIsSigned() ? BigInteger.ONE.shiftLeft(t.getBitWidth() - 1).negate() : BigInteger.ZERO;
      BigInteger max = t.getIsSigned()
          ? BigInteger.ONE.shiftLeft(t.getBitWidth() - 1).subtract(BigInteger.ONE)
          : BigInteger.ONE.shiftLeft(t.getBitWidth()).subtract(BigInteger.ONE);
      if (v.compareTo(min) < 0 || v.compareTo(max) > 0) {
        throw new InvalidArgumentException(
            "value " + value + " for column '" + column + "' is outside the range of " + describe(type) + " ["
                + min + ", " + max + "]");
      }
      ints.setWithPossibleTruncate(index, v.longValue());
    } else if (vector instanceof Float8Vector f8) {
      f8.setSafe(index, floating(column, type, value));
    } else if (vector instanceof Float4Vector f4) {
      double d = floating(column, type, value);
      if (!Double.isNaN(d) && !Double.isInfinite(d) && (float) d != d) {
        throw new InvalidArgumentException(
            "value " + value + " for column '" + column + "' is not exactly representable as float32; pass a Float");
      }
      f4.setSafe(index, (float) d);
    } else if (vector instanceof DecimalVector dec) {
      dec.setSafe(index, decimal(column, (ArrowType.Decimal) type, value));
    } else if (vector instanceof Decimal256Vector dec) {
      dec.setSafe(index, decimal(column, (ArrowType.Decimal) type, value));
    } else if (type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8) {
      if (!(value instanceof CharSequence s)) {
        throw mismatch(column, type, value);
      }
      ((VariableWidthFieldVector) vector).setSafe(index, s.toString().getBytes(StandardCharsets.UTF_8));
    } else if (type instanceof ArrowType.Binary || type instanceof ArrowType.LargeBinary) {
      if (!(value instanceof byte[] b)) {
        throw mismatch(column, type, value);
      }
      ((VariableWidthFieldVector) vector).setSafe(index, b);
    } else if (vector instanceof FixedSizeBinaryVector fixed) {
      if (!(value instanceof byte[] b)) {
        throw mismatch(column, type, value);
      }
      if (b.length != fixed.getByteWidth()) {
        throw new InvalidArgumentException(
            "value for column '" + column + "' has " + b.length + " bytes; the column holds exactly "
                + fixed.getByteWidth());
      }
      fixed.setSafe(index, b);
    } else if (vector instanceof DateDayVector days) {
      if (!(value instanceof LocalDate d)) {
        throw mismatch(column, type, value);
      }
      days.setSafe(index, Math.toIntExact(d.toEpochDay()));
    } else if (vector instanceof DateMilliVector millis) {
      if (!(value instanceof LocalDate d)) {
        throw mismatch(column, type, value);
      }
      millis.setSafe(index, TimeUnit.DAYS.toMillis(d.toEpochDay()));
    } else if (vector instanceof TimeStampVector ts) {
      ts.setSafe(index, timestamp(column, (ArrowType.Timestamp) type, value));
    } else {
      throw new InvalidArgumentException(
          "column '" + column + "' has type " + describe(type) + ", which literal updates do not support; use the"
              + " computed form update(where, inputColumns, outputColumns, fn)");
    }
  }

  private static java.util.Optional<BigInteger> integral(Object value) {
    if (value instanceof Byte || value instanceof Short || value instanceof Integer || value instanceof Long) {
      return java.util.Optional.of(BigInteger.valueOf(((Number) value).longValue()));
    }
    if (value instanceof BigInteger b) {
      return java.util.Optional.of(b);
    }
    if (value instanceof BigDecimal d) {
      try {
        return java.util.Optional.of(d.toBigIntegerExact());
      } catch (ArithmeticException e) {
        return java.util.Optional.empty();
      }
    }
    return java.util.Optional.empty();
  }

  private static double floating(String column, ArrowType type, Object value) {
    if (value instanceof Float f) {
      return f;
    }
    if (value instanceof Double d) {
      return d;
    }
    if (value instanceof Byte || value instanceof Short || value instanceof Integer) {
      return ((Number) value).doubleValue();
    }
    if (value instanceof Long l) {
      if ((long) (double) l != l) {
        throw new InvalidArgumentException(
            "value " + value + " for column '" + column + "' is not exactly representable as " + describe(type));
      }
      return l;
    }
    if (value instanceof BigDecimal d) {
      double v = d.doubleValue();
      if (new BigDecimal(v).compareTo(d) != 0) {
        throw new InvalidArgumentException(
            "value " + value + " for column '" + column + "' is not exactly representable as " + describe(type));
      }
      return v;
    }
    throw mismatch(column, type, value);
  }

  private static BigDecimal decimal(String column, ArrowType.Decimal type, Object value) {
    BigDecimal d;
    if (value instanceof BigDecimal b) {
      d = b;
    } else if (value instanceof BigInteger b) {
      d = new BigDecimal(b);
    } else if (value instanceof Byte || value instanceof Short || value instanceof Integer || value instanceof Long) {
      d = BigDecimal.valueOf(((Number) value).longValue());
    } else {
      throw mismatch(column, type, value);
    }
    BigDecimal scaled;
    try {
      scaled = d.setScale(type.getScale(), RoundingMode.UNNECESSARY);
    } catch (ArithmeticException e) {
      throw new InvalidArgumentException(
          "value " + value + " for column '" + column + "' has more fractional digits than " + describe(type)
              + " holds (scale " + type.getScale() + ")");
    }
    if (scaled.precision() > type.getPrecision()) {
      throw new InvalidArgumentException(
          "value " + value + " for column '" + column + "' needs " + scaled.precision() + " digits; "
              + describe(type) + " holds " + type.getPrecision());
    }
    return scaled;
  }

  private static long timestamp(String column, ArrowType.Timestamp type, Object value) {
    Instant instant;
    if (value instanceof Instant i) {
      instant = i;
    } else if (value instanceof LocalDateTime t) {
      instant = t.toInstant(ZoneOffset.UTC);
    } else if (value instanceof OffsetDateTime t) {
      instant = t.toInstant();
    } else if (value instanceof ZonedDateTime t) {
      instant = t.toInstant();
    } else {
      throw mismatch(column, type, value);
    }
    BigInteger nanos = BigInteger.valueOf(instant.getEpochSecond()).multiply(BigInteger.valueOf(1_000_000_000L))
        .add(BigInteger.valueOf(instant.getNano()));
    long perUnit =
        switch (type.getUnit()) {
          case SECOND -> 1_000_000_000L;
          case MILLISECOND -> 1_000_000L;
          case MICROSECOND -> 1_000L;
          case NANOSECOND -> 1L;
        };
    BigInteger[] qr = nanos.divideAndRemainder(BigInteger.valueOf(perUnit));
    if (qr[1].signum() != 0) {
      throw new InvalidArgumentException(
          "value " + value + " for column '" + column + "' is finer than the column's unit "
              + type.getUnit().name().toLowerCase(java.util.Locale.ROOT) + "; truncate it first");
    }
    try {
      return qr[0].longValueExact();
    } catch (ArithmeticException e) {
      throw new InvalidArgumentException("value " + value + " for column '" + column + "' is out of range");
    }
  }

  private static InvalidArgumentException mismatch(String column, ArrowType type, Object value) {
    return new InvalidArgumentException(
        "value " + value + " (" + (value instanceof byte[] ? "byte[]" : value.getClass().getSimpleName())
            + ") cannot be stored in column '" + column + "' of type " + describe(type)
            + "; pass a value of a matching Java type");
  }

  static String describe(ArrowType type) {
    if (type instanceof ArrowType.Int t) {
      return (t.getIsSigned() ? "int" : "uint") + t.getBitWidth();
    }
    return type.toString();
  }
}
