package io.quiver.dataset;

import io.quiver.exceptions.ValidationException;
import java.util.List;
import java.util.Objects;

/**
 * What {@link Dataset#validate()} found at one version.
 *
 * @param version the version checked
 * @param problems every broken invariant found, in the order checked (empty when the version is valid)
 * @param filesChecked files whose existence and size were checked
 */
public record ValidationReport(long version, List<Problem> problems, long filesChecked) {

  public ValidationReport {
    problems = List.copyOf(problems);
  }

  /** The kinds of problem validation reports. */
  public enum Kind {
    /** A file the manifest references does not exist. */
    MISSING_FILE,
    /** A file's size differs from the size the manifest records (truncated or replaced). */
    SIZE_MISMATCH,
    /** A file could not be decoded (data-file footer, deletion bitmap). */
    CORRUPT_FILE,
    /** A path escapes the table root or lies outside the prefix its kind must use. */
    UNSAFE_PATH,
    /** A data file stores a field id that is not an atomic field of the schema (nor -2). */
    UNKNOWN_FIELD,
    /** A column index is out of range for the data file, or its column's type differs from the field's. */
    COLUMN_MISMATCH,
    /** A data file's row count differs from its fragment's physical rows, or an overlay's from its coverage. */
    ROW_COUNT_MISMATCH,
    /** A non-nullable atomic field is not stored in a fragment. */
    MISSING_REQUIRED_FIELD,
    /** A deletion file holds a different number of offsets than the manifest records. */
    DELETION_COUNT_MISMATCH,
    /** A deletion file deletes an offset at or beyond the fragment's physical rows. */
    DELETION_OUT_OF_RANGE,
    /** An overlay covers an offset at or beyond the fragment's physical rows. */
    OVERLAY_OUT_OF_RANGE,
    /** Overlays are not in non-decreasing committed-version order, or one is newer than the version. */
    OVERLAY_ORDER,
    /** Fragment order or ids, or the max fragment / field id high-water marks, are inconsistent. */
    ID_INCONSISTENT,
    /**
     * Two data files of a fragment that store members of one struct disagree on where the struct is
     * null (possible in tables written before the struct validity rule of docs/format.md §5).
     */
    STRUCT_VALIDITY_MISMATCH,
    /**
     * A file's column or zone statistics contradict themselves or the file's shape: another row count than
     * the file's, a field the file does not store, NaN counted on a field that is not floating point, a lower
     * bound above the upper bound, or a bound of another kind than the field's values (docs/format.md §3.1).
     */
    STATS_INCONSISTENT,
    /**
     * A file's column or zone statistics are not valid for the values it stores: a value below the lower or
     * above the upper bound, or another null or NaN count than the file holds. Pruning on them can skip rows
     * a filter matches.
     */
    STATS_MISMATCH,
    /**
     * A data file's frame table (docs/format.md §5.1) does not describe its ZSTD buffers exactly: it does
     * not parse, misses or lists a buffer wrongly, declares another length, or cuts a buffer where its frames
     * do not start. Readers ignore what they can tell is wrong; a table that lies consistently can make a
     * point read fail, or read another frame's values.
     */
    FRAME_TABLE_MISMATCH,
    /**
     * What a segmented manifest's root says of a segment (docs/format.md §11) does not hold for the fragments
     * the segment file holds: the compression flag, or the per-field bounds a filtered scan trusts to skip the
     * segment. (A segment whose ids or row counts differ from the root's does not load: {@link #CORRUPT_FILE}.)
     */
    SEGMENT_MISMATCH
  }

  /**
   * One broken invariant.
   *
   * @param kind what kind of problem
   * @param location the file's relative path for problems of a file, else {@code fragment N} or {@code
   *     manifest}
   * @param message what was expected and what was found
   */
  public record Problem(Kind kind, String location, String message) {
    public Problem {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(location, "location");
      Objects.requireNonNull(message, "message");
    }

    @Override
    public String toString() {
      return kind + " " + location + ": " + message;
    }
  }

  /** True when no problem was found. */
  public boolean isValid() {
    return problems.isEmpty();
  }

  /** The problems of one kind. */
  public List<Problem> problemsOf(Kind kind) {
    return problems.stream().filter(p -> p.kind() == kind).toList();
  }

  /**
   * Returns this report when valid.
   *
   * @throws ValidationException listing the problems otherwise
   */
  public ValidationReport orThrow() {
    if (isValid()) {
      return this;
    }
    List<String> lines = problems.stream().map(Problem::toString).toList();
    StringBuilder message =
        new StringBuilder("version ").append(version).append(" failed validation with ").append(problems.size())
            .append(problems.size() == 1 ? " problem" : " problems").append(':');
    int shown = Math.min(lines.size(), 20);
    for (int i = 0; i < shown; i++) {
      message.append("\n  ").append(lines.get(i));
    }
    if (shown < lines.size()) {
      message.append("\n  ... and ").append(lines.size() - shown).append(" more");
    }
    message.append("\nReaders of this version may fail or return wrong rows; restore an earlier valid version"
        + " or rewrite the affected fragments.");
    throw new ValidationException(message.toString(), lines);
  }

  @Override
  public String toString() {
    return "ValidationReport[version " + version + ", " + filesChecked + " files checked, "
        + (isValid() ? "valid" : problems.size() + " problems: " + problems) + "]";
  }
}
