package io.quiver.bench;

import io.quiver.bench.data.BenchData;
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
  Path quiverDir;
  Dataset quiver;
  long quiverFirst;
  long quiverCommits;

  @Setup(Level.Trial)
  public void setup() {
    allocator = new RootAllocator();
    batch = BenchData.batch(allocator, BenchData.smallSchema(), 0, ROWS);
    quiverDir = Bench.scratch("append-quiver");
    quiver = Dataset.create(quiverDir.toString(), BenchData.smallSchema(), List.of(batch),
        Bench.quiverOptions(allocator));
    quiverFirst = quiver.version();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (quiver.latestVersion() != quiverFirst + quiverCommits) {
      throw new IllegalStateException("quiver: " + quiverCommits + " appends from version " + quiverFirst
          + " but the latest version is " + quiver.latestVersion());
    }
    quiver.close();
    Bench.deleteTree(quiverDir);
    batch.close();
    allocator.close();
  }

  @Benchmark
  public long quiver() {
    quiverCommits++;
    return quiver.append(List.of(batch));
  }
}
