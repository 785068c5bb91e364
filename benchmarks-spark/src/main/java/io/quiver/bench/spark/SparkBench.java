package io.quiver.bench.spark;

import io.quiver.bench.Bench;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * What the Spark benchmarks add to the core benchmarks' {@link Bench}: the Spark session of a trial, and
 * table directories in the form Spark's Parquet writer wants them. The size profile, the data directory, the
 * side file for measurements that are not times (bytes read, rows), sizes and deletion are {@link Bench}'s,
 * shared with the core benchmarks.
 *
 * <p>Generated tables are cached under {@code -Dquiver.bench.dir} (default {@code target/bench-data}) by a key
 * naming the format, the shape and the size, so JMH forks and later runs reuse them; a table is used only
 * once its builder finished (a {@code <key>.complete} marker beside it, since Spark writes a directory of its
 * own), so a killed run leaves no half-built table behind.
 */
public final class SparkBench {
  private SparkBench() {}

  /**
   * The session of one JMH trial: {@code local[2]} (the benchmark machine's cores), no UI, two shuffle
   * partitions, the driver on the loopback interface. Stop it with {@link #stop}.
   */
  public static SparkSession session(String name) {
    return SparkSession.builder()
        .master(System.getProperty("quiver.bench.spark.master", "local[2]"))
        .appName("quiver-bench-" + name)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        // Parquet's default; named so the baseline's configuration is on the page.
        .config("spark.sql.parquet.compression.codec", "snappy")
        .getOrCreate();
  }

  /** Stops a trial's session, so the next trial (or test) starts a new one. */
  public static void stop(SparkSession spark) {
    if (spark != null) {
      spark.stop();
    }
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
  }

  /**
   * Builds a table once per key and returns its directory, {@code <data dir>/<key>}; the marker is {@code
   * <key>.complete} beside it, not inside, so the builder gets a directory that does not exist yet.
   */
  public static Path cached(String key, Bench.TableBuilder builder) {
    return Bench.cached(Bench.dataDir().resolve(key), Bench.dataDir().resolve(key + ".complete"), builder);
  }

  /** A fresh path (not yet created) under the scratch directory, for a table a benchmark writes or changes. */
  public static Path scratch(String name) {
    Path dir = Bench.scratch(name);
    try {
      Files.delete(dir);
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
