package io.quiver.bench.flink;

import io.quiver.dataset.Dataset;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import io.quiver.dataset.DatasetOptions;
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
 * F3: a full scan (every column; the checksum sums {@code id} and {@code x} and counts rows) with Quiver's Java
 * scanner of a table after {@code quiver.bench.upsertRounds} (default 5) upsert checkpoints of 1% of its keys
 * each through the SQL upsert sink, and of an append-only table of the same rows written by the same append job
 * (the upserted table before its upserts). Both tables are built in the trial's setup; their layout is printed.
 * Target: the upserted table's scan within 1.2x the append-only table's.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(value = 1, jvmArgs = {"-Xms3g", "-Xmx3g", "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED", "--add-opens=java.base/java.net=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED"})
public class FlinkReadAfterUpsertBench {
  @Param({"upserted", "append-only"})
  public String table;

  long rows;
  BufferAllocator allocator;
  Dataset ds;

  @Setup(Level.Trial)
  public void setup() {
    rows = FlinkBench.size("upsertRows", 10_000_000);
    int rounds = (int) FlinkBench.size("upsertRounds", 5);
    Path path = FlinkBench.workDir("read-" + table).resolve("t");
    FlinkBench.writeBase(path, rows);
    if (table.equals("upserted")) {
      for (int round = 0; round < rounds; round++) {
        FlinkBench.upsert(path, rows, rows / 100, round);
      }
    }
    System.out.printf("%n%s table: %s%n", table, FlinkBench.layout(path));
    allocator = new RootAllocator();
    ds = Dataset.open(path.toAbsolutePath().toString(), DatasetOptions.builder().allocator(allocator).build());
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    ds.close();
    allocator.close();
  }

  @Benchmark
  public double scan() {
    return scan(ds, rows);
  }

  /** Scans every column of {@code ds}; checks the row count is {@code rows}; returns a checksum. */
  static double scan(Dataset ds, long rows) {
    long count = 0;
    double sum = 0;
    try (ArrowReader reader = ds.newScan().open()) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      while (reader.loadNextBatch()) {
        BigIntVector id = (BigIntVector) root.getVector("id");
        Float8Vector x = (Float8Vector) root.getVector("x");
        int n = root.getRowCount();
        for (int i = 0; i < n; i++) {
          sum += id.get(i) + (x.isNull(i) ? 0 : x.get(i));
        }
        count += n;
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    if (count != rows) {
      throw new IllegalStateException("scanned " + count + " rows, expected " + rows);
    }
    return sum;
  }
}
