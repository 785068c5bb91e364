package io.quiver.spark.read;

import io.quiver.predicate.Predicate.Op;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Spark's DSv2 predicates as Quiver predicates. Converted: {@code =, <>, <=>, <, <=, >, >=}, {@code IN},
 * {@code IS NULL}, {@code IS NOT NULL}, {@code AND}, {@code OR}, {@code NOT}, {@code ALWAYS_TRUE} and
 * {@code ALWAYS_FALSE}, over top-level columns and struct members ({@code s.x}) compared with literals.
 * Anything else (functions, column-to-column comparisons, null literals, collated strings, members of
 * lists or maps, metadata columns) is not converted, so Spark evaluates it after the scan.
 *
 * <p>The conversion is exact: Quiver's filter returns exactly the rows for which the Spark predicate is
 * true (both use SQL's three-valued logic), so a converted predicate needs no re-evaluation by Spark.
 * Literals take the Java type of the column's Spark type: {@code UTF8String} → {@code String}, {@code
 * Decimal} → {@code BigDecimal}, date days → {@code LocalDate}, timestamp micros → {@code Instant}
 * (timestamp) or {@code LocalDateTime} (timestamp_ntz), binary → {@code byte[]}. Where Spark sees a
 * truncated value (a nanosecond timestamp read as microseconds, a millisecond date read as days), a
 * comparison becomes the equivalent range on the stored value.
 */
public final class SparkPredicates {
  private SparkPredicates() {}

  /** The Quiver predicate equivalent to {@code p} over {@code schema}, or empty when there is none. */
  public static Optional<io.quiver.predicate.Predicate> toQuiver(Predicate p, StructType schema) {
    return toQuiver(p, schema, null);
  }

  /**
   * Like {@link #toQuiver(Predicate, StructType)}, knowing the stored Arrow schema: comparisons on columns
   * whose stored values Spark truncates (nanosecond timestamps, millisecond dates) become ranges.
   */
  public static Optional<io.quiver.predicate.Predicate> toQuiver(Predicate p, StructType schema,
      org.apache.arrow.vector.types.pojo.Schema arrow) {
    try {
      return Optional.ofNullable(convert(p, schema, arrow));
    } catch (RuntimeException e) {
      // A literal Quiver refuses, or an expression shape we do not know: Spark evaluates it instead.
      return Optional.empty();
    }
  }

  private static io.quiver.predicate.Predicate convert(Predicate p, StructType schema,
      org.apache.arrow.vector.types.pojo.Schema arrow) {
    Expression[] c = p.children();
    switch (p.name()) {
      case "ALWAYS_TRUE":
        return io.quiver.predicate.Predicate.TRUE;
      case "ALWAYS_FALSE":
        return io.quiver.predicate.Predicate.FALSE;
      case "AND":
      case "OR": {
        io.quiver.predicate.Predicate l = convertChild(c[0], schema, arrow);
        io.quiver.predicate.Predicate r = convertChild(c[1], schema, arrow);
        if (l == null || r == null) {
          return null;
        }
        return p.name().equals("AND") ? io.quiver.predicate.Predicate.and(l, r)
            : io.quiver.predicate.Predicate.or(l, r);
      }
      case "NOT": {
        io.quiver.predicate.Predicate child = convertChild(c[0], schema, arrow);
        return child == null ? null : io.quiver.predicate.Predicate.not(child);
      }
      case "IS_NULL":
      case "IS_NOT_NULL": {
        Column col = column(c[0], schema, arrow);
        if (col == null) {
          return null;
        }
        return p.name().equals("IS_NULL") ? io.quiver.predicate.Predicate.isNull(col.path)
            : io.quiver.predicate.Predicate.isNotNull(col.path);
      }
      case "IN": {
        Column col = column(c[0], schema, arrow);
        if (col == null || !col.comparable()) {
          return null;
        }
        List<Object> values = new ArrayList<>();
        for (int i = 1; i < c.length; i++) {
          Object v = literal(c[i], col.type);
          if (v == null) {
            return null; // a null in the list makes a non-match unknown, which Quiver's IN cannot say
          }
          values.add(v);
        }
        if (col.truncated()) {
          List<io.quiver.predicate.Predicate> ranges = new ArrayList<>();
          for (Object v : values) {
            ranges.add(truncatedCompare(col, Op.EQ, v));
          }
          return io.quiver.predicate.Predicate.or(ranges);
        }
        return io.quiver.predicate.Predicate.in(col.path, values);
      }
      case "=":
      case "<>":
      case "<":
      case "<=":
      case ">":
      case ">=":
      case "<=>": {
        boolean flipped = !(c[0] instanceof NamedReference);
        Expression ref = flipped ? c[1] : c[0];
        Expression lit = flipped ? c[0] : c[1];
        Column col = column(ref, schema, arrow);
        if (col == null || !col.comparable()) {
          return null;
        }
        Object v = literal(lit, col.type);
        if (p.name().equals("<=>")) {
          if (lit instanceof Literal<?> l && l.value() == null) {
            return io.quiver.predicate.Predicate.isNull(col.path);
          }
          if (v == null) {
            return null;
          }
          // Null-safe: false (never unknown) where the column is null.
          return io.quiver.predicate.Predicate.and(io.quiver.predicate.Predicate.isNotNull(col.path),
              compare(col, Op.EQ, v));
        }
        if (v == null) {
          return null;
        }
        Op op = op(p.name());
        return compare(col, flipped ? flip(op) : op, v);
      }
      default:
        return null;
    }
  }

