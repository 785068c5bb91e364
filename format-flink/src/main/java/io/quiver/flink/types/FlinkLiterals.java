package io.quiver.flink.types;

import java.time.LocalDate;
import java.util.Optional;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * A value as Flink holds it inside {@code RowData} ({@code StringData}, {@code DecimalData}, {@code
 * TimestampData}, days since the epoch for DATE, ...) as the literal a Quiver {@code Predicate} compares a
 * column of that type with.
 */
public final class FlinkLiterals {
  private FlinkLiterals() {}

  /**
   * The Quiver literal of {@code value} (non-null) of Flink type {@code type}; empty for a type Quiver's
   * predicates take no literal of (TIME, FLOAT and DOUBLE aside from equality's pitfalls, ARRAY, MAP, ROW).
   */
  public static Optional<Object> toQuiver(Object value, LogicalType type) {
    return Optional.ofNullable(switch (type.getTypeRoot()) {
      case CHAR, VARCHAR -> ((StringData) value).toString();
      case DECIMAL -> ((DecimalData) value).toBigDecimal();
      case DATE -> LocalDate.ofEpochDay((Integer) value);
      case TIMESTAMP_WITHOUT_TIME_ZONE -> ((TimestampData) value).toLocalDateTime();
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> ((TimestampData) value).toInstant();
      case BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, BINARY, VARBINARY -> value;
      default -> null;
    });
  }

  /** True when {@link #toQuiver} has a literal for values of {@code type}. */
  public static boolean hasLiteral(LogicalType type) {
    return switch (type.getTypeRoot()) {
      case CHAR, VARCHAR, DECIMAL, DATE, TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE, BOOLEAN, TINYINT,
          SMALLINT, INTEGER, BIGINT, BINARY, VARBINARY -> true;
      default -> false;
    };
  }
}
