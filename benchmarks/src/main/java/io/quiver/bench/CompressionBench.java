package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.bench.lance.LanceTable;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.ScanMetrics;
import io.quiver.dataset.Session;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.store.CountingObjectStore;
import io.quiver.store.ObjectStores;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
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
 * Body compression (data-file format 1.1, issue 17 item 3): benchmark 1's table (id int64, x float64, s utf8,
 * v fixed_size_list&lt;float32, 128&gt;) written four times by Quiver — ZSTD level 1 keeping only buffers it
 * shrinks by a quarter (the default), ZSTD level 3 and level 1 keeping every saving, uncompressed — and once by
 * Lance, from the same generated rows.
 *
 * <ul>
 *   <li>setup: table size on disk of each, Quiver's create time of each, and the bytes a cold projected scan
 *       of the compressible int64 column {@code id} fetched (Quiver: its counting store; Lance: the process's
 *       read syscalls), per byte of the column's Arrow buffers;
 *   <li>{@code scan*}: a full scan of every column by Quiver (each table), Lance, and Arrow's own {@link
 *       ArrowFileReader} (with its compression module) over Quiver's compressed and uncompressed files;
 *   <li>{@code projected*}: the scan of {@code id} alone;
 *   <li>{@code take*}: 1,000 random rows, 3 columns (id, x, s), of the compressed and the uncompressed table
 *       and of Lance: the cost of decompressing whole batches for point reads.
 * </ul>
 *
 * Run by {@code benchmarks/compression/run.sh}, which writes the rows into RESULTS.md's compression section.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class CompressionBench {
  static final List<String> TAKE_COLUMNS = List.of("id", "x", "s");

  long rows;
  long expected;
  long expectedId;
  long[] positions;
  long expectedTake;
  BufferAllocator allocator;
  Dataset zstd;
  Dataset zstdAll;
  Dataset zstd1;
  Dataset plain;
  long[] zstdAddresses;
  long[] plainAddresses;
  long[] zstdAllAddresses;
  List<Path> zstdFiles;
  List<Path> plainFiles;
  LanceTable lance;

  @Setup(Level.Trial)
  public void setup() throws IOException {
    rows = Bench.size(500_000, 10_000_000);
    expected = Scans.expected(rows, 4);
    expectedId = Scans.expected(rows, 1);
    allocator = new RootAllocator();
    Path zstdTable = Tables.quiver("quiver-scan-zstd1-ms25-" + rows, BenchData.scanSchema(), rows,
        Bench.ROWS_PER_FRAGMENT, Map.of("write.compression", "zstd", "write.compression.level", "1",
            "write.compression.min-savings", "0.25"));
    Path zstdAllTable = Tables.quiver("quiver-scan-zstd3-" + rows, BenchData.scanSchema(), rows,
        Bench.ROWS_PER_FRAGMENT, Map.of("write.compression", "zstd", "write.compression.level", "3",
            "write.compression.min-savings", "0"));
    Path zstd1Table = Tables.quiver("quiver-scan-zstd1-" + rows, BenchData.scanSchema(), rows,
        Bench.ROWS_PER_FRAGMENT, Map.of("write.compression", "zstd", "write.compression.level", "1",
            "write.compression.min-savings", "0"));
    Path plainTable = Tables.quiver("quiver-scan-none-" + rows, BenchData.scanSchema(), rows, Bench.ROWS_PER_FRAGMENT,
        Map.of("write.compression", "none"));
    Path lanceTable = Tables.lanceScanTable(rows);
    zstd = Dataset.open(zstdTable.toString(), Bench.quiverOptions(allocator));
    zstdAll = Dataset.open(zstdAllTable.toString(), Bench.quiverOptions(allocator));
    zstd1 = Dataset.open(zstd1Table.toString(), Bench.quiverOptions(allocator));
    plain = Dataset.open(plainTable.toString(), Bench.quiverOptions(allocator));
    lance = LanceTable.open(allocator, lanceTable);
    zstdFiles = files(zstd, zstdTable);
    plainFiles = files(plain, plainTable);
    positions = BenchData.randomRows(rows, TakeBench.TAKE, 7);
    zstdAddresses = Tables.addresses(zstd, positions);
    plainAddresses = Tables.addresses(plain, positions);
    zstdAllAddresses = Tables.addresses(zstdAll, positions);
    for (long p : positions) {
      expectedTake += p;
    }
    Bench.record("CompressionBench", "rows", "table", rows, "rows");
    Bench.record("CompressionBench", "table size on disk", "quiverZstd", Bench.sizeOf(zstdTable), "bytes");
    Bench.record("CompressionBench", "table size on disk", "quiverZstdAll", Bench.sizeOf(zstdAllTable), "bytes");
    Bench.record("CompressionBench", "table size on disk", "quiverZstd1", Bench.sizeOf(zstd1Table), "bytes");
    for (int c = 0; c < BenchData.scanSchema().getFields().size(); c++) {
      String name = BenchData.scanSchema().getFields().get(c).getName();
      Bench.record("CompressionBench", "column " + name + ": stored bytes / uncompressed", "quiverZstdAll",
          (double) columnBytes(zstdAll, name) / columnBytes(plain, name), "ratio");
      Bench.record("CompressionBench", "column " + name + ": stored bytes / uncompressed", "quiverZstd",
          (double) columnBytes(zstd, name) / columnBytes(plain, name), "ratio");
    }
    Bench.record("CompressionBench", "table size on disk", "quiverPlain", Bench.sizeOf(plainTable), "bytes");
    Bench.record("CompressionBench", "table size on disk", "lance", Bench.sizeOf(lanceTable), "bytes");
    long columnBytes = idColumnBytes(plainFiles);
    Bench.record("CompressionBench", "id column's Arrow buffers", "table", columnBytes, "bytes");
    projectedBytes("quiverZstd", zstdTable, columnBytes);
    projectedBytes("quiverPlain", plainTable, columnBytes);
    try (LanceTable t = LanceTable.open(allocator, lanceTable)) {
      long rchar = Bench.processBytesRead();
      Scans.check("lance projected scan", Scans.drain(t.scanReader(List.of("id"), Bench.BATCH_ROWS)), expectedId);
      Bench.record("CompressionBench", "projected scan of id: bytes read / Arrow bytes", "lance",
          (double) (Bench.processBytesRead() - rchar) / columnBytes, "ratio");
    }
  }

  /**
   * Bytes a scan of column {@code column} fetches once the footers are cached (the {@link ScanMetrics} of a
   * second scan): the column's stored bytes, compressed where they are compressed.
   */
  private static long columnBytes(Dataset ds, String column) {
    Scans.drain(ds.newScan().columns(column).batchSize(Bench.BATCH_ROWS).open());
    ScanMetrics metrics = new ScanMetrics();
    Scans.drain(ds.newScan().columns(column).batchSize(Bench.BATCH_ROWS).metrics(metrics).open());
    return metrics.bytesFetched();
  }

  private static List<Path> files(Dataset ds, Path table) {
    List<Path> files = new ArrayList<>();
    for (Fragment f : ds.manifest().fragments()) {
      for (DataFile file : f.files()) {
        files.add(table.resolve(file.path()));
      }
    }
    return files;
  }

  private long idColumnBytes(List<Path> files) throws IOException {
    long bytes = 0;
    for (Path file : files) {
      try (ArrowFileReader reader = new ArrowFileReader(FileChannel.open(file, StandardOpenOption.READ), allocator)) {
        while (reader.loadNextBatch()) {
          bytes += reader.getVectorSchemaRoot().getVector("id").getBufferSize();
        }
      }
    }
    return bytes;
  }

  /** One cold projected scan of {@code id} through a counting store: bytes fetched / the column's Arrow bytes. */
  private void projectedBytes(String system, Path table, long columnBytes) {
    CountingObjectStore[] counting = new CountingObjectStore[1];
    ObjectStores registry = Bench.countingFileRegistry(counting);
    DatasetOptions cold = Bench.quiverOptions(allocator).toBuilder().registry(registry)
        .session(new Session(256L << 20)).build();
    try (Dataset ds = Dataset.open(table.toString(), cold)) {
      counting[0].reset();
      long rchar = Bench.processBytesRead();
      Scans.check("quiver projected scan", Scans.drain(ds.newScan().columns("id").batchSize(Bench.BATCH_ROWS).open()),
          expectedId);
      Bench.record("CompressionBench", "projected scan of id: bytes fetched / Arrow bytes", system,
          (double) counting[0].bytesRead() / columnBytes, "ratio");
      Bench.record("CompressionBench", "projected scan of id: bytes read / Arrow bytes", system,
          (double) (Bench.processBytesRead() - rchar) / columnBytes, "ratio");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    zstd.close();
    zstdAll.close();
    zstd1.close();
    plain.close();
    lance.close();
    allocator.close();
  }

  private long arrowScan(List<Path> files) throws IOException {
    long sum = 0;
    for (Path file : files) {
      try (ArrowReader reader = new ArrowFileReader(FileChannel.open(file, StandardOpenOption.READ), allocator,
          CommonsCompressionFactory.INSTANCE)) {
        sum += Scans.drain(reader);
      }
    }
    return Scans.check("raw Arrow IPC scan", sum, expected);
  }

  private long scan(Dataset ds) {
    return Scans.check("quiver full scan", Scans.drain(ds.newScan().batchSize(Bench.BATCH_ROWS).open()), expected);
  }

  @Benchmark
  public long scanQuiverZstd() {
    return scan(zstd);
  }

  @Benchmark
  public long scanQuiverZstdAll() {
    return scan(zstdAll);
  }

  @Benchmark
  public long scanQuiverZstd1() {
    return scan(zstd1);
  }

  @Benchmark
  public long scanQuiverPlain() {
    return scan(plain);
  }

  @Benchmark
  public long scanLance() {
    return Scans.check("lance full scan", Scans.drain(lance.scanReader(null, Bench.BATCH_ROWS)), expected);
  }

  @Benchmark
  public long scanArrowZstd() throws IOException {
    return arrowScan(zstdFiles);
  }

  @Benchmark
  public long scanArrowPlain() throws IOException {
    return arrowScan(plainFiles);
  }

  @Benchmark
  public long projectedQuiverZstd() {
    return Scans.check("quiver projected scan",
        Scans.drain(zstd.newScan().columns("id").batchSize(Bench.BATCH_ROWS).open()), expectedId);
  }

  @Benchmark
  public long projectedQuiverPlain() {
    return Scans.check("quiver projected scan",
        Scans.drain(plain.newScan().columns("id").batchSize(Bench.BATCH_ROWS).open()), expectedId);
  }

  @Benchmark
  public long projectedLance() {
    return Scans.check("lance projected scan", Scans.drain(lance.scanReader(List.of("id"), Bench.BATCH_ROWS)), expectedId);
  }

  @Benchmark
  public long takeQuiverZstd() {
    try (VectorSchemaRoot root = zstd.take(zstdAddresses, TAKE_COLUMNS)) {
      return TakeBench.check(root, expectedTake);
    }
  }

  @Benchmark
  public long takeQuiverZstdAll() {
    try (VectorSchemaRoot root = zstdAll.take(zstdAllAddresses, TAKE_COLUMNS)) {
      return TakeBench.check(root, expectedTake);
    }
  }

  @Benchmark
  public long takeQuiverPlain() {
    try (VectorSchemaRoot root = plain.take(plainAddresses, TAKE_COLUMNS)) {
      return TakeBench.check(root, expectedTake);
    }
  }

  @Benchmark
  public long takeLance() {
    try (VectorSchemaRoot root = lance.take(positions, TAKE_COLUMNS)) {
      return TakeBench.check(root, expectedTake);
    }
  }
}
