package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.bench.lance.LanceTable;
import io.quiver.dataset.ColumnSchema;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.StagedColumnWrite;
import io.quiver.manifest.Fragment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
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
 * Benchmark 6: add one float32 column ({@code score}, a function of {@code id} from {@link
 * BenchData#backfillValue}) to a 200-fragment table: Quiver stages one column write per fragment and
 * publishes them in one commit; Lance adds the column through its add-columns path with the same
 * values. Each iteration starts from a fresh copy of the table; afterwards every row's value is checked.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 8)
public class BackfillBench {
  public static final int FRAGMENTS = 200;

  int rowsPerFragment;
  BufferAllocator allocator;

  @Setup(Level.Trial)
  public void setup() {
    rowsPerFragment = (int) Bench.size(1_000, 10_000);
    allocator = new RootAllocator();
    Bench.record("BackfillBench", "rows", "table", (double) FRAGMENTS * rowsPerFragment, "rows");
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    allocator.close();
  }

  /** The values of the new column for rows [first, first + rows): a reader over generated batches. */
  ArrowReader values(long first, long rows) {
    return BenchData.reader(allocator, new Schema(List.of(BenchData.backfillField())), first, rows, Bench.BATCH_ROWS);
  }

  /** Checks that every row's {@code score} is the backfilled value of its {@code id}. */
  public static void checkValues(String system, ArrowReader reader, long expectedRows) throws Exception {
    long rows = 0;
    try (reader) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BigIntVector ids = (BigIntVector) root.getVector("id");
        Float4Vector scores = (Float4Vector) root.getVector("score");
        for (int i = 0; i < root.getRowCount(); i++) {
          if (scores.isNull(i) || scores.get(i) != BenchData.backfillValue(ids.get(i))) {
            throw new IllegalStateException(system + ": row " + ids.get(i) + " has score "
                + scores.getObject(i) + ", expected " + BenchData.backfillValue(ids.get(i)));
          }
        }
        rows += root.getRowCount();
      }
    }
    if (rows != expectedRows) {
      throw new IllegalStateException(system + ": " + rows + " rows after the backfill, expected " + expectedRows);
    }
  }

  /** A fresh copy of the 200-fragment Quiver table per iteration. */
  @State(Scope.Benchmark)
  public static class QuiverTable {
    Path dir;
    Dataset ds;

    boolean fsync() {
      return true;
    }

    @Setup(Level.Iteration)
    public void copy(BackfillBench shared) {
      Path template = Tables.quiver("quiver-backfill-" + FRAGMENTS + "x" + shared.rowsPerFragment,
          BenchData.smallSchema(), (long) FRAGMENTS * shared.rowsPerFragment, shared.rowsPerFragment);
      dir = Bench.copyOf(template, "backfill-quiver");
      ds = Dataset.open(dir.toString(), Bench.quiverOptions(shared.allocator, fsync()));
      if (ds.manifest().fragments().size() != FRAGMENTS) {
        throw new IllegalStateException("quiver table has " + ds.manifest().fragments().size() + " fragments");
      }
    }

    @TearDown(Level.Iteration)
    public void check(BackfillBench shared) throws Exception {
      try (Dataset latest = ds.checkoutLatest()) {
        checkValues("quiver", latest.newScan().columns("id", "score").open(), (long) FRAGMENTS * shared.rowsPerFragment);
      }
      ds.close();
      Bench.deleteTree(dir);
    }
  }

  /** The same without fsync, as Lance's local store writes. */
  public static class QuiverNoSyncTable extends QuiverTable {
    @Override
    boolean fsync() {
      return false;
    }
  }

  /** A fresh copy of the 200-fragment Lance table per iteration. */
  @State(Scope.Benchmark)
  public static class LanceTarget {
    Path dir;
    LanceTable table;

    @Setup(Level.Iteration)
    public void copy(BackfillBench shared) {
      Path template = Tables.lance("lance-backfill-" + FRAGMENTS + "x" + shared.rowsPerFragment,
          BenchData.smallSchema(), (long) FRAGMENTS * shared.rowsPerFragment, shared.rowsPerFragment);
      dir = Bench.copyOf(template, "backfill-lance");
      table = LanceTable.open(shared.allocator, dir);
      if (table.fragmentCount() != FRAGMENTS) {
        throw new IllegalStateException("lance table has " + table.fragmentCount() + " fragments");
      }
    }

    @TearDown(Level.Iteration)
    public void check(BackfillBench shared) throws Exception {
      checkValues("lance", table.scanReader(List.of("id", "score"), 0), (long) FRAGMENTS * shared.rowsPerFragment);
      table.close();
      Bench.deleteTree(dir);
    }
  }

  @Benchmark
  public long quiverNoSync(QuiverNoSyncTable table) throws Exception {
    return quiver(table);
  }

  /** Lance's add-columns path, fed the new column's values for every row in scan order. */
  @Benchmark
  public long lance(LanceTarget target) {
    return target.table.addColumns(values(0, (long) FRAGMENTS * rowsPerFragment));
  }

  @Benchmark
  public long quiver(QuiverTable table) throws Exception {
    Dataset ds = table.ds;
    ColumnSchema schema = ds.columns().newSchema(List.of(BenchData.backfillField()), List.of(), List.of());
    List<StagedColumnWrite> writes = new ArrayList<>();
    long first = 0;
    for (Fragment f : ds.manifest().fragments()) {
      try (ArrowReader values = values(first, f.physicalRows())) {
        writes.add(ds.columns().writeFragment(f.id(), values, schema));
      }
      first += f.physicalRows();
    }
    return ds.columns().commit(writes);
  }
}
