package io.quiver.manifest;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What is known about one atomic field's values over a fragment (or a row range of one) at one version:
 * every live row's value is one the bounds allow. Derived from the column statistics of the fragment's base
 * file and of every overlay that stores the field (docs/format.md §3.1); deletions only remove rows, so they
 * keep the bounds valid. Nothing known is {@link #unknown(int)}.
 *
 * @param fieldId the atomic field's id
 * @param mayHaveNulls whether some row may be null
 * @param mayHaveValues whether some row may hold a non-null value
 * @param nullCount exact null count over the physical rows (deleted rows included) when {@link #tight}
 * @param nanCount exact NaN count (floating-point fields) when {@link #tight}
 * @param mayHaveNan floating-point fields: whether some value may be NaN (always false for other types)
 * @param lower at most every non-null, non-NaN value (empty: unknown or none)
 * @param upper at least every non-null, non-NaN value (empty: unknown or none)
 * @param tight whether the bounds come from the base file's statistics alone (no overlay widened them)
 */
public record FieldBounds(
    int fieldId, boolean mayHaveNulls, boolean mayHaveValues, OptionalLong nullCount, OptionalLong nanCount,
    boolean mayHaveNan, Optional<StatValue> lower, Optional<StatValue> upper, boolean tight) {
  public FieldBounds {
    Objects.requireNonNull(nullCount, "nullCount");
    Objects.requireNonNull(nanCount, "nanCount");
    Objects.requireNonNull(lower, "lower");
    Objects.requireNonNull(upper, "upper");
    if (lower.isPresent() && upper.isPresent() && !lower.get().getClass().equals(upper.get().getClass())) {
      throw new IllegalArgumentException(
          "bounds of field " + fieldId + " are of two kinds: " + lower.get() + " and " + upper.get());
    }
    if ((nullCount.isPresent() && nullCount.getAsLong() < 0) || (nanCount.isPresent() && nanCount.getAsLong() < 0)) {
      throw new IllegalArgumentException("bounds of field " + fieldId + " have a negative count");
    }
  }

  /** Nothing known: any value, null, or NaN. */
  public static FieldBounds unknown(int fieldId) {
    return new FieldBounds(fieldId, true, true, OptionalLong.empty(), OptionalLong.empty(), true, Optional.empty(),
        Optional.empty(), false);
  }

  /** Whether nothing at all is known (what {@link #unknown} returns). */
  public boolean isUnknown() {
    return mayHaveNulls && mayHaveValues && mayHaveNan && lower.isEmpty() && upper.isEmpty() && nullCount.isEmpty();
  }
}
