package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.predicate.Predicate;
import io.quiver.store.CountingObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * Issue 43's costs of stable row ids, on the update table ({@link BenchData#updateSchema}: id, pct, x, s;
 * {@code quiver.bench.rowIdRows} rows, default 10M in the full profile, 1M in quick), with and without the table
 * configuration {@code row-ids = true} in the same run:
 * <ul>
 *   <li>{@code create}: writing the table (one shot per iteration: the append path, ids assigned at commit);
 *   <li>{@code scan}: a full scan of every column after the 1% update below (on both tables), and {@code
 *       scanWithLineage} the same plus the three lineage columns (row-id tables only);
 *   <li>{@code changeFeed}: the change feed of one update of 1% of the rows (every 100th id, overlays), read in
 *       full; its setup records the bytes the feed read from the store against the table's size.
 * </ul>
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx6g"})
public class RowIdsBench {
  @Param({"false", "true"})
  public String rowIds;

  long rows;
  BufferAllocator allocator;
  Path table;
  Dataset ds;
  long updatedFrom;

  @Setup(Level.Trial)
  public void setup(org.openjdk.jmh.infra.BenchmarkParams params) {
    rows = Long.getLong("quiver.bench.rowIdRows", Bench.size(1_000_000, 10_000_000));
    allocator = new RootAllocator();
    if (params.getBenchmark().endsWith(".create")) {
      return; // create writes its own tables; the shared one (and its feed measurements) would only skew it
    }
    table = Bench.scratch("rowids-" + rowIds);
    create();
    ds = Dataset.open(table.toString(), Bench.quiverOptions(allocator));
    // The same 1% update on both tables, so that their scans compare like for like.
    updatedFrom = ds.version();
    List<Object> every100th = new ArrayList<>();
    for (long id = 0; id < rows; id += 100) {
      every100th.add(id);
    }
    ds.update(Predicate.in("id", every100th), Map.of("x", -1.0));
    if (rowIds.equals("true")) {
      measureFeedBytes(updatedFrom, "spread");
      // The same share of rows in one contiguous range of ids, measured on a copy (the benchmark's table keeps
      // only the spread update).
      Path copy = Bench.copyOf(table, "rowids-clustered");
      try (Dataset c = Dataset.open(copy.toString(), Bench.quiverOptions(allocator))) {
        long from = c.version();
        List<Object> range = new ArrayList<>();
        for (long id = rows / 2; id < rows / 2 + rows / 100; id++) {
          range.add(id);
        }
        c.update(Predicate.in("id", range), Map.of("x", -2.0));
        measureFeedBytes(copy, from, "clustered");
      } finally {
        Bench.deleteTree(copy);
      }
    }
  }

  private void create() {
    try (ArrowReader reader = BenchData.reader(allocator, BenchData.updateSchema(), 0, rows, Bench.BATCH_ROWS);
        Dataset created = Dataset.create(table.toString(), BenchData.updateSchema(), BenchData.batches(reader),
            Bench.quiverOptions(allocator), Map.of("row-ids", rowIds))) {
      if (created.countRows() != rows) {
        throw new IllegalStateException("created " + created.countRows() + " rows, expected " + rows);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void measureFeedBytes(long from, String shape) {
    measureFeedBytes(table, from, shape);
  }

  /** Reads a 1% update's change feed once through a counting store and records its bytes beside the table's. */
  private void measureFeedBytes(Path at, long from, String shape) {
    CountingObjectStore[] counting = new CountingObjectStore[1];
    DatasetOptions options = Bench.quiverOptions(allocator).toBuilder()
        .registry(Bench.countingFileRegistry(counting)).build();
    long changes;
    try (Dataset counted = Dataset.open(at.toString(), options)) {
      long before = counting[0].bytesRead();
      changes = drain(counted.changes(from, counted.version()).open());
      long read = counting[0].bytesRead() - before;
      long size = Bench.sizeOf(at);
      Bench.record("RowIdsBench", "change feed bytes read, " + shape, "quiver", read, "bytes");
      Bench.record("RowIdsBench", "table bytes", "quiver", size, "bytes");
      System.out.printf("%nchange feed of a %s 1%% update: %,d changes, %,d bytes read of a %,d-byte table (%.2f%%)%n",
          shape, changes, read, size, 100.0 * read / size);
    }
    if (changes != 2 * ((rows + 99) / 100)) {
      throw new IllegalStateException("the feed of the 1% update has " + changes + " changes");
    }
  }

  private static long drain(ArrowReader reader) {
    long n = 0;
    try (reader) {
      while (reader.loadNextBatch()) {
        n += reader.getVectorSchemaRoot().getRowCount();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return n;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (ds != null) {
      ds.close();
      Bench.deleteTree(table);
    }
    allocator.close();
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 1)
  @Measurement(iterations = 3)
  public void create(CreateState s) {
    s.run(this);
  }

  /** A fresh directory per create, so that every shot writes a new table. */
  @State(Scope.Benchmark)
  public static class CreateState {
    Path dir;

    void run(RowIdsBench b) {
      dir = Bench.scratch("rowids-create-" + b.rowIds);
      try (ArrowReader reader = BenchData.reader(b.allocator, BenchData.updateSchema(), 0, b.rows, Bench.BATCH_ROWS);
          Dataset created = Dataset.create(dir.toString(), BenchData.updateSchema(), BenchData.batches(reader),
              Bench.quiverOptions(b.allocator), Map.of("row-ids", b.rowIds))) {
        if (created.countRows() != b.rows) {
          throw new IllegalStateException("created " + created.countRows() + " rows");
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @TearDown(Level.Iteration)
    public void clean() {
      if (dir != null) {
        Bench.deleteTree(dir);
      }
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @Warmup(iterations = 2, time = 5)
  @Measurement(iterations = 5, time = 5)
  public long scan() {
    return drain(ds.newScan().open());
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @Warmup(iterations = 2, time = 5)
  @Measurement(iterations = 5, time = 5)
  public long scanWithLineage() {
    if (!ds.manifest().hasRowIds()) {
      return 0; // no lineage to read on the table without row ids
    }
    return drain(ds.newScan().withRowLineage(true).open());
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @Warmup(iterations = 2, time = 5)
  @Measurement(iterations = 5, time = 5)
  public long changeFeed() {
    if (!ds.manifest().hasRowIds()) {
      return 0;
    }
    return drain(ds.changes(updatedFrom, ds.version()).open());
  }
}
