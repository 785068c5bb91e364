package io.quiver.schema;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Names of Quiver's system (virtual) columns, which a scan may add next to user columns.
 *
 * <p>Only top-level user fields are checked: system columns are always top-level, so a nested field
 * named {@code _rowid} cannot collide with one. Matching is exact (case-sensitive), as Arrow names are.
 */
public final class ReservedNames {
  /** Stable row id, unaffected by compaction. */
  public static final String ROW_ID = "_rowid";
  /** Physical address (fragment, offset) of a row in the current version. */
  public static final String ROW_ADDR = "_rowaddr";
  /** Position of a row within the scan result. */
  public static final String ROW_OFFSET = "_rowoffset";
  /** Table version that inserted the row. */
  public static final String ROW_CREATED_AT_VERSION = "_row_created_at_version";
  /** Table version that last updated the row. */
  public static final String ROW_LAST_UPDATED_AT_VERSION = "_row_last_updated_at_version";

  /** All reserved names, in a stable order (used in error messages). */
  public static final Set<String> NAMES =
      Collections.unmodifiableSet(
          new LinkedHashSet<>(
              List.of(ROW_ID, ROW_ADDR, ROW_OFFSET, ROW_CREATED_AT_VERSION, ROW_LAST_UPDATED_AT_VERSION)));

  private ReservedNames() {}

  public static boolean isReserved(String name) {
    return name != null && NAMES.contains(name);
  }

  /** The user-facing message for a reserved top-level column name. */
  static String reservedMessage(String name) {
    return "column name '"
        + name
        + "' is reserved for Quiver's system columns ("
        + String.join(", ", NAMES)
        + "); rename the column";
  }
}
