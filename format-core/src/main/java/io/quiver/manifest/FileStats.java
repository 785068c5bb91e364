package io.quiver.manifest;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Column statistics of one data file, computed while it was written (docs/format.md §3.1).
 *
 * @param rowCount rows in the file
 * @param columns at most one entry per field id; a field of the file without an entry is unknown
 */
public record FileStats(long rowCount, List<ColumnStats> columns) {
  public FileStats {
    columns = List.copyOf(columns);
    if (rowCount < 0) {
      throw new IllegalArgumentException("file statistics have a negative row count " + rowCount);
    }
    Set<Integer> seen = new HashSet<>();
    for (ColumnStats c : columns) {
      if (!seen.add(c.fieldId())) {
        throw new IllegalArgumentException("file statistics list field " + c.fieldId() + " twice");
      }
      long nans = c.nanCount().orElse(0);
      if (c.nullCount() > rowCount || nans > rowCount - c.nullCount()) {
        throw new IllegalArgumentException(
            "file statistics of field " + c.fieldId() + " count " + c.nullCount() + " nulls and " + nans
                + " NaN in " + rowCount + " rows");
      }
    }
  }

  /** The statistics of {@code fieldId}, if recorded. */
  public Optional<ColumnStats> column(int fieldId) {
    for (ColumnStats c : columns) {
      if (c.fieldId() == fieldId) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /** These statistics without the entries of {@code ids} (fields tombstoned in the file). */
  public FileStats without(java.util.Collection<Integer> ids) {
    List<ColumnStats> kept = columns.stream().filter(c -> !ids.contains(c.fieldId())).toList();
    return kept.size() == columns.size() ? this : new FileStats(rowCount, kept);
  }
}
