package io.quiver.internal.read;

import io.quiver.internal.file.DataFileMetadata;
import io.quiver.internal.file.StatValues;
import io.quiver.manifest.ColumnStats;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.FieldBounds;
import io.quiver.manifest.FileStats;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Overlay;
import io.quiver.manifest.StatValue;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.IntFunction;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The {@link FieldBounds} of a field over a fragment, or over the rows of one record batch of it, from the
 * column statistics (docs/format.md §3.1): the base file's (the first data file of the fragment that stores the
 * field, as every read takes it; all null when none does), widened by the statistics of every overlay that
 * stores the field — bounds stay valid under overlays because a field's values in the fragment are among the
 * base file's and the overlays', and under deletions because those only remove rows. A base file or overlay
 * without statistics for the field, or with statistics that contradict the manifest (another row count, a
 * lower bound above the upper one), makes the field unknown.
 */
public final class FragmentBounds {
  private FragmentBounds() {}

  /** Bounds of {@code fieldId} (an atomic field of {@code table}) over all of {@code fragment}'s rows. */
  public static FieldBounds of(Fragment fragment, Schema table, int fieldId) {
    boolean floating = isFloating(table, fieldId);
    DataFile base = baseOf(fragment, fieldId);
    FieldBounds bounds;
    if (base == null) {
      bounds = allNull(fieldId, fragment.physicalRows());
    } else {
      Optional<FileStats> stats = base.stats();
      Optional<ColumnStats> column = base.statsOf(fieldId);
      if (stats.isEmpty() || column.isEmpty() || stats.get().rowCount() != fragment.physicalRows()) {
        return FieldBounds.unknown(fieldId);
      }
      bounds = fromStats(column.get(), stats.get().rowCount(), floating, true);
    }
    return widenByOverlays(bounds, fragment, fieldId, floating, 0, fragment.physicalRows());
  }

  /** {@link #of} for every field id, as the pruner asks: computed on demand. */
  public static IntFunction<FieldBounds> lookup(Fragment fragment, Schema table) {
    return id -> of(fragment, table, id);
  }

  /**
   * Bounds of {@code fieldId} over the physical rows {@code [start, end)} of {@code fragment}, which lie inside
   * one record batch of the base file: that batch's zone statistics (docs/format.md §5.2), widened by the
   * overlays whose coverage of the field meets the rows.
   *
   * @param metadata the base file's metadata (its footer holds the zone statistics)
   */
  static FieldBounds ofRows(Fragment fragment, Schema table, int fieldId, long start, long end,
      java.util.function.Function<DataFile, DataFileMetadata> metadata) {
    boolean floating = isFloating(table, fieldId);
    DataFile base = baseOf(fragment, fieldId);
    FieldBounds bounds;
    if (base == null) {
      bounds = allNull(fieldId, end - start);
    } else {
      DataFileMetadata md = metadata.apply(base);
      Optional<java.util.List<FileStats>> zones = md == null ? Optional.empty() : md.zoneStats();
      if (zones.isEmpty() || md.rowCount() != fragment.physicalRows()) {
        return FieldBounds.unknown(fieldId);
      }
      int batch = batchOf(md, start);
      if (batch < 0 || md.batchStart(batch) + md.batchRowCount(batch) < end) {
        return FieldBounds.unknown(fieldId);
      }
      FileStats zone = zones.get().get(batch);
      Optional<ColumnStats> column = zone.column(base.columnOf(fieldId));
      if (column.isEmpty()) {
        return FieldBounds.unknown(fieldId);
      }
      bounds = fromStats(column.get(), zone.rowCount(), floating, true);
    }
    return widenByOverlays(bounds, fragment, fieldId, floating, start, end);
  }

  private static int batchOf(DataFileMetadata md, long row) {
    int lo = 0;
    int hi = md.batchCount() - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      long s = md.batchStart(mid);
      if (row < s) {
        hi = mid - 1;
      } else if (row >= s + md.batchRowCount(mid)) {
        lo = mid + 1;
      } else {
        return mid;
      }
    }
    return -1;
  }

  /** The data file every read takes {@code fieldId}'s base values from, or null when none stores it. */
  static DataFile baseOf(Fragment fragment, int fieldId) {
    for (DataFile file : fragment.files()) {
      if (file.columnOf(fieldId) >= 0) {
        return file;
      }
    }
    return null;
  }

  private static FieldBounds widenByOverlays(FieldBounds bounds, Fragment fragment, int fieldId, boolean floating,
      long start, long end) {
    for (Overlay overlay : fragment.overlays()) {
      DataFile file = overlay.dataFile();
      int position = file.fieldIds().indexOf(fieldId);
      if (position < 0) {
        continue;
      }
      if (start < end && !overlay.coverage().offsetsFor(position).intersects(start, end)) {
        continue;
      }
      Optional<ColumnStats> column = file.statsOf(fieldId);
      if (column.isEmpty()) {
        return FieldBounds.unknown(fieldId);
      }
      bounds = union(bounds, fromStats(column.get(), file.stats().get().rowCount(), floating, false));
      if (bounds.isUnknown()) {
        return bounds;
      }
    }
    return bounds;
  }

  private static boolean isFloating(Schema table, int fieldId) {
    return table.findField(fieldId).map(Field::type).orElse(null) instanceof ArrowType.FloatingPoint;
  }

  private static FieldBounds allNull(int fieldId, long rows) {
    return new FieldBounds(fieldId, rows > 0, false, OptionalLong.of(rows), OptionalLong.of(0), false,
        Optional.empty(), Optional.empty(), true);
  }

  /** The bounds statistics over {@code rows} rows give; contradictory bounds are dropped (unknown). */
  static FieldBounds fromStats(ColumnStats c, long rows, boolean floating, boolean tight) {
    long nonNull = rows - c.nullCount();
    long nans = c.nanCount().orElse(0);
    boolean mayHaveNan = floating && (c.nanCount().isEmpty() || nans > 0);
    boolean bounded = nonNull - nans > 0;
    Optional<StatValue> lower = bounded ? c.lower() : Optional.empty();
    Optional<StatValue> upper = bounded ? c.upper() : Optional.empty();
    if (lower.isPresent() && upper.isPresent() && StatValues.compare(lower.get(), upper.get()) > 0) {
      lower = Optional.empty();
      upper = Optional.empty();
    }
    return new FieldBounds(c.fieldId(), c.nullCount() > 0, nonNull > 0,
        tight ? OptionalLong.of(c.nullCount()) : OptionalLong.empty(),
        tight && floating ? c.nanCount() : OptionalLong.empty(),
        mayHaveNan, lower, upper, tight);
  }

  /** Bounds of the union of two sets of values. */
  public static FieldBounds union(FieldBounds a, FieldBounds b) {
    boolean aBounded = a.mayHaveValues();
    boolean bBounded = b.mayHaveValues();
    Optional<StatValue> lower = StatValues.union(a.lower(), b.lower(), aBounded, bBounded, -1);
    Optional<StatValue> upper = StatValues.union(a.upper(), b.upper(), aBounded, bBounded, 1);
    return new FieldBounds(a.fieldId(), a.mayHaveNulls() || b.mayHaveNulls(), a.mayHaveValues() || b.mayHaveValues(),
        OptionalLong.empty(), OptionalLong.empty(), a.mayHaveNan() || b.mayHaveNan(), lower, upper, false);
  }
}
