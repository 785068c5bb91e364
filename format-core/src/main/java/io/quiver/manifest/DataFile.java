package io.quiver.manifest;

import io.quiver.store.Keys;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * One Arrow IPC file holding some atomic columns of a fragment.
 *
 * @param path relative path under {@code data/}
 * @param fieldIds ids of the atomic fields stored, in file column order; {@link #TOMBSTONE} marks a
 *     field superseded in place
 * @param columnIndices for each entry of {@code fieldIds}, its atomic column index in the file
 * @param formatMajor data-file format major version (1 = Arrow IPC file)
 * @param formatMinor data-file format minor version: 0 uncompressed, 1 ({@link #COMPRESSED_MINOR}) record
 *     batch bodies may be compressed (Arrow IPC buffer compression)
 * @param sizeBytes file size, which bounds every range a reader fetches
 * @param baseId reserved for files under another base location
 * @param stats column statistics computed while the file was written (docs/format.md §3.1); empty when
 *     unknown (files written before statistics existed). Never needed to read the file, only to skip it
 */
public record DataFile(
    String path,
    List<Integer> fieldIds,
    List<Integer> columnIndices,
    int formatMajor,
    int formatMinor,
    long sizeBytes,
    OptionalInt baseId,
    Optional<FileStats> stats) {

  /** Field id marking a column whose field was superseded in place. */
  public static final int TOMBSTONE = -2;

  /** Data-file format this library writes and reads. */
  public static final int CURRENT_MAJOR = 1;

  /** The minor of an uncompressed data file; what {@link #of(String, List, long)} records. */
  public static final int CURRENT_MINOR = 0;

  /** Data-file format 1.1: record batch bodies may be compressed (ZSTD or LZ4_FRAME buffers). */
  public static final int COMPRESSED_MINOR = 1;

  /** Prefix of every data-file path. */
  public static final String DATA_PREFIX = "data/";

  public DataFile {
    requirePath(path, DATA_PREFIX, "data file");
    fieldIds = List.copyOf(fieldIds);
    columnIndices = List.copyOf(columnIndices);
    if (fieldIds.size() != columnIndices.size()) {
      throw new IllegalArgumentException(
          "data file " + path + " lists " + fieldIds.size() + " field ids but " + columnIndices.size()
              + " column indices; they must pair up");
    }
    Set<Integer> seenIds = new HashSet<>();
    Set<Integer> seenColumns = new HashSet<>();
    for (int i = 0; i < fieldIds.size(); i++) {
      int id = fieldIds.get(i);
      int column = columnIndices.get(i);
      if (id < 0 && id != TOMBSTONE) {
        throw new IllegalArgumentException("data file " + path + " has invalid field id " + id);
      }
      if (id >= 0 && !seenIds.add(id)) {
        throw new IllegalArgumentException("data file " + path + " lists field id " + id + " twice");
      }
      if (column < 0 || !seenColumns.add(column)) {
        throw new IllegalArgumentException(
            "data file " + path + " has invalid or repeated column index " + column);
      }
    }
    if (sizeBytes < 0) {
      throw new IllegalArgumentException("data file " + path + " has negative size " + sizeBytes);
    }
    if (formatMajor < 1) {
      throw new IllegalArgumentException("data file " + path + " has format major " + formatMajor);
    }
    baseId = baseId == null ? OptionalInt.empty() : baseId;
    stats = stats == null ? Optional.empty() : stats;
  }

  /** A data file without statistics (unknown). */
  public DataFile(String path, List<Integer> fieldIds, List<Integer> columnIndices, int formatMajor, int formatMinor,
      long sizeBytes, OptionalInt baseId) {
    this(path, fieldIds, columnIndices, formatMajor, formatMinor, sizeBytes, baseId, Optional.empty());
  }

  /** This file with {@code value} as its statistics (empty: unknown). */
  public DataFile withStats(Optional<FileStats> value) {
    return new DataFile(path, fieldIds, columnIndices, formatMajor, formatMinor, sizeBytes, baseId, value);
  }

  /**
   * The statistics of {@code fieldId} in this file, when the file stores it (live) and recorded them; empty
   * when unknown.
   */
  public Optional<ColumnStats> statsOf(int fieldId) {
    if (fieldId < 0 || columnOf(fieldId) < 0) {
      return Optional.empty();
    }
    return stats.flatMap(s -> s.column(fieldId));
  }

  /** An uncompressed data file (format 1.0) that stores the given fields in order, column i for field i. */
  public static DataFile of(String path, List<Integer> fieldIds, long sizeBytes) {
    return of(path, fieldIds, sizeBytes, CURRENT_MINOR);
  }

  /** A data file of format {@code 1.formatMinor} that stores the given fields in order, column i for field i. */
  public static DataFile of(String path, List<Integer> fieldIds, long sizeBytes, int formatMinor) {
    List<Integer> columns = java.util.stream.IntStream.range(0, fieldIds.size()).boxed().toList();
    return new DataFile(path, fieldIds, columns, CURRENT_MAJOR, formatMinor, sizeBytes, OptionalInt.empty());
  }

  /** Whether record batch bodies of this file may be compressed (format 1.1 and later minors). */
  public boolean mayBeCompressed() {
    return formatMinor >= COMPRESSED_MINOR;
  }

  /** The atomic column index holding {@code fieldId}, or -1 when this file does not store it. */
  public int columnOf(int fieldId) {
    int i = fieldIds.indexOf(fieldId);
    return i < 0 ? -1 : columnIndices.get(i);
  }

  /** This file with the given field ids replaced by {@link #TOMBSTONE} (column indices unchanged). */
  public DataFile withTombstones(java.util.Collection<Integer> ids) {
    List<Integer> marked = fieldIds.stream().map(id -> ids.contains(id) ? TOMBSTONE : id).toList();
    return marked.equals(fieldIds)
        ? this
        : new DataFile(path, marked, columnIndices, formatMajor, formatMinor, sizeBytes, baseId,
            stats.map(s -> s.without(ids)));
  }

  /** Live (not tombstoned) field ids, in file order. */
  public List<Integer> liveFieldIds() {
    return fieldIds.stream().filter(id -> id >= 0).toList();
  }

  /** True when at least one entry is a live (not tombstoned) field. */
  public boolean hasLiveFields() {
    return fieldIds.stream().anyMatch(id -> id >= 0);
  }

  static void requirePath(String path, String prefix, String what) {
    if (path == null || !Keys.isValid(path) || !path.startsWith(prefix)) {
      throw new IllegalArgumentException(
          what + " path '" + path + "' is not a relative path under " + prefix
              + " inside the table root");
    }
  }
}
