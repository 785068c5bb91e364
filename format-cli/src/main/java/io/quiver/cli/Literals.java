package io.quiver.cli;

import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Converts a literal written on the command line to the Java value a column of the table expects. */
final class Literals {
  private Literals() {}

  /** {@code raw} (Long, BigInteger, BigDecimal, String or Boolean) as a value for {@code column}. */
  static Object convert(Object raw, String column, Schema schema) {
    Optional<Field> field = schema == null ? Optional.empty() : schema.findField(column);
    if (field.isEmpty()) {
      return raw instanceof BigDecimal d ? (Object) d.doubleValue() : raw;
    }
    ArrowType type = field.get().type();
    try {
      if (type instanceof ArrowType.Int) {
        if (raw instanceof Long || raw instanceof BigInteger) {
          return raw;
        }
        if (raw instanceof BigDecimal d) {
          return d.toBigIntegerExact();
        }
      } else if (type instanceof ArrowType.FloatingPoint) {
        if (raw instanceof Number n) {
          return n.doubleValue();
        }
      } else if (type instanceof ArrowType.Decimal) {
        if (raw instanceof Number n) {
          return new BigDecimal(n.toString());
        }
      } else if (type instanceof ArrowType.Bool) {
        if (raw instanceof Boolean) {
          return raw;
        }
      } else if (type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8) {
        if (raw instanceof String) {
          return raw;
        }
      } else if (type instanceof ArrowType.Date) {
        if (raw instanceof String s) {
          return LocalDate.parse(s);
        }
      } else if (type instanceof ArrowType.Timestamp ts) {
        if (raw instanceof String s) {
          return ts.getTimezone() != null ? Instant.parse(s) : (Object) LocalDateTime.parse(s);
        }
      } else {
        return raw;
      }
    } catch (ArithmeticException | DateTimeParseException e) {
      // fall through to the mismatch below
    }
    throw new UserException("type mismatch: column '" + column + "' is " + Types.name(type) + " but the value "
        + describe(raw) + " is not" + hint(type));
  }

  private static String describe(Object raw) {
    return raw instanceof String s ? "'" + s + "' (text)" : String.valueOf(raw);
  }

  private static String hint(ArrowType type) {
    if (type instanceof ArrowType.Date) {
      return "; write a date as 'YYYY-MM-DD'";
    }
    if (type instanceof ArrowType.Timestamp) {
      return "; write a timestamp as '2024-01-31T12:00:00Z' (or without Z for a zoneless column)";
    }
    if (type instanceof ArrowType.Utf8) {
      return "; quote text: 'like this'";
    }
    return "";
  }
}
