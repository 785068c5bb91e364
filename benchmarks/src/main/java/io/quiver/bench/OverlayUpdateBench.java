package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.dataset.Dataset;
import io.quiver.predicate.Predicate;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
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
 * Benchmark 9: set {@code x = -1.0} where {@code pct = 0} (about 1% of the rows, spread over every
 * fragment) of a table of id, pct, x, s. Quiver writes overlays; Lance runs its update. Each update
 * iteration starts from a fresh copy and records the bytes it added to the table; the scan benchmarks
 * read all four columns of the table before and after one such update, to show what the update costs
 * later readers.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class OverlayUpdateBench {
  public static final double NEW_VALUE = -1.0;

  long rows;
  BufferAllocator allocator;
  Path quiverBefore;
  Path quiverAfter;
  Dataset quiverBeforeDs;
  Dataset quiverAfterDs;
  long expected;

  @Setup(Level.Trial)
  public void setup() throws Exception {
    rows = Bench.size(500_000, 5_000_000);
    expected = Scans.expected(rows, 4);
    allocator = new RootAllocator();
    quiverBefore = quiverTemplate(rows);
    quiverAfter = Bench.cached("quiver-update-after-" + rows, dir -> {
      Path copy = Bench.copyOf(quiverBefore, "update-after");
      try (BufferAllocator a = new RootAllocator();
          Dataset ds = Dataset.open(copy.toString(), Bench.quiverOptions(a))) {
        ds.update(Predicate.eq("pct", 0), Map.of("x", NEW_VALUE));
      }
      java.nio.file.Files.move(copy, dir);
    });
    quiverBeforeDs = Dataset.open(quiverBefore.toString(), Bench.quiverOptions(allocator));
    quiverAfterDs = Dataset.open(quiverAfter.toString(), Bench.quiverOptions(allocator));
    checkUpdated("quiver", quiverAfterDs.newScan().columns("pct", "x").open(), rows);
    Bench.record("OverlayUpdateBench", "rows", "table", rows, "rows");
  }

  static Path quiverTemplate(long rows) {
    return Tables.quiver("quiver-update-" + rows, BenchData.updateSchema(), rows);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    quiverBeforeDs.close();
    quiverAfterDs.close();
    allocator.close();
  }

  /** Every row with pct = 0 has x = NEW_VALUE and every other row its generated x. */
  public static void checkUpdated(String system, ArrowReader reader, long expectedRows) throws Exception {
    long seen = 0;
    long updated = 0;
    try (reader) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        IntVector pct = (IntVector) root.getVector("pct");
        Float8Vector x = (Float8Vector) root.getVector("x");
        for (int i = 0; i < root.getRowCount(); i++) {
          boolean hit = pct.get(i) == 0;
          if (hit && x.get(i) != NEW_VALUE || !hit && x.get(i) == NEW_VALUE) {
            throw new IllegalStateException(system + ": row " + (seen + i) + " (pct " + pct.get(i) + ") has x " + x.get(i));
          }
          updated += hit ? 1 : 0;
        }
        seen += root.getRowCount();
      }
    }
    if (seen != expectedRows || updated == 0) {
      throw new IllegalStateException(system + ": " + seen + " rows, " + updated + " updated; expected " + expectedRows);
    }
  }

  /** A fresh copy of the table per update. */
  @State(Scope.Benchmark)
  public static class QuiverCopy {
    Path dir;
    Dataset ds;
    long sizeBefore;

    @Setup(Level.Invocation)
    public void copy(OverlayUpdateBench shared) {
      dir = Bench.copyOf(quiverTemplate(shared.rows), "update-quiver");
      ds = Dataset.open(dir.toString(), Bench.quiverOptions(shared.allocator));
      sizeBefore = Bench.sizeOf(dir);
    }

    @TearDown(Level.Invocation)
    public void delete() {
      Bench.record("OverlayUpdateBench", "bytes written by the update", "quiver", Bench.sizeOf(dir) - sizeBefore, "bytes");
      ds.close();
      Bench.deleteTree(dir);
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 2)
  @Measurement(iterations = 8)
  public long updateQuiver(QuiverCopy copy) {
    return copy.ds.update(Predicate.eq("pct", 0), Map.of("x", NEW_VALUE)).version();
  }

  @Benchmark
  public long scanBeforeQuiver() {
    return Scans.check("quiver scan before the update", Scans.drain(quiverBeforeDs.newScan().open()), expected);
  }

  @Benchmark
  public long scanAfterQuiver() {
    return Scans.check("quiver scan after the update", Scans.drain(quiverAfterDs.newScan().open()), expected);
  }
}
