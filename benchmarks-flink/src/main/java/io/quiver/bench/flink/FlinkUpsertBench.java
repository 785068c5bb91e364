package io.quiver.bench.flink;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
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
 * F2: one checkpoint's upsert through the SQL upsert sink ({@code PRIMARY KEY (id) NOT ENFORCED}): a batch
 * {@code INSERT} of 1% of the table's keys (new values for existing ids, spread over the whole key range), which
 * the sink commits as ONE row delta, as it does each checkpoint of a streaming job. Every shot upserts the
 * next 1% of the keys into the same table, so the shots see the table's deletion files grow. The table
 * ({@code quiver.bench.upsertRows} rows, default 10M) is written by a Quiver append job in the trial's setup.
 * {@code blackhole}: the same job into Flink's blackhole sink, the part of a shot that is not the sink.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgs = {"-Xms3g", "-Xmx3g", "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED", "--add-opens=java.base/java.net=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED"})
public class FlinkUpsertBench {
  @Param({"quiver", "blackhole"})
  public String sink;

  long rows;
  long keys;
  Path table;
  int round;
  long baseBytes;

  @Setup(Level.Trial)
  public void setup() {
    rows = FlinkBench.size("upsertRows", 10_000_000);
    keys = rows / 100;
    table = FlinkBench.workDir("upsert-" + sink).resolve("t");
    if (sink.equals("quiver")) {
      long start = System.nanoTime();
      FlinkBench.writeBase(table, rows);
      System.out.printf("%nbase table of %,d rows written in %.1f s: %s%n", rows,
          (System.nanoTime() - start) / 1e9, FlinkBench.layout(table));
      baseBytes = FlinkBench.bytesUnder(table);
    }
  }

  @Benchmark
  public int upsert() {
    if (sink.equals("quiver")) {
      FlinkBench.upsert(table, rows, keys, round);
    } else {
      var env = FlinkBench.batchEnv();
      FlinkBench.declareGenerator(env, keys);
      FlinkBench.declareBlackhole(env, "up");
      FlinkBench.run(env, "INSERT INTO up " + FlinkBench.select(FlinkBench.upsertKey(rows, keys, round)));
    }
    return round++;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (sink.equals("quiver")) {
      long written = FlinkBench.bytesUnder(table) - baseBytes;
      System.out.printf("%nafter %d upserts of %,d keys: %s; %,d bytes written by the upserts (%,d per upsert,"
          + " %.2f%% of the base table's %,d bytes)%n", round, keys, FlinkBench.layout(table), written,
          written / Math.max(1, round), 100.0 * written / Math.max(1, round) / baseBytes, baseBytes);
    }
  }
}
