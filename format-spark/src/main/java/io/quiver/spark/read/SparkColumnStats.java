package io.quiver.spark.read;

import io.quiver.dataset.ScanTask;
import io.quiver.dataset.TaskStatistics;
import io.quiver.manifest.FieldBounds;
import io.quiver.manifest.StatValue;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.spark.sql.connector.expressions.FieldReference;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.read.colstats.ColumnStatistics;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Spark's per-column statistics of a scan (docs/spark.md, "Statistics"), merged from the planned tasks'
 * {@link TaskStatistics}: for each top-level, non-struct column read, the least lower bound and greatest upper
 * bound over the tasks (none when any task's bound is unknown, or, for the maximum of a floating-point column,
 * when a task may hold NaN, which Spark orders above every number), and the sum of null counts over the
 * tasks' fragments (each fragment once; none when any is unknown). Null counts cover the fragments' physical
 * rows, so they are at least the nulls the scan returns. Values are in Spark's internal representation of
 * the column's type, as the connector reads it ({@link ArrowVectors}).
 */
final class SparkColumnStats {
  private SparkColumnStats() {}

  /** One column's merged statistics. */
  private record Column(OptionalLong nullCount, Optional<Object> min, Optional<Object> max)
      implements ColumnStatistics {}

  static Map<NamedReference, ColumnStatistics> of(List<ScanTask> tasks, Schema schema, StructType readSchema) {
    Map<NamedReference, ColumnStatistics> out = new LinkedHashMap<>();
    if (tasks.isEmpty()) {
      return out;
    }
    for (StructField column : readSchema.fields()) {
      Optional<Field> field = schema.findTopLevel(column.name());
      if (field.isEmpty() || field.get().isStruct()) {
        continue;
      }
      merge(tasks, field.get()).ifPresent(c -> out.put(FieldReference.column(column.name()), c));
    }
    return out;
  }

  private static Optional<Column> merge(List<ScanTask> tasks, Field field) {
    boolean nullsKnown = true;
    long nulls = 0;
    Set<Long> fragments = new HashSet<>();
    boolean boundsKnown = true;
    boolean maxKnown = true;
    boolean anyValues = false;
    Object min = null;
    Object max = null;
    for (ScanTask task : tasks) {
      Optional<FieldBounds> found = task.statistics().field(field.id());
      if (found.isEmpty()) {
        return Optional.empty();
      }
      FieldBounds b = found.get();
      if (fragments.add(task.fragmentId())) {
        OptionalLong n = b.mayHaveNulls() ? b.nullCount() : OptionalLong.of(0);
        nullsKnown &= n.isPresent();
        nulls += n.orElse(0);
      }
      if (!b.mayHaveValues()) {
        continue;
      }
      anyValues = true;
      maxKnown &= !b.mayHaveNan();
      Object lower = b.lower().map(v -> toSpark(field.type(), v)).orElse(null);
      Object upper = b.upper().map(v -> toSpark(field.type(), v)).orElse(null);
      if (lower == null || upper == null) {
        boundsKnown = false;
        continue;
      }
      min = min == null || compare(lower, min) < 0 ? lower : min;
      max = max == null || compare(upper, max) > 0 ? upper : max;
    }
    boolean bounded = boundsKnown && anyValues;
    return Optional.of(new Column(nullsKnown ? OptionalLong.of(nulls) : OptionalLong.empty(),
        bounded ? Optional.of(min) : Optional.empty(), bounded && maxKnown ? Optional.of(max) : Optional.empty()));
  }

  /**
   * A bound as Spark's internal value of the column's type, or null when the type has no Spark bound here
   * (time, duration, interval, lists, maps) or the value does not fit (a second-precision timestamp beyond
   * Spark's microsecond range). Conversions that lose precision (nanoseconds, date milliseconds) floor, as
   * reads do; flooring keeps a bound a bound.
   */
  static Object toSpark(ArrowType type, StatValue value) {
    if (type instanceof ArrowType.Int i && value instanceof StatValue.Int v) {
      long x = v.value();
      if (!i.getIsSigned()) {
        return switch (i.getBitWidth()) {
          case 8 -> (short) x;
          case 16 -> (int) x;
          default -> x;
        };
      }
      return switch (i.getBitWidth()) {
        case 8 -> (byte) x;
        case 16 -> (short) x;
        case 32 -> (int) x;
        default -> x;
      };
    }
    if (type instanceof ArrowType.Int && value instanceof StatValue.UInt64 u) {
      return Decimal.apply(new BigDecimal(new BigInteger(Long.toUnsignedString(u.bits()))), 20, 0);
    }
    if (type instanceof ArrowType.FloatingPoint fp && value instanceof StatValue.Real r) {
      return switch (fp.getPrecision()) {
        case SINGLE -> (float) r.value();
        case DOUBLE -> r.value();
        default -> null;
      };
    }
    if (type instanceof ArrowType.Bool && value instanceof StatValue.Bool b) {
      return b.value();
    }
    if (type instanceof ArrowType.Decimal d && value instanceof StatValue.Decimal v
        && d.getPrecision() <= org.apache.spark.sql.types.DecimalType.MAX_PRECISION()) {
      return Decimal.apply(new BigDecimal(v.unscaled(), d.getScale()), d.getPrecision(), d.getScale());
    }
    if ((type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8) && value instanceof StatValue.Bytes b) {
      return UTF8String.fromBytes(b.value());
    }
    if ((type instanceof ArrowType.Binary || type instanceof ArrowType.LargeBinary
        || type instanceof ArrowType.FixedSizeBinary) && value instanceof StatValue.Bytes b) {
      return b.value();
    }
    if (type instanceof ArrowType.Date d && value instanceof StatValue.Int v) {
      return d.getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? (int) v.value()
          : (int) Math.floorDiv(v.value(), 86_400_000L);
    }
    if (type instanceof ArrowType.Timestamp ts && value instanceof StatValue.Int v) {
      try {
        return switch (ts.getUnit()) {
          case SECOND -> Math.multiplyExact(v.value(), 1_000_000L);
          case MILLISECOND -> Math.multiplyExact(v.value(), 1_000L);
          case MICROSECOND -> v.value();
          case NANOSECOND -> Math.floorDiv(v.value(), 1_000L);
        };
      } catch (ArithmeticException e) {
        return null;
      }
    }
    return null;
  }

  /** Order of two internal values of one column type (strings: UTF-8 bytes; binary: unsigned bytes). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(Object a, Object b) {
    if (a instanceof byte[] x && b instanceof byte[] y) {
      return Arrays.compareUnsigned(x, y);
    }
    if (a instanceof Decimal x && b instanceof Decimal y) {
      return x.compare(y);
    }
    return ((Comparable) a).compareTo(b);
  }
}
