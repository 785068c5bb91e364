package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.bench.lance.LanceTable;
import io.quiver.dataset.Dataset;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
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
 * Benchmark 3: take 1,000 random rows (seeded) of 3 columns (id, x, s) from benchmark 1's table. Every
 * take's checksum (count and sum of ids) is checked.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class TakeBench {
  static final int TAKE = 1000;
  static final List<String> COLUMNS = List.of("id", "x", "s");

  long rows;
  long[] positions;
  long[] addresses;
  long expected;
  BufferAllocator allocator;
  Dataset quiver;
  LanceTable lance;

  @Setup(Level.Trial)
  public void setup() {
    rows = Bench.size(500_000, 10_000_000);
    allocator = new RootAllocator();
    quiver = Dataset.open(Tables.quiverScanTable(rows).toString(), Bench.quiverOptions(allocator));
    lance = LanceTable.open(allocator, Tables.lanceScanTable(rows));
    positions = BenchData.randomRows(rows, TAKE, 7);
    addresses = Tables.addresses(quiver, positions);
    for (long p : positions) {
      expected += p;
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    quiver.close();
    lance.close();
    allocator.close();
  }

  /** Checks a taken batch: the right number of rows and the right ids. */
  static long check(VectorSchemaRoot root, long expectedIdSum) {
    if (root.getRowCount() != TAKE) {
      throw new IllegalStateException("take returned " + root.getRowCount() + " rows, expected " + TAKE);
    }
    org.apache.arrow.vector.BigIntVector ids = (org.apache.arrow.vector.BigIntVector) root.getVector("id");
    long sum = 0;
    for (int i = 0; i < TAKE; i++) {
      sum += ids.get(i);
    }
    if (sum != expectedIdSum) {
      throw new IllegalStateException("take returned the wrong rows: id sum " + sum + ", expected " + expectedIdSum);
    }
    return sum + Scans.consume(root);
  }

  /** Lance takes by row offset in the table (its "indices"), which is what {@code positions} are. */
  @Benchmark
  public long lance() {
    try (VectorSchemaRoot root = lance.take(positions, COLUMNS)) {
      return check(root, expected);
    }
  }

  @Benchmark
  public long quiver() {
    try (VectorSchemaRoot root = quiver.take(addresses, COLUMNS)) {
      return check(root, expected);
    }
  }

  /** The same take reading up to two data files at once ({@code Dataset.take}'s threads; Lance decodes on its own pool). */
  @Benchmark
  public long twoThreadsQuiver() {
    try (VectorSchemaRoot root = quiver.take(addresses, COLUMNS, 2)) {
      return check(root, expected);
    }
  }
}
