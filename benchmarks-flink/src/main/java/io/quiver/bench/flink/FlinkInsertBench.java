package io.quiver.bench.flink;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.flink.table.api.TableEnvironment;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * F1: a batch {@code INSERT INTO t SELECT ...} of {@code quiver.bench.insertRows} (default 2M) generated rows
 * into a new Quiver table, into Flink's filesystem connector with format Parquet, and into Flink's blackhole
 * sink (the cost of the job itself: the MiniCluster, the planner, the generator). Each shot is one job; the
 * environment and the DDL are set up before it, the target directory emptied before it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgs = {"-Xms3g", "-Xmx3g", "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED", "--add-opens=java.base/java.net=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED"})
public class FlinkInsertBench {
  @Param({"quiver", "parquet", "blackhole"})
  public String sink;

  long rows;
  Path dir;
  Path target;
  TableEnvironment env;
  int shot;

  @Setup(Level.Trial)
  public void setup() {
    rows = FlinkBench.size("insertRows", 2_000_000);
    dir = FlinkBench.workDir("insert-" + sink);
  }

  @Setup(Level.Invocation)
  public void prepare() {
    FlinkBench.delete(dir);
    target = dir.resolve("t" + shot++);
    env = FlinkBench.batchEnv();
    FlinkBench.declareGenerator(env, rows);
    switch (sink) {
      case "quiver" -> FlinkBench.declareQuiver(env, "t", target, false);
      case "parquet" -> FlinkBench.declareFilesystem(env, "t", target, "parquet");
      case "blackhole" -> FlinkBench.declareBlackhole(env, "t");
      default -> throw new IllegalArgumentException(sink);
    }
  }

  @Benchmark
  public Path insert() {
    FlinkBench.run(env, "INSERT INTO t " + FlinkBench.select("seq"));
    return target;
  }
}
