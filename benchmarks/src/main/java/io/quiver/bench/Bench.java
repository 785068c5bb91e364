package io.quiver.bench;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.DatasetOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;

/**
 * What the benchmarks share: the size profile, where generated tables live, Quiver's options, and the
 * side file where benchmarks record measurements that are not times (bytes read, bytes written).
 *
 * <p>Generated tables are cached under {@code -Dquiver.bench.dir} (default {@code target/bench-data})
 * by a key naming the system, the shape and the size, so JMH forks and later runs reuse them; a table
 * is only used once its builder finished (a {@code .complete} marker), so a killed run never leaves a
 * half-built table behind for the next.
 */
public final class Bench {
  /** Rows per fragment for both systems: Lance's default {@code max_rows_per_file}. */
  public static final int ROWS_PER_FRAGMENT = 1 << 20;
  /** Rows per batch written and read, for both systems. */
  public static final int BATCH_ROWS = 8192;

  private Bench() {}

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

  /** The root directory of generated tables. */
  public static Path dataDir() {
    return Path.of(System.getProperty("quiver.bench.dir", "target/bench-data")).toAbsolutePath();
  }

  /** Builds a table once per key and returns its directory. */
  public static Path cached(String key, TableBuilder builder) {
    Path dir = dataDir().resolve(key);
    return cached(dir, dir.resolve(".complete"), builder);
  }

  /**
   * Builds a table into {@code dir} once and returns {@code dir}: the table counts as built once {@code marker}
   * exists (written after the builder returned) and {@code dir} is a directory; otherwise whatever is at {@code
   * dir} is deleted and the builder runs again on the absent directory. {@link #cached(String, TableBuilder)}
   * keeps the marker inside the table; a harness whose tables are written by a tool that wants a directory of
   * its own (Spark's Parquet writer, benchmarks-spark) keeps it beside. A benchmark harness helper, not Quiver
   * API.
   */
  public static Path cached(Path dir, Path marker, TableBuilder builder) {
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

  /** A fresh, empty directory for a table that the benchmark will change. */
  public static Path scratch(String name) {
    try {
      Path base = dataDir().resolve("scratch");
      Files.createDirectories(base);
      return Files.createTempDirectory(base, name + "-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Copies a (cached) table into a fresh scratch directory, so a benchmark can change it. Files under
   * {@code data/} are hard-linked, not copied: neither system ever changes a written data file.
   */
  public static Path copyOf(Path table, String name) {
    Path target = scratch(name);
    try (Stream<Path> files = Files.walk(table)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Path to = target.resolve(table.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(to);
        } else if (p.getFileName().toString().equals(".complete")) {
          continue;
        } else if (table.relativize(p).getName(0).toString().equals("data")) {
          // Data files are immutable in both systems (new versions write new files): share them.
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
      return files.filter(Files::isRegularFile).mapToLong(p -> {
        try {
          return Files.size(p);
        } catch (IOException e) {
          return 0;
        }
      }).sum();
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
   * The default registry with {@code file://} stores that count what they read: each open puts its counting store
   * in {@code holder[0]} (a cold projected scan's bytes fetched). A benchmark harness helper, not Quiver API.
   */
  public static io.quiver.store.ObjectStores countingFileRegistry(io.quiver.store.CountingObjectStore[] holder) {
    return countingRegistry("file", holder);
  }

  /** {@link #countingFileRegistry} for the stores of {@code scheme} ({@code s3} for S3Proxy). */
  public static io.quiver.store.ObjectStores countingRegistry(String scheme, io.quiver.store.CountingObjectStore[] holder) {
    io.quiver.store.ObjectStores base = io.quiver.store.ObjectStores.defaultRegistry();
    return base.register(new io.quiver.store.ObjectStoreProvider() {
      @Override
      public java.util.Set<String> schemes() {
        return java.util.Set.of(scheme);
      }

      @Override
      public io.quiver.store.ObjectStore open(java.net.URI uri, java.util.Map<String, String> options) {
        holder[0] = new io.quiver.store.CountingObjectStore(base.open(uri.toString(), options));
        return holder[0];
      }
    });
  }

  /** Quiver's options for benchmark tables: the shared fragment and batch sizes, patient commits. */
  public static DatasetOptions quiverOptions(BufferAllocator allocator) {
    return quiverOptions(allocator, true);
  }

  /**
   * {@link #quiverOptions(BufferAllocator)}, durable or not: with {@code fsync} false the local store
   * skips its fsyncs ({@code local.fsync=false}), which is how Lance's local store writes; the write
   * benchmarks run Quiver both ways so the cost of durability is visible on its own.
   */
  public static DatasetOptions quiverOptions(BufferAllocator allocator, boolean fsync) {
    return DatasetOptions.builder()
        .allocator(allocator)
        .storeOptions(java.util.Map.of("local.fsync", Boolean.toString(fsync)))
        .maxRowsPerFragment(ROWS_PER_FRAGMENT)
        .rowsPerBatch(BATCH_ROWS)
        .commitOptions(CommitOptions.defaults().withMaxAttempts(10_000).withTimeout(Duration.ofMinutes(5)))
        .build();
  }

  /**
   * Records a measurement that is not a time (for example bytes read per projected byte) in the file
   * named by {@code -Dquiver.bench.measurements}, one tab-separated line per record; the report reads
   * them next to JMH's JSON. Without the property the record is printed.
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

  /**
   * Bytes this process has read through read syscalls so far ({@code rchar} of {@code /proc/self/io}, all
   * threads, native ones included), or -1 where there is no such file. Counts page-cache hits too, so it
   * measures what a reader asked the OS for, the same way for Quiver and for Lance.
   */
  public static long processBytesRead() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
        if (line.startsWith("rchar:")) {
          return Long.parseLong(line.substring(6).trim());
        }
      }
      return -1;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** Builds a table into a directory that does not exist yet (its parent does). */
  @FunctionalInterface
  public interface TableBuilder {
    void build(Path dir) throws Exception;
  }
}
