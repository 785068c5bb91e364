package io.quiver.bench.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.Dataset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.flink.table.api.TableEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each benchmark's jobs once, on a few thousand rows: the SQL plans and runs, and the tables hold what it says. */
class FlinkBenchSmokeTest {
  @Test
  void insert_writesTheRows_intoQuiverAndParquet(@TempDir Path dir) throws Exception {
    TableEnvironment env = FlinkBench.batchEnv();
    FlinkBench.declareGenerator(env, 3_000);
    FlinkBench.declareQuiver(env, "q", dir.resolve("q"), false);
    FlinkBench.declareFilesystem(env, "p", dir.resolve("p"), "parquet");
    FlinkBench.run(env, "INSERT INTO q " + FlinkBench.select("seq"));
    FlinkBench.run(env, "INSERT INTO p " + FlinkBench.select("seq"));
    try (Dataset ds = Dataset.open(dir.resolve("q").toString())) {
      assertThat(ds.countRows()).isEqualTo(3_000);
    }
    try (Stream<Path> files = Files.walk(dir.resolve("p"))) {
      assertThat(files.filter(f -> Files.isRegularFile(f) && !f.getFileName().toString().startsWith("."))
          .count()).isPositive();
    }
  }

  @Test
  void upserts_keepEveryKeyOnce_andTheScanSeesTheRows(@TempDir Path dir) {
    Path table = dir.resolve("t");
    FlinkBench.writeBase(table, 2_000);
    FlinkBench.upsert(table, 2_000, 20, 0);
    FlinkBench.upsert(table, 2_000, 20, 1);
    assertThat(FlinkBench.layout(table)).contains("2,000 live rows");
    try (Dataset ds = Dataset.open(table.toString())) {
      // The ids 0..1999 each once: their sum, plus x = id / 2.
      double ids = 1999.0 * 2000 / 2;
      assertThat(FlinkReadAfterUpsertBench.scan(ds, 2_000)).isEqualTo(ids * 1.5);
    }
  }
}
