package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.bench.lance.LanceTable;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.MergeInsertResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.merge.MergeInsertParams;
import org.lance.merge.MergeInsertStats;
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
 * Benchmark 12 (issue 18): an upsert of 1% of the table's rows by its int64 key {@code id} — half of the
 * source's keys exist (every 200th row, so spread over every fragment), half are new — with "when matched
 * update all, when not matched insert" on both systems: Quiver's {@code Dataset.mergeInsert("id")} (overlays
 * for the matched rows' cells, a fragment for the new rows) and Lance's {@code Dataset.mergeInsert} with
 * {@code withMatchedUpdateAll().withNotMatched(InsertAll)}. Both read the same source, an Arrow IPC file of the
 * table's four columns written once. Each merge starts from a fresh copy and records the bytes it added; the
 * scans read all four columns before and after one such merge, to show what it costs later readers.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class MergeInsertBench {
  static final double MERGED_X = -2.0;

  long rows;
  long sourceRows;
  Path source;
  BufferAllocator allocator;
  Dataset quiverBefore;
  Dataset quiverAfter;
  LanceTable lanceBefore;
  LanceTable lanceAfter;

  @Setup(Level.Trial)
  public void setup() throws Exception {
    rows = Bench.size(500_000, 10_000_000);
    sourceRows = rows / 100;
    allocator = new RootAllocator();
    source = Bench.cached("merge-source-" + rows, dir -> {
      Files.createDirectories(dir);
      writeSource(dir.resolve("source.arrow"));
    }).resolve("source.arrow");
    Path quiverAfterDir = Bench.cached("quiver-merge-after-" + rows, dir -> {
      Path copy = Bench.copyOf(quiverTemplate(), "merge-after");
      try (BufferAllocator a = new RootAllocator(); Dataset ds = Dataset.open(copy.toString(), Bench.quiverOptions(a))) {
        mergeQuiver(ds);
      }
      Files.move(copy, dir);
    });
    Path lanceAfterDir = Bench.cached("lance-merge-after-" + rows, dir -> {
      Path copy = Bench.copyOf(lanceTemplate(), "merge-after");
      try (BufferAllocator a = new RootAllocator(); LanceTable t = LanceTable.open(a, copy)) {
        mergeLance(t, a);
      }
      Files.move(copy, dir);
    });
    quiverBefore = Dataset.open(quiverTemplate().toString(), Bench.quiverOptions(allocator));
    quiverAfter = Dataset.open(quiverAfterDir.toString(), Bench.quiverOptions(allocator));
    lanceBefore = LanceTable.open(allocator, lanceTemplate());
    lanceAfter = LanceTable.open(allocator, lanceAfterDir);
    checkMerged("quiver", quiverAfter.newScan().columns("id", "x").open());
    checkMerged("lance", lanceAfter.scanReader(List.of("id", "x"), 0));
    Bench.record("MergeInsertBench", "rows", "table", rows, "rows");
    Bench.record("MergeInsertBench", "source rows (half matched, half new)", "both", sourceRows, "rows");
  }

  Path quiverTemplate() {
    return Tables.quiver("quiver-update-" + rows, BenchData.updateSchema(), rows);
  }

  Path lanceTemplate() {
    return Tables.lance("lance-update-" + rows, BenchData.updateSchema(), rows, Bench.ROWS_PER_FRAGMENT);
  }

  /** Key of source row {@code i}: an existing row (every 200th) for the first half, a new one after. */
  long key(long i) {
    return i < sourceRows / 2 ? i * 200 : rows + (i - sourceRows / 2);
  }

  private void writeSource(Path file) throws IOException {
    try (BufferAllocator a = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(BenchData.updateSchema(), a);
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        ArrowFileWriter w = new ArrowFileWriter(root, null, ch)) {
      w.start();
      BigIntVector id = (BigIntVector) root.getVector("id");
      IntVector pct = (IntVector) root.getVector("pct");
      Float8Vector x = (Float8Vector) root.getVector("x");
      VarCharVector s = (VarCharVector) root.getVector("s");
      for (long from = 0; from < sourceRows; from += Bench.BATCH_ROWS) {
        int n = (int) Math.min(Bench.BATCH_ROWS, sourceRows - from);
        root.allocateNew();
        for (int r = 0; r < n; r++) {
          long k = key(from + r);
          id.setSafe(r, k);
          pct.setSafe(r, BenchData.pctValue(k));
          x.setSafe(r, MERGED_X);
          s.setSafe(r, ("merged-" + k).getBytes(StandardCharsets.UTF_8));
        }
        root.setRowCount(n);
        w.writeBatch();
      }
      w.end();
    }
  }

  ArrowReader openSource(BufferAllocator a) {
    try {
      return new ArrowFileReader(FileChannel.open(source, StandardOpenOption.READ), a);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  long mergeQuiver(Dataset ds) {
    try (ArrowReader in = openSource(allocator)) {
      MergeInsertResult r = ds.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(in);
      check("quiver", r.rowsUpdated(), r.rowsInserted());
      return r.version();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  long mergeLance(LanceTable table, BufferAllocator a) {
    try (ArrowReader in = openSource(a); ArrowArrayStream stream = ArrowArrayStream.allocateNew(a)) {
      Data.exportArrayStream(a, in, stream);
      MergeInsertParams params = new MergeInsertParams(List.of("id")).withMatchedUpdateAll()
          .withNotMatched(MergeInsertParams.WhenNotMatched.InsertAll);
      MergeInsertStats stats = table.dataset().mergeInsert(params, stream).stats();
      check("lance", stats.numUpdatedRows(), stats.numInsertedRows());
      return stats.numUpdatedRows() + stats.numInsertedRows();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void check(String system, long updated, long inserted) {
    long half = sourceRows / 2;
    if (updated != half || inserted != sourceRows - half) {
      throw new IllegalStateException(system + ": " + updated + " updated and " + inserted + " inserted; expected "
          + half + " and " + (sourceRows - half));
    }
  }

  /** After the merge: rows + the new half, and x = MERGED_X exactly on the source's keys. */
  private void checkMerged(String system, ArrowReader reader) throws Exception {
    long seen = 0;
    long merged = 0;
    try (reader) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        Float8Vector x = (Float8Vector) root.getVector("x");
        for (int i = 0; i < root.getRowCount(); i++) {
          long k = id.get(i);
          boolean inSource = k >= rows || (k % 200 == 0 && k / 200 < sourceRows / 2);
          if (inSource != (!x.isNull(i) && x.get(i) == MERGED_X)) {
            throw new IllegalStateException(system + ": id " + k + " has x " + x.getObject(i));
          }
          merged += inSource ? 1 : 0;
        }
        seen += root.getRowCount();
      }
    }
    long expectedRows = rows + (sourceRows - sourceRows / 2);
    if (seen != expectedRows || merged != sourceRows) {
      throw new IllegalStateException(system + ": " + seen + " rows, " + merged + " merged; expected " + expectedRows
          + " and " + sourceRows);
    }
  }

  /** {@link Scans#consume}'s checksum of the merged table: the new keys' ids, and a row per column and row. */
  long expectedAfter() {
    long added = sourceRows - sourceRows / 2;
    long total = rows + added;
    return rows * (rows - 1) / 2 + added * rows + added * (added - 1) / 2 + total * 3 + total;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    quiverBefore.close();
    quiverAfter.close();
    lanceBefore.close();
    lanceAfter.close();
    allocator.close();
  }

  /** A fresh copy of the Quiver table per merge; records the bytes the merge added. */
  @State(Scope.Benchmark)
  public static class QuiverCopy {
    Path dir;
    Dataset ds;
    long sizeBefore;

    boolean fsync() {
      return true;
    }

    @Setup(Level.Iteration)
    public void copy(MergeInsertBench shared) {
      dir = Bench.copyOf(shared.quiverTemplate(), "merge-quiver");
      ds = Dataset.open(dir.toString(), Bench.quiverOptions(shared.allocator, fsync()));
      sizeBefore = Bench.sizeOf(dir);
    }

    @TearDown(Level.Iteration)
    public void delete() {
      if (fsync()) {
        Bench.record("MergeInsertBench", "bytes written by the merge", "quiver", Bench.sizeOf(dir) - sizeBefore, "bytes");
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

  /** A fresh copy of the Lance table per merge; records the bytes the merge added. */
  @State(Scope.Benchmark)
  public static class LanceCopy {
    Path dir;
    LanceTable table;
    long sizeBefore;

    @Setup(Level.Iteration)
    public void copy(MergeInsertBench shared) {
      dir = Bench.copyOf(shared.lanceTemplate(), "merge-lance");
      table = LanceTable.open(shared.allocator, dir);
      sizeBefore = Bench.sizeOf(dir);
    }

    @TearDown(Level.Iteration)
    public void delete() {
      Bench.record("MergeInsertBench", "bytes written by the merge", "lance", Bench.sizeOf(dir) - sizeBefore, "bytes");
      table.close();
      Bench.deleteTree(dir);
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 2)
  @Measurement(iterations = 8)
  public long mergeQuiver(QuiverCopy copy) {
    return mergeQuiver(copy.ds);
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 2)
  @Measurement(iterations = 8)
  public long mergeQuiverNoSync(QuiverNoSyncCopy copy) {
    return mergeQuiver(copy.ds);
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 2)
  @Measurement(iterations = 8)
  public long mergeLance(LanceCopy copy) {
    return mergeLance(copy.table, allocator);
  }

  @Benchmark
  public long scanBeforeQuiver() {
    return Scans.check("quiver scan before the merge", Scans.drain(quiverBefore.newScan().open()), Scans.expected(rows, 4));
  }

  @Benchmark
  public long scanAfterQuiver() {
    return Scans.check("quiver scan after the merge", Scans.drain(quiverAfter.newScan().open()),
        expectedAfter());
  }

  @Benchmark
  public long scanBeforeLance() {
    return Scans.check("lance scan before the merge", Scans.drain(lanceBefore.scanReader(null, Bench.BATCH_ROWS)),
        Scans.expected(rows, 4));
  }

  @Benchmark
  public long scanAfterLance() {
    return Scans.check("lance scan after the merge", Scans.drain(lanceAfter.scanReader(null, Bench.BATCH_ROWS)),
        expectedAfter());
  }
}
