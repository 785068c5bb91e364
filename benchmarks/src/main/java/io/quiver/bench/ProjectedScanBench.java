package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.bench.lance.LanceTable;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Session;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.store.CountingObjectStore;
import io.quiver.store.ObjectStores;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Benchmark 2: a scan of one int64 column ({@code id}) of a 32-column table. Besides the time, the setup
 * measures (once, with cold metadata caches) the bytes Quiver fetched from the store per byte of the
 * projected column's Arrow buffers; the target is at most 1.1.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class ProjectedScanBench {
  static final int COLUMNS = 32;

  long rows;
  long expected;
  BufferAllocator allocator;
  Dataset quiver;
  LanceTable lance;

  @Setup(Level.Trial)
  public void setup() throws IOException {
    rows = Bench.size(1_000_000, 10_000_000);
    expected = Scans.expected(rows, 1);
    allocator = new RootAllocator();
    Path table = Tables.quiver("quiver-wide-" + COLUMNS + "-" + rows, BenchData.wideSchema(COLUMNS), rows);
    quiver = Dataset.open(table.toString(), Bench.quiverOptions(allocator));
    Path lanceTable = Tables.lance("lance-wide-" + COLUMNS + "-" + rows, BenchData.wideSchema(COLUMNS), rows,
        Bench.ROWS_PER_FRAGMENT);
    lance = LanceTable.open(allocator, lanceTable);
    Bench.record("ProjectedScanBench", "rows", "table", rows, "rows");
    measureLanceBytes(lanceTable, measureBytes(table));
  }

  /** One cold projected scan through a counting store: bytes fetched / bytes of the column's buffers. */
  private long measureBytes(Path table) throws IOException {
    long columnBytes = 0;
    for (Fragment f : quiver.manifest().fragments()) {
      for (DataFile file : f.files()) {
        try (ArrowFileReader reader = new ArrowFileReader(
            FileChannel.open(table.resolve(file.path()), StandardOpenOption.READ), allocator)) {
          while (reader.loadNextBatch()) {
            columnBytes += reader.getVectorSchemaRoot().getVector("id").getBufferSize();
          }
        }
      }
    }
    CountingObjectStore[] counting = new CountingObjectStore[1];
    ObjectStores registry = Bench.countingFileRegistry(counting);
    DatasetOptions cold = Bench.quiverOptions(allocator).toBuilder()
        .registry(registry)
        .session(new Session(256L << 20))
        .build();
    try (Dataset ds = Dataset.open(table.toString(), cold)) {
      counting[0].reset();
      long rchar = Bench.processBytesRead();
      Scans.check("quiver projected scan", Scans.drain(ds.newScan().columns("id").batchSize(Bench.BATCH_ROWS).open()), expected);
      long syscallBytes = Bench.processBytesRead() - rchar;
      long fetched = counting[0].bytesRead();
      Bench.record("ProjectedScanBench", "bytes read by the process (rchar) / projected", "quiver",
          (double) syscallBytes / columnBytes, "ratio");
      Bench.record("ProjectedScanBench", "bytes fetched from the store", "quiver", fetched, "bytes");
      Bench.record("ProjectedScanBench", "bytes of the projected column's buffers", "table", columnBytes, "bytes");
      Bench.record("ProjectedScanBench", "fetched / projected (target <= 1.1)", "quiver",
          (double) fetched / columnBytes, "ratio");
    }
    return columnBytes;
  }

  /** The same cold scan by Lance (a new handle), measured by the process's read syscalls. */
  private void measureLanceBytes(Path table, long columnBytes) {
    try (LanceTable t = LanceTable.open(allocator, table)) {
      long rchar = Bench.processBytesRead();
      Scans.check("lance projected scan", Scans.drain(t.scanReader(List.of("id"), Bench.BATCH_ROWS)), expected);
      long syscallBytes = Bench.processBytesRead() - rchar;
      Bench.record("ProjectedScanBench", "bytes read by the process (rchar) / projected", "lance",
          (double) syscallBytes / columnBytes, "ratio");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    quiver.close();
    lance.close();
    allocator.close();
  }

  @Benchmark
  public long lance() {
    return Scans.check("lance projected scan", Scans.drain(lance.scanReader(List.of("id"), Bench.BATCH_ROWS)), expected);
  }

  @Benchmark
  public long quiver() {
    return Scans.check("quiver projected scan",
        Scans.drain(quiver.newScan().columns("id").batchSize(Bench.BATCH_ROWS).open()), expected);
  }
}