  private static io.quiver.predicate.Predicate convertChild(Expression e, StructType schema,
      org.apache.arrow.vector.types.pojo.Schema arrow) {
    return e instanceof Predicate p ? convert(p, schema, arrow) : null;
  }

  private static Op op(String name) {
    switch (name) {
      case "=": return Op.EQ;
      case "<>": return Op.NE;
      case "<": return Op.LT;
      case "<=": return Op.LE;
      case ">": return Op.GT;
      case ">=": return Op.GE;
      default: throw new IllegalArgumentException(name);
    }
  }

  private static Op flip(Op op) {
    switch (op) {
      case LT: return Op.GT;
      case LE: return Op.GE;
      case GT: return Op.LT;
      case GE: return Op.LE;
      default: return op;
    }
  }

  private static io.quiver.predicate.Predicate compare(Column col, Op op, Object v) {
    return col.truncated() ? truncatedCompare(col, op, v) : io.quiver.predicate.Predicate.compare(col.path, op, v);
  }

  /**
   * {@code floor(stored) op v} on a column Spark reads truncated, as a comparison of the stored value with
   * {@code v} and with its successor {@code next} (the smallest value Spark reads as above {@code v}).
   */
  private static io.quiver.predicate.Predicate truncatedCompare(Column col, Op op, Object v) {
    Object next = successor(v);
    String c = col.path;
    switch (op) {
      case EQ:
        return io.quiver.predicate.Predicate.and(io.quiver.predicate.Predicate.ge(c, v),
            io.quiver.predicate.Predicate.lt(c, next));
      case NE:
        return io.quiver.predicate.Predicate.or(io.quiver.predicate.Predicate.lt(c, v),
            io.quiver.predicate.Predicate.ge(c, next));
      case LT:
        return io.quiver.predicate.Predicate.lt(c, v);
      case LE:
        return io.quiver.predicate.Predicate.lt(c, next);
      case GT:
        return io.quiver.predicate.Predicate.ge(c, next);
      case GE:
        return io.quiver.predicate.Predicate.ge(c, v);
      default:
        throw new IllegalStateException(op.name());
    }
  }

  private static Object successor(Object v) {
    if (v instanceof LocalDate d) {
      return d.plusDays(1);
    }
    if (v instanceof Instant i) {
      return i.plus(1, ChronoUnit.MICROS);
    }
    if (v instanceof LocalDateTime t) {
      return t.plus(1, ChronoUnit.MICROS);
    }
    throw new IllegalStateException("no successor for " + v);
  }

  // ---------------------------------------------------------------- columns

