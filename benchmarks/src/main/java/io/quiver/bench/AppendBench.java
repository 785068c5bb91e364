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
 * Benchmark 4: the latency of committing one small append (1,000 rows of id int64, x float64) to a
 * table, sampled (p50, p99). Each trial starts from a new table; the teardown checks that every
 * reported commit made exactly one new version.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class AppendBench {
  static final int ROWS = 1000;

  BufferAllocator allocator;
  VectorSchemaRoot batch;

  @Setup(Level.Trial)
  public void setup() {
    allocator = new RootAllocator();
    batch = BenchData.batch(allocator, BenchData.smallSchema(), 0, ROWS);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    batch.close();
    allocator.close();
  }

  /** A new Quiver table per trial; its teardown checks one version per reported commit. */
  @State(Scope.Benchmark)
  public static class QuiverTable {
    Path dir;
    Dataset ds;
    long first;
    long commits;

    boolean fsync() {
      return true;
    }

    @Setup(Level.Trial)
    public void create(AppendBench shared) {
      dir = Bench.scratch("append-quiver");
      ds = Dataset.create(dir.toString(), BenchData.smallSchema(), List.of(shared.batch),
          Bench.quiverOptions(shared.allocator, fsync()));
      first = ds.version();
    }

    @TearDown(Level.Trial)
    public void check() {
      long latest = ds.latestVersion();
      ds.close();
      Bench.deleteTree(dir);
      if (latest != first + commits) {
        throw new IllegalStateException("quiver: " + commits + " appends from version " + first
            + " but the latest version is " + latest);
      }
    }
  }

  /** The same without fsync, as Lance's local store writes. */
  public static class QuiverNoSyncTable extends QuiverTable {
    @Override
    boolean fsync() {
      return false;
    }
  }

  /** A new Lance table per trial, checked the same way. */
  @State(Scope.Benchmark)
  public static class LanceTarget {
    Path dir;
    LanceTable table;
    long first;
    long commits;

    @Setup(Level.Trial)
    public void create(AppendBench shared) {
      dir = Bench.scratch("append-lance");
      Bench.deleteTree(dir);
      table = LanceTable.create(shared.allocator, dir, BenchData.smallSchema(), List.of(shared.batch), 0);
      first = table.version();
    }

    @TearDown(Level.Trial)
    public void check() {
      long latest = table.latestVersion();
      table.close();
      Bench.deleteTree(dir);
      if (latest != first + commits) {
        throw new IllegalStateException("lance: " + commits + " appends from version " + first
            + " but the latest version is " + latest);
      }
    }
  }

  @Benchmark
  public long quiver(QuiverTable t) {
    t.commits++;
    return t.ds.append(List.of(batch));
  }

  @Benchmark
  public long quiverNoSync(QuiverNoSyncTable t) {
    return quiver(t);
  }

  @Benchmark
  public long lance(LanceTarget t) {
    t.commits++;
    return t.table.append(batch);
  }
}
