package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.bench.lance.LanceTable;
import io.quiver.dataset.Dataset;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Benchmark 10: the full scan of benchmark 1 (its rows in 8 fragments) decoded on {@code threads} threads of the scan's own
 * ({@code Scanner.parallelism}), in scan order ({@code ordered=true}) or as batches come ({@code false}), beside
 * Lance's scan of the same rows (which uses its own thread pool whatever the parameters). {@code threads=1} is
 * the sequential scan: the rows of one parameter set against another give the parallel speed-up.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class ParallelScanBench {
  @Param({"1", "2"})
  public int threads;

  @Param({"true", "false"})
  public boolean ordered;

  long expected;
  BufferAllocator allocator;
  Dataset quiver;
  LanceTable lance;

  @Setup(Level.Trial)
  public void setup() {
    long rows = Bench.size(500_000, 10_000_000);
    expected = Scans.expected(rows, 4);
    allocator = new RootAllocator();
    // Benchmark 1's rows in 8 fragments (its own table holds 1M-row fragments: one, in the quick profile).
    int perFragment = (int) (rows / 8);
    quiver = Dataset.open(Tables.quiver("quiver-scan8-" + rows, BenchData.scanSchema(), rows, perFragment).toString(),
        Bench.quiverOptions(allocator));
    lance = LanceTable.open(allocator, Tables.lance("lance-scan8-" + rows, BenchData.scanSchema(), rows, perFragment));
    Bench.record("ParallelScanBench", "fragments", "table", quiver.manifest().fragments().size(), "fragments");
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    quiver.close();
    lance.close();
    allocator.close();
  }

  @Benchmark
  public long quiver() {
    return Scans.check("quiver parallel scan", Scans.drain(quiver.newScan().batchSize(Bench.BATCH_ROWS)
        .parallelism(threads).ordered(ordered).open()), expected);
  }

  @Benchmark
  public long lance() {
    return Scans.check("lance full scan", Scans.drain(lance.scanReader(null, Bench.BATCH_ROWS)), expected);
  }
}