  /** A column path resolved in the Spark schema, and its stored Arrow field when known. */
  private record Column(String path, DataType type, Field arrow) {
    boolean comparable() {
      return type instanceof BooleanType || type instanceof ByteType || type instanceof ShortType
          || type instanceof IntegerType || type instanceof LongType || type instanceof FloatType
          || type instanceof DoubleType || type instanceof DecimalType || type instanceof BinaryType
          || type instanceof DateType || type instanceof TimestampType || type instanceof TimestampNTZType
          || (type instanceof StringType s && s.isUTF8BinaryCollation());
    }

    /** Whether Spark reads the stored values truncated (so comparisons become ranges). */
    boolean truncated() {
      if (arrow == null) {
        return false;
      }
      ArrowType t = arrow.getType();
      if (t instanceof ArrowType.Date d) {
        return d.getUnit() == DateUnit.MILLISECOND;
      }
      return t instanceof ArrowType.Timestamp ts && ts.getUnit() == TimeUnit.NANOSECOND;
    }
  }

  /** The column a reference names: a top-level column or a struct member; null for anything else. */
  private static Column column(Expression e, StructType schema, org.apache.arrow.vector.types.pojo.Schema arrow) {
    if (!(e instanceof NamedReference ref)) {
      return null;
    }
    String[] names = ref.fieldNames();
    if (names.length == 0) {
      return null;
    }
    StringBuilder path = new StringBuilder();
    DataType type = schema;
    List<Field> arrowLevel = arrow == null ? null : arrow.getFields();
    Field arrowField = null;
    for (int i = 0; i < names.length; i++) {
      if (!(type instanceof StructType struct)) {
        return null; // inside a list, a map or a scalar
      }
      StructField found = null;
      for (StructField f : struct.fields()) {
        if (f.name().equals(names[i])) {
          found = f;
          break;
        }
      }
      if (found == null) {
        return null; // a metadata column, or not in the schema
      }
      type = found.dataType();
      path.append(i == 0 ? "" : ".").append(quote(found.name()));
      if (arrowLevel != null) {
        arrowField = null;
        for (Field f : arrowLevel) {
          if (f.getName().equals(found.name())) {
            arrowField = f;
            break;
          }
        }
        arrowLevel = arrowField == null ? null : arrowField.getChildren();
      }
    }
    return new Column(path.toString(), type, arrowField);
  }

  /** A name as a Quiver path segment: between backticks when it holds '.' or '`'. */
  static String quote(String name) {
    if (name.indexOf('.') < 0 && name.indexOf('`') < 0) {
      return name;
    }
    return "`" + name.replace("`", "``") + "`";
  }

  // ---------------------------------------------------------------- literals

  /** The Java literal for a Spark literal compared with a column of {@code type}; null when there is none. */
  private static Object literal(Expression e, DataType type) {
    if (!(e instanceof Literal<?> lit) || lit.value() == null) {
      return null;
    }
    Object v = lit.value();
    DataType lt = lit.dataType();
    if (type instanceof DecimalType) {
      if (v instanceof Decimal d) {
        return d.toJavaBigDecimal();
      }
      if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
        return BigDecimal.valueOf(((Number) v).longValue());
      }
      return null;
    }
    if (!lt.sameType(type) && !(lt instanceof StringType && type instanceof StringType)) {
      return null;
    }
    if (type instanceof BooleanType || type instanceof ByteType || type instanceof ShortType
        || type instanceof IntegerType || type instanceof LongType || type instanceof FloatType
        || type instanceof DoubleType) {
      return v;
    }
    if (type instanceof StringType) {
      return v instanceof UTF8String s ? s.toString() : v instanceof String s ? s : null;
    }
    if (type instanceof BinaryType) {
      return v instanceof byte[] b ? b.clone() : null;
    }
    if (type instanceof DateType) {
      return v instanceof Integer days ? LocalDate.ofEpochDay(days) : null;
    }
    if (type instanceof TimestampType) {
      return v instanceof Long micros ? Instant.EPOCH.plus(micros, ChronoUnit.MICROS) : null;
    }
    if (type instanceof TimestampNTZType) {
      return v instanceof Long micros
          ? LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
              (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC)
          : null;
    }
    return null;
  }
}
