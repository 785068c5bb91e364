package io.quiver.internal.file;

import io.quiver.manifest.ColumnStats;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.FileStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What {@link DataFileWriter#finish()} published: enough for the table layer to record the file in a
 * manifest without reading it back.
 *
 * @param key the object key the file was published under
 * @param sizeBytes the object's size in bytes
 * @param rowCount rows in the file
 * @param formatMajor data file format major version ({@link DataFileWriter#FORMAT_MAJOR})
 * @param formatMinor data file format minor version ({@link DataFileWriter#FORMAT_MINOR})
 * @param columnStats per atomic column, in column order, its statistics over the file (field id = column index)
 */
public record WrittenFile(String key, long sizeBytes, long rowCount, int formatMajor, int formatMinor,
    List<ColumnStats> columnStats) {
  public WrittenFile {
    columnStats = List.copyOf(columnStats);
  }

  /**
   * The file's statistics keyed by field id, for a file that stores {@code atomicIds} in column order
   * (column {@code i} holds field {@code atomicIds.get(i)}).
   */
  public FileStats statsFor(List<Integer> atomicIds) {
    if (atomicIds.size() != columnStats.size()) {
      throw new IllegalArgumentException(
          "file " + key + " has " + columnStats.size() + " atomic columns but " + atomicIds.size() + " field ids");
    }
    List<ColumnStats> out = new ArrayList<>(columnStats.size());
    for (ColumnStats c : columnStats) {
      out.add(new ColumnStats(atomicIds.get(c.fieldId()), c.nullCount(), c.nanCount(), c.lower(), c.upper(),
          c.columnBytes()));
    }
    return new FileStats(rowCount, out);
  }

  /** The manifest record of this file, storing {@code atomicIds} in column order, with its statistics. */
  public DataFile toDataFile(List<Integer> atomicIds) {
    return DataFile.of(key, atomicIds, sizeBytes, formatMinor).withStats(Optional.of(statsFor(atomicIds)));
  }
}
