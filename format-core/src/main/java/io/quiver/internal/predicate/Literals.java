package io.quiver.internal.predicate;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.predicate.Predicate;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.Arrays;
import java.util.HexFormat;

/** Checks, copies, compares and prints predicate literals. */
final public class Literals {
  private Literals() {}

  static final String ACCEPTED =
      "Boolean, Byte, Short, Integer, Long, BigInteger, Float, Double, BigDecimal, String, byte[], LocalDate,"
          + " Instant, LocalDateTime, OffsetDateTime, ZonedDateTime";

  static public String checkColumn(String column) {
    if (column == null || column.isEmpty()) {
      throw new InvalidArgumentException("a predicate needs a column name, got " + (column == null ? "null" : "''"));
    }
    return column;
  }

  /** The literal as the predicate stores it; rejects nulls and unsupported types. */
  static public Object normalize(String column, Object value) {
    if (value == null) {
      throw new InvalidArgumentException(
          "null literal for column '" + column + "': a comparison with null is never true; use"
              + " Predicate.isNull(\"" + column + "\") or isNotNull");
    }
    if (value instanceof Boolean || value instanceof Byte || value instanceof Short || value instanceof Integer
        || value instanceof Long || value instanceof BigInteger || value instanceof Float || value instanceof Double
        || value instanceof BigDecimal || value instanceof String || value instanceof LocalDate
        || value instanceof Instant || value instanceof LocalDateTime) {
      return value;
    }
    if (value instanceof byte[] bytes) {
      return bytes.clone();
    }
    if (value instanceof CharSequence s) {
      return s.toString();
    }
    if (value instanceof OffsetDateTime t) {
      return t.toInstant();
    }
    if (value instanceof ZonedDateTime t) {
      return t.toInstant();
    }
    throw new InvalidArgumentException(
        "literal " + value + " for column '" + column + "' is a " + value.getClass().getName()
            + ", which predicates do not support; use one of " + ACCEPTED);
  }

  static public Object copy(Object value) {
    return value instanceof byte[] b ? b.clone() : value;
  }

  static public boolean equal(Object a, Object b) {
    if (a instanceof byte[] x && b instanceof byte[] y) {
      return Arrays.equals(x, y);
    }
    return a.equals(b);
  }

  static public int hash(Object value) {
    return value instanceof byte[] b ? Arrays.hashCode(b) : value.hashCode();
  }

  /** The literal as SQL would write it. */
  static public String format(Object value) {
    if (value instanceof String s) {
      return "'" + s.replace("'", "''") + "'";
    }
    if (value instanceof byte[] b) {
      return "X'" + HexFormat.of().withUpperCase().formatHex(b) + "'";
    }
    if (value instanceof Boolean b) {
      return b ? "TRUE" : "FALSE";
    }
    if (value instanceof BigDecimal d) {
      return d.toPlainString();
    }
    if (value instanceof LocalDate d) {
      return "DATE '" + d + "'";
    }
    if (value instanceof Instant || value instanceof LocalDateTime) {
      return "TIMESTAMP '" + value + "'";
    }
    if (value instanceof Float f && (f.isNaN() || f.isInfinite())) {
      return "'" + f + "'";
    }
    if (value instanceof Double d && (d.isNaN() || d.isInfinite())) {
      return "'" + d + "'";
    }
    return String.valueOf(value);
  }

  /** A short description of the literal's type for error messages. */
  static String typeOf(Object value) {
    return value instanceof byte[] ? "byte[]" : value.getClass().getSimpleName();
  }
}
