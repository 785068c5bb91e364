package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.Session;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Benchmark 8 (Quiver only): the cost of committing an append from a handle whose read version is 1,
 * 10, 100 or 1,000 versions behind: the commit must read and check every transaction committed since (from
 * the transaction batches of the complete 64-version blocks in between, and the version files of the rest).
 * Before each operation (untimed) a stale handle with nothing cached is opened at {@code latest -
 * behind}; the operation is its one-row append, which commits at {@code latest + 1}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 10, time = 3)
public class ConflictCostBench {
  static final int HISTORY = 1000;

  @Param({"1", "10", "100", "1000"})
  public int behind;

  BufferAllocator allocator;
  VectorSchemaRoot batch;
  Path dir;
  Dataset writer;
  Dataset handle;
  Dataset stale;
  long latest;

  @Setup(Level.Trial)
  public void setup() {
    allocator = new RootAllocator();
    batch = BenchData.batch(allocator, BenchData.smallSchema(), 0, 1);
    // "-seg-txlog": written with segmented manifests (format 1.2) and transaction batches; histories cached
    // before them were single-file, or had no batches.
    Path template = Bench.cached("quiver-history-" + HISTORY + "-seg-txlog", t -> {
      try (BufferAllocator a = new RootAllocator();
          VectorSchemaRoot one = BenchData.batch(a, BenchData.smallSchema(), 0, 1);
          Dataset ds = Dataset.create(t.toString(), BenchData.smallSchema(), List.of(one), Bench.quiverOptions(a))) {
        for (int i = 0; i < HISTORY; i++) {
          ds.append(List.of(one));
        }
      }
    });
    dir = Bench.copyOf(template, "conflict-quiver");
    writer = Dataset.open(dir.toString(), Bench.quiverOptions(allocator));
  }

  @Setup(Level.Invocation)
  public void openStale() {
    latest = writer.latestVersion();
    handle = Dataset.open(dir.toString(),
        Bench.quiverOptions(allocator).toBuilder().session(new Session(64L << 20)).build());
    stale = handle.checkout(latest - behind);
  }

  @TearDown(Level.Invocation)
  public void closeStale() {
    long committed = stale.version();
    stale.close();
    handle.close();
    if (committed != latest + 1) {
      throw new IllegalStateException("the stale append committed version " + committed + ", expected " + (latest + 1));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    writer.close();
    Bench.deleteTree(dir);
    batch.close();
    allocator.close();
  }

  @Benchmark
  public long quiver() {
    return stale.append(List.of(batch));
  }
}
