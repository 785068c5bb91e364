package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.dataset.Dataset;
import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/** The cached Quiver tables the benchmarks read, each built once from {@link BenchData}. */
public final class Tables {
  private Tables() {}

  /** Benchmark 1's table with {@code rows} rows. */
  public static Path quiverScanTable(long rows) {
    return quiver("quiver-scan-" + rows, BenchData.scanSchema(), rows);
  }

  /** A table of {@code rows} rows of {@code schema}, cached under {@code key}. */
  public static Path quiver(String key, Schema schema, long rows) {
    return quiver(key, schema, rows, Bench.ROWS_PER_FRAGMENT);
  }

  /** A table of {@code rows} rows of {@code schema} in fragments of {@code rowsPerFragment}. */
  public static Path quiver(String key, Schema schema, long rows, int rowsPerFragment) {
    return Bench.cached(key, dir -> {
      try (BufferAllocator allocator = new RootAllocator();
          ArrowReader reader = BenchData.reader(allocator, schema, 0, rows, Math.min(rowsPerFragment, Bench.BATCH_ROWS));
          Dataset ds = Dataset.create(dir.toString(), reader,
              Bench.quiverOptions(allocator).toBuilder().maxRowsPerFragment(rowsPerFragment).build())) {
        if (ds.countRows() != rows) {
          throw new IllegalStateException("created " + ds.countRows() + " rows, expected " + rows);
        }
      }
    });
  }
}
