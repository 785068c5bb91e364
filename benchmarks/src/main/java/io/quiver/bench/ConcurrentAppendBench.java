package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.bench.lance.LanceTable;
import io.quiver.dataset.Dataset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
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
 * Benchmark 5: 4 writers, each through its own handle, commit 50 appends each (100 rows with distinct
 * ids) to one table, all started together by a latch. One operation is the whole 200 commits; the
 * report turns its time into commits per second. The teardown asserts what the issue requires: exactly
 * 200 new versions and every row exactly once.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 5)
public class ConcurrentAppendBench {
  public static final int WRITERS = 4;
  public static final int COMMITS = 50;
  public static final int ROWS = 100;

  BufferAllocator allocator;
  List<VectorSchemaRoot> batches;
  ExecutorService pool;

  @Setup(Level.Trial)
  public void setupTrial() {
    allocator = new RootAllocator();
    batches = new ArrayList<>();
    for (int i = 0; i < WRITERS * COMMITS; i++) {
      batches.add(BenchData.batch(allocator, BenchData.smallSchema(), (long) i * ROWS, ROWS));
    }
    pool = Executors.newFixedThreadPool(WRITERS);
    Bench.record("ConcurrentAppendBench", "commits", "both", WRITERS * COMMITS, "commits");
  }

  @TearDown(Level.Trial)
  public void tearDownTrial() {
    pool.shutdownNow();
    batches.forEach(VectorSchemaRoot::close);
    allocator.close();
  }

  /** Every id in [0, WRITERS * COMMITS * ROWS) exactly once. */
  public static void checkEveryRowOnce(String system, ArrowReader reader) throws Exception {
    int total = WRITERS * COMMITS * ROWS;
    BitSet seen = new BitSet(total);
    long rows = 0;
    try (reader) {
      while (reader.loadNextBatch()) {
        BigIntVector ids = (BigIntVector) reader.getVectorSchemaRoot().getVector("id");
        for (int i = 0; i < ids.getValueCount(); i++) {
          int id = (int) ids.get(i);
          if (seen.get(id)) {
            throw new IllegalStateException(system + ": row " + id + " appears twice");
          }
          seen.set(id);
          rows++;
        }
      }
    }
    if (rows != total || seen.cardinality() != total) {
      throw new IllegalStateException(system + ": expected " + total + " rows, found " + rows);
    }
  }

  /** Runs one writer's commits per thread, all released together; returns the commits made. */
  public static int race(ExecutorService pool, List<Callable<Integer>> writers) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Integer>> futures = new ArrayList<>();
    for (Callable<Integer> w : writers) {
      futures.add(pool.submit(() -> {
        go.await();
        return w.call();
      }));
    }
    go.countDown();
    int commits = 0;
    for (Future<Integer> f : futures) {
      commits += f.get();
    }
    return commits;
  }

  /** A new, empty Quiver table per iteration, checked after it. */
  @State(Scope.Benchmark)
  public static class QuiverTable {
    Path dir;
    long start;

    boolean fsync() {
      return true;
    }

    @Setup(Level.Iteration)
    public void create(ConcurrentAppendBench shared) {
      dir = Bench.scratch("concurrent-quiver");
      try (VectorSchemaRoot empty = BenchData.batch(shared.allocator, BenchData.smallSchema(), 0, 0);
          Dataset ds = Dataset.create(dir.toString(), BenchData.smallSchema(), List.of(empty),
              Bench.quiverOptions(shared.allocator, fsync()))) {
        start = ds.version();
      }
    }

    @TearDown(Level.Iteration)
    public void check(ConcurrentAppendBench shared) throws Exception {
      try (Dataset ds = Dataset.open(dir.toString(), Bench.quiverOptions(shared.allocator))) {
        if (ds.version() != start + WRITERS * COMMITS) {
          throw new IllegalStateException("quiver: expected version " + (start + WRITERS * COMMITS)
              + " after " + WRITERS * COMMITS + " commits, found " + ds.version());
        }
        checkEveryRowOnce("quiver", ds.newScan().columns("id").open());
      }
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

  /** A new, empty Lance table per iteration, checked after it. */
  @State(Scope.Benchmark)
  public static class LanceTarget {
    Path dir;
    long start;

    @Setup(Level.Iteration)
    public void create(ConcurrentAppendBench shared) {
      dir = Bench.scratch("concurrent-lance");
      Bench.deleteTree(dir);
      try (VectorSchemaRoot empty = BenchData.batch(shared.allocator, BenchData.smallSchema(), 0, 0);
          LanceTable t = LanceTable.create(shared.allocator, dir, BenchData.smallSchema(), List.of(empty), 0)) {
        start = t.version();
      }
    }

    @TearDown(Level.Iteration)
    public void check(ConcurrentAppendBench shared) throws Exception {
      try (LanceTable t = LanceTable.open(shared.allocator, dir)) {
        if (t.version() != start + WRITERS * COMMITS) {
          throw new IllegalStateException("lance: expected version " + (start + WRITERS * COMMITS)
              + " after " + WRITERS * COMMITS + " commits, found " + t.version());
        }
        checkEveryRowOnce("lance", t.scanReader(List.of("id"), 0));
      }
      Bench.deleteTree(dir);
    }
  }

  @Benchmark
  public int quiverNoSync(QuiverNoSyncTable table) throws Exception {
    return quiver(table);
  }

  @Benchmark
  public int lance(LanceTarget table) throws Exception {
    List<Callable<Integer>> writers = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      writers.add(() -> {
        try (LanceTable t = LanceTable.open(allocator, table.dir)) {
          for (int c = 0; c < COMMITS; c++) {
            t.append(batches.get(writer * COMMITS + c));
          }
        }
        return COMMITS;
      });
    }
    return race(pool, writers);
  }

  @Benchmark
  public int quiver(QuiverTable table) throws Exception {
    List<Callable<Integer>> writers = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      writers.add(() -> {
        try (Dataset ds = Dataset.open(table.dir.toString(), Bench.quiverOptions(allocator, table.fsync()))) {
          for (int c = 0; c < COMMITS; c++) {
            ds.append(List.of(batches.get(writer * COMMITS + c)));
          }
        }
        return COMMITS;
      });
    }
    return race(pool, writers);
  }
}
