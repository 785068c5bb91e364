package io.quiver.manifest;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Statistics of one atomic field over the rows of a data file (or of one of its record batches): every
 * non-null, non-NaN value lies within {@code [lower, upper]} (docs/format.md §3.1).
 *
 * @param fieldId the atomic field's id
 * @param nullCount rows where the field is null (a struct member counts as null where an enclosing struct is)
 * @param nanCount floating-point fields: non-null rows holding NaN; empty for other types (and when unknown)
 * @param lower at most every non-null, non-NaN value; empty when unknown or when there is no such value
 * @param upper at least every non-null, non-NaN value; empty when unknown, when there is no such value, or
 *     when a truncated string or binary bound has no upper bound
 * @param columnBytes bytes of the field's buffers in the file (compressed sizes); 0 when not counted
 */
public record ColumnStats(
    int fieldId, long nullCount, OptionalLong nanCount, Optional<StatValue> lower, Optional<StatValue> upper,
    long columnBytes) {
  public ColumnStats {
    Objects.requireNonNull(nanCount, "nanCount");
    Objects.requireNonNull(lower, "lower");
    Objects.requireNonNull(upper, "upper");
    if (fieldId < 0) {
      throw new IllegalArgumentException("column statistics name field id " + fieldId + "; ids are >= 0");
    }
    if (nullCount < 0 || (nanCount.isPresent() && nanCount.getAsLong() < 0) || columnBytes < 0) {
      throw new IllegalArgumentException(
          "column statistics of field " + fieldId + " have a negative count (nulls " + nullCount + ", NaN "
              + nanCount + ", bytes " + columnBytes + ")");
    }
    if (lower.isPresent() && upper.isPresent() && !lower.get().getClass().equals(upper.get().getClass())) {
      throw new IllegalArgumentException(
          "column statistics of field " + fieldId + " have bounds of two kinds: " + lower.get() + " and " + upper.get());
    }
  }
}
