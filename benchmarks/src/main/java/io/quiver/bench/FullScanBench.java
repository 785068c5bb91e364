package io.quiver.bench;

import io.quiver.bench.lance.LanceTable;
import io.quiver.dataset.Dataset;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
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
 * Benchmark 1: a full scan of every column (id int64, x float64, s utf8, v fixed_size_list&lt;float32,
 * 128&gt;) by Quiver, by Lance and by Arrow's own {@link ArrowFileReader} over Quiver's data files (the
 * physical limit of Quiver's format). Every scan's checksum is checked against the table's contents.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class FullScanBench {
  long rows;
  long expected;
  BufferAllocator allocator;
  Dataset quiver;
  List<Path> quiverFiles;
  LanceTable lance;

  @Setup(Level.Trial)
  public void setup() {
    rows = Bench.size(500_000, 10_000_000);
    expected = Scans.expected(rows, 4);
    allocator = new RootAllocator();
    Path table = Tables.quiverScanTable(rows);
    quiver = Dataset.open(table.toString(), Bench.quiverOptions(allocator));
    quiverFiles = new ArrayList<>();
    for (Fragment f : quiver.manifest().fragments()) {
      for (DataFile file : f.files()) {
        quiverFiles.add(table.resolve(file.path()));
      }
    }
    lance = LanceTable.open(allocator, Tables.lanceScanTable(rows));
    Bench.record("FullScanBench", "rows", "table", rows, "rows");
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    quiver.close();
    lance.close();
    allocator.close();
  }

  @Benchmark
  public long quiver() {
    return Scans.check("quiver full scan", Scans.drain(quiver.newScan().batchSize(Bench.BATCH_ROWS).open()), expected);
  }

  @Benchmark
  public long lance() {
    return Scans.check("lance full scan", Scans.drain(lance.scanReader(null, Bench.BATCH_ROWS)), expected);
  }

  @Benchmark
  public long arrow() throws IOException {
    long sum = 0;
    for (Path file : quiverFiles) {
      try (ArrowReader reader = new ArrowFileReader(FileChannel.open(file, StandardOpenOption.READ), allocator)) {
        sum += Scans.drain(reader);
      }
    }
    return Scans.check("raw Arrow IPC scan", sum, expected);
  }
}
