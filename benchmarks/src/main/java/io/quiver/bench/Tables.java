package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.bench.lance.LanceTable;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.RowAddress;
import io.quiver.manifest.Fragment;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/** The cached Quiver and Lance tables the benchmarks read, each built once from {@link BenchData}. */
public final class Tables {
  private Tables() {}

  /** Benchmark 1's table with {@code rows} rows. */
  public static Path quiverScanTable(long rows) {
    return quiver("quiver-scan-" + rows, BenchData.scanSchema(), rows);
  }

  /** Benchmark 1's table in Lance. */
  public static Path lanceScanTable(long rows) {
    return lance("lance-scan-" + rows, BenchData.scanSchema(), rows, Bench.ROWS_PER_FRAGMENT);
  }

  /**
   * A Lance table of {@code rows} rows of {@code schema} in fragments (files) of {@code rowsPerFragment}
   * rows, cached under {@code key}: the same generated rows as the Quiver table of the same shape.
   */
  public static Path lance(String key, Schema schema, long rows, int rowsPerFragment) {
    return Bench.cached(key, dir -> {
      try (BufferAllocator allocator = new RootAllocator()) {
        try (LanceTable table = LanceTable.create(allocator, dir,
            BenchData.reader(allocator, schema, 0, rows, Math.min(rowsPerFragment, Bench.BATCH_ROWS)),
            rowsPerFragment, 0)) {
          if (table.countRows() != rows) {
            throw new IllegalStateException("lance: created " + table.countRows() + " rows, expected " + rows);
          }
        }
      }
    });
  }

  /**
   * Quiver's row addresses (fragment id, offset) of rows at {@code positions} (0-based, in scan order) of
   * a table without deletions; these are the positions Lance's take and update address rows by.
   */
  public static long[] addresses(Dataset ds, long[] positions) {
    List<Fragment> fragments = ds.manifest().fragments();
    long[] addresses = new long[positions.length];
    for (int i = 0; i < positions.length; i++) {
      long left = positions[i];
      boolean found = false;
      for (Fragment f : fragments) {
        if (left < f.physicalRows()) {
          addresses[i] = RowAddress.of(f.id(), left);
          found = true;
          break;
        }
        left -= f.physicalRows();
      }
      if (!found) {
        throw new IllegalArgumentException("row " + positions[i] + " is past the end of " + ds.uri());
      }
    }
    return addresses;
  }

  /** A table of {@code rows} rows of {@code schema}, cached under {@code key}. */
  public static Path quiver(String key, Schema schema, long rows) {
    return quiver(key, schema, rows, Bench.ROWS_PER_FRAGMENT);
  }

  /**
   * A table of {@code rows} rows of {@code schema} in fragments of {@code rowsPerFragment}, with the default
   * table configuration (ZSTD level 1 body compression of buffers it shrinks by a quarter, since format 1.1; the
   * cache key says so, so a table cached before compression is not mistaken for one written with it).
   */
  public static Path quiver(String key, Schema schema, long rows, int rowsPerFragment) {
    return quiver(key + "-zstd1-ms25", schema, rows, rowsPerFragment, Map.of());
  }

  /**
   * A table of {@code rows} rows of {@code schema} in fragments of {@code rowsPerFragment}, created with the
   * table configuration {@code config} (e.g. {@code write.compression = none}), cached under {@code key}. The
   * time the create took is recorded once, when the table is built ("create time", system {@code key}).
   */
  public static Path quiver(String key, Schema schema, long rows, int rowsPerFragment, Map<String, String> config) {
    return Bench.cached(key, dir -> {
      long start = System.nanoTime();
      try (BufferAllocator allocator = new RootAllocator();
          ArrowReader reader = BenchData.reader(allocator, schema, 0, rows, Math.min(rowsPerFragment, Bench.BATCH_ROWS));
          Dataset ds = Dataset.create(dir.toString(), schema, BenchData.batches(reader),
              Bench.quiverOptions(allocator).toBuilder().maxRowsPerFragment(rowsPerFragment).build(), config)) {
        if (ds.countRows() != rows) {
          throw new IllegalStateException("created " + ds.countRows() + " rows, expected " + rows);
        }
      }
      Bench.record("Tables", "create time", key, (System.nanoTime() - start) / 1e6, "ms");
    });
  }
}
