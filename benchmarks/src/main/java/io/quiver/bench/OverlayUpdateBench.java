package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.bench.lance.LanceTable;
import io.quiver.dataset.Dataset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
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
 * Benchmark 9: set {@code x = -1.0} on the rows whose {@code pct} is 0 (about 1% of the rows, spread over
 * every fragment) of a table of id, pct, x, s. Both systems get the same row positions: Quiver as row
 * addresses ({@code Dataset.update(addresses, values)}, which writes overlays), Lance through its
 * positional column update (which rewrites the column of every touched fragment). Each update starts
 * from a fresh copy and records the bytes it added; the scan benchmarks read all four columns before and
 * after one such update, to show what the update costs later readers.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class OverlayUpdateBench {
  public static final double NEW_VALUE = -1.0;

  long rows;
  long expected;
  long[] positions;
  BufferAllocator allocator;
  Dataset quiverBefore;
  Dataset quiverAfter;
  LanceTable lanceBefore;
  LanceTable lanceAfter;

  @Setup(Level.Trial)
  public void setup() throws Exception {
    rows = Bench.size(500_000, 5_000_000);
    expected = Scans.expected(rows, 4);
    positions = LongStream.range(0, rows).filter(r -> BenchData.pctValue(r) == 0).toArray();
    allocator = new RootAllocator();
    Path quiverAfterDir = Bench.cached("quiver-update-after-" + rows, dir -> {
      Path copy = Bench.copyOf(quiverTemplate(), "update-after");
      try (BufferAllocator a = new RootAllocator(); Dataset ds = Dataset.open(copy.toString(), Bench.quiverOptions(a))) {
        updateQuiver(ds);
      }
      Files.move(copy, dir);
    });
    Path lanceAfterDir = Bench.cached("lance-update-after-" + rows, dir -> {
      Path copy = Bench.copyOf(lanceTemplate(), "update-after");
      try (BufferAllocator a = new RootAllocator(); LanceTable t = LanceTable.open(a, copy)) {
        updateLance(t, a);
      }
      Files.move(copy, dir);
    });
    quiverBefore = Dataset.open(quiverTemplate().toString(), Bench.quiverOptions(allocator));
    quiverAfter = Dataset.open(quiverAfterDir.toString(), Bench.quiverOptions(allocator));
    lanceBefore = LanceTable.open(allocator, lanceTemplate());
    lanceAfter = LanceTable.open(allocator, lanceAfterDir);
    checkUpdated("quiver", quiverAfter.newScan().columns("pct", "x").open(), rows);
    checkUpdated("lance", lanceAfter.scanReader(java.util.List.of("pct", "x"), 0), rows);
    Bench.record("OverlayUpdateBench", "rows", "table", rows, "rows");
    Bench.record("OverlayUpdateBench", "cells updated", "both", positions.length, "cells");
  }

  Path quiverTemplate() {
    return Tables.quiver("quiver-update-" + rows, BenchData.updateSchema(), rows);
  }

  Path lanceTemplate() {
    return Tables.lance("lance-update-" + rows, BenchData.updateSchema(), rows, Bench.ROWS_PER_FRAGMENT);
  }

  long updateQuiver(Dataset ds) {
    return ds.update(Tables.addresses(ds, positions), Map.of("x", NEW_VALUE)).version();
  }

  long updateLance(LanceTable table, BufferAllocator a) {
    try (Float8Vector values = new Float8Vector("x", a)) {
      values.allocateNew(positions.length);
      for (int i = 0; i < positions.length; i++) {
        values.set(i, NEW_VALUE);
      }
      values.setValueCount(positions.length);
      table.updateUnmeasured("x", positions, values);
      return table.version();
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    quiverBefore.close();
    quiverAfter.close();
    lanceBefore.close();
    lanceAfter.close();
    allocator.close();
  }

  /** Every row with pct = 0 has x = NEW_VALUE and no other row has. */
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
          if (hit != (x.get(i) == NEW_VALUE)) {
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

  /** A fresh copy of the Quiver table per update; records the bytes the update added. */
  @State(Scope.Benchmark)
  public static class QuiverCopy {
    Path dir;
    Dataset ds;
    long sizeBefore;

    boolean fsync() {
      return true;
    }

    @Setup(Level.Iteration)
    public void copy(OverlayUpdateBench shared) {
      dir = Bench.copyOf(shared.quiverTemplate(), "update-quiver");
      ds = Dataset.open(dir.toString(), Bench.quiverOptions(shared.allocator, fsync()));
      sizeBefore = Bench.sizeOf(dir);
    }

    @TearDown(Level.Iteration)
    public void delete() {
      if (fsync()) {
        Bench.record("OverlayUpdateBench", "bytes written by the update", "quiver", Bench.sizeOf(dir) - sizeBefore, "bytes");
      }
      ds.close();
      Bench.deleteTree(dir);
    }
  }

  /** The same without fsync, as Lance's local store writes. */
  public static class QuiverNoSyncCopy extends QuiverCopy {
    @Override
    boolean fsync() {
      return false;
    }
  }

  /** A fresh copy of the Lance table per update; records the bytes the update added. */
  @State(Scope.Benchmark)
  public static class LanceCopy {
    Path dir;
    LanceTable table;
    long sizeBefore;

    @Setup(Level.Iteration)
    public void copy(OverlayUpdateBench shared) {
      dir = Bench.copyOf(shared.lanceTemplate(), "update-lance");
      table = LanceTable.open(shared.allocator, dir);
      sizeBefore = Bench.sizeOf(dir);
    }

    @TearDown(Level.Iteration)
    public void delete() {
      Bench.record("OverlayUpdateBench", "bytes written by the update", "lance", Bench.sizeOf(dir) - sizeBefore, "bytes");
      table.close();
      Bench.deleteTree(dir);
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 2)
  @Measurement(iterations = 8)
  public long updateQuiver(QuiverCopy copy) {
    return updateQuiver(copy.ds);
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 2)
  @Measurement(iterations = 8)
  public long updateQuiverNoSync(QuiverNoSyncCopy copy) {
    return updateQuiver(copy.ds);
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 2)
  @Measurement(iterations = 8)
  public long updateLance(LanceCopy copy) {
    return updateLance(copy.table, allocator);
  }

  @Benchmark
  public long scanBeforeQuiver() {
    return Scans.check("quiver scan before the update", Scans.drain(quiverBefore.newScan().open()), expected);
  }

  @Benchmark
  public long scanAfterQuiver() {
    return Scans.check("quiver scan after the update", Scans.drain(quiverAfter.newScan().open()), expected);
  }

  @Benchmark
  public long scanBeforeLance() {
    return Scans.check("lance scan before the update", Scans.drain(lanceBefore.scanReader(null, Bench.BATCH_ROWS)), expected);
  }

  @Benchmark
  public long scanAfterLance() {
    return Scans.check("lance scan after the update", Scans.drain(lanceAfter.scanReader(null, Bench.BATCH_ROWS)), expected);
  }
}
