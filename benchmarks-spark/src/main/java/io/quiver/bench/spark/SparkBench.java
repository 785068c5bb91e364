package io.quiver.bench.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;

/**
 * What the Spark benchmarks share: the size profile, the Spark session of a trial, where generated tables
 * live, and the side file for measurements that are not times (bytes read, rows).
 *
 * <p>Generated tables are cached under {@code -Dquiver.bench.dir} (default {@code target/bench-data}) by a key
 * naming the format, the shape and the size, so JMH forks and later runs reuse them; a table is used only
 * once its builder finished (a {@code .complete} marker), so a killed run leaves no half-built table behind.
 */
public final class SparkBench {
  private SparkBench() {}

  /** The size profile, {@code -Dquiver.bench.profile=quick|full} (default quick). */
  public static boolean full() {
    String p = System.getProperty("quiver.bench.profile", "quick").toLowerCase(Locale.ROOT);
    if (!p.equals("quick") && !p.equals("full")) {
      throw new IllegalArgumentException("quiver.bench.profile must be quick or full, got " + p);
    }
    return p.equals("full");
  }

  /** {@code quick} in the quick profile, {@code full} in the full one. */
  public static long size(long quick, long full) {
    return full() ? full : quick;
  }

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

  /** The root directory of generated tables. */
  public static Path dataDir() {
    return Path.of(System.getProperty("quiver.bench.dir", "target/bench-data")).toAbsolutePath();
  }

  /** Builds a table once per key and returns its directory. */
  public static Path cached(String key, TableBuilder builder) {
    Path dir = dataDir().resolve(key);
    Path marker = dataDir().resolve(key + ".complete");
    if (Files.exists(marker) && Files.isDirectory(dir)) {
      return dir;
    }
    try {
      deleteTree(dir);
      Files.createDirectories(dir.getParent());
      builder.build(dir);
      Files.writeString(marker, "");
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException("building benchmark table " + dir, e);
    } catch (Exception e) {
      throw new IllegalStateException("building benchmark table " + dir + " failed", e);
    }
  }

  /** A fresh path (not yet created) under the scratch directory, for a table a benchmark writes or changes. */
  public static Path scratch(String name) {
    try {
      Path base = dataDir().resolve("scratch");
      Files.createDirectories(base);
      Path dir = Files.createTempDirectory(base, name + "-");
      Files.delete(dir);
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Copies a cached Quiver table into a fresh scratch directory, so a benchmark can change it. Files under
   * {@code data/} are hard-linked, not copied (Quiver never changes a written data file: new versions write
   * new files); everything else is copied.
   */
  public static Path copyOf(Path table, String name) {
    Path target = scratch(name);
    try (Stream<Path> files = Files.walk(table)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Path relative = table.relativize(p);
        Path to = target.resolve(relative.toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(to);
        } else if (relative.getNameCount() > 1 && relative.getName(0).toString().equals("data")) {
          Files.createLink(to, p);
        } else {
          Files.copy(p, to, StandardCopyOption.REPLACE_EXISTING);
        }
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("copying " + table, e);
    }
  }

  /** Bytes of all regular files under {@code dir}. */
  public static long sizeOf(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletes a directory tree, if present. */
  public static void deleteTree(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          Files.delete(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
          Files.delete(d);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("deleting " + dir, e);
    }
  }

  /**
   * Records a measurement that is not a time in the file named by {@code -Dquiver.bench.measurements}, one
   * tab-separated line (benchmark, metric, system, value, unit) per record; the report reads them beside
   * JMH's JSON. Without the property the record is printed.
   */
  public static synchronized void record(String benchmark, String metric, String system, double value, String unit) {
    String line = String.join("\t", benchmark, metric, system, Double.toString(value), unit) + "\n";
    String file = System.getProperty("quiver.bench.measurements");
    if (file == null) {
      System.out.print("measurement: " + line);
      return;
    }
    try {
      Files.writeString(Path.of(file), line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Builds a table into a directory that does not exist yet. */
  @FunctionalInterface
  public interface TableBuilder {
    void build(Path dir) throws Exception;
  }
}
