package io.quiver.internal.file;

import io.quiver.manifest.ColumnStats;
import io.quiver.manifest.FileStats;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Statistics of the values a data file actually stores, read back batch by batch with the collector writers
 * use, but with exact (untruncated) string and binary bounds: what validation checks recorded statistics
 * against. Keyed by atomic column index, like zone statistics (docs/format.md §5.2).
 *
 * @param file the whole file's statistics
 * @param zones per record batch, its statistics
 */
public record ObservedStats(FileStats file, List<FileStats> zones) {
  public ObservedStats {
    zones = List.copyOf(zones);
  }

  /**
   * Reads every atomic column of every record batch of {@code key} (one batch in memory at a time).
   *
   * @throws io.quiver.exceptions.CorruptFileException if a batch does not decode
   */
  public static ObservedStats read(DataFileReader reader, String key, BufferAllocator allocator) {
    DataFileMetadata md = reader.loadAllBatches(key);
    int[] columns = new int[md.atomicColumnCount()];
    for (int c = 0; c < columns.length; c++) {
      columns[c] = c;
    }
    StatsCollector collector = new StatsCollector(md.schema(), false);
    long[] noBytes = new long[columns.length];
    for (int b = 0; b < md.batchCount(); b++) {
      try (VectorSchemaRoot batch = reader.readBatch(key, b, columns, allocator)) {
        collector.addBatch(batch, noBytes);
      }
    }
    List<ColumnStats> fileColumns = collector.fileColumns();
    return new ObservedStats(new FileStats(md.rowCount(), fileColumns), collector.zones());
  }
}
