package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.bench.lance.LanceTable;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.Session;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
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
 * Benchmark 7: does a table's size (1k, 10k, 100k, 1M fragments of {@value #ROWS_PER_FRAGMENT} rows) slow
 * down opening it and planning a scan, or committing a one-fragment append? Opening is measured three ways:
 * with nothing of the table in the process (a new session per open; its files in the OS page cache), from a
 * cold OS cache too ({@code openCold*}: the page cache dropped before each single-shot open, as a process
 * that starts on a machine that has not read the table; Linux, as root), and warm (one session across
 * opens, as a service reopening the latest version keeps it). The append runs on a copy of the
 * cached table (its data files hard-linked), so the cached one keeps its size. Lance is measured up to
 * {@value #LANCE_MAX_FRAGMENTS} fragments: its 100k append already rewrites a 600 ms manifest, and a 1M table
 * takes hours to build here; run Lance's benchmarks with {@code -p fragments=} at most that (benchmarks/run.sh
 * does).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class TableSizeBench {
  static final int ROWS_PER_FRAGMENT = 10;
  static final int LANCE_MAX_FRAGMENTS = 100_000;

  @Param({"1000", "10000", "100000", "1000000"})
  public int fragments;

  BufferAllocator allocator;
  Path quiverTemplate;
  Path lanceTemplate;
  Session warmSession;

  @Setup(Level.Trial)
  public void setup() {
    allocator = new RootAllocator();
    // "-seg": segmented manifests (format 1.2, the default for new tables); earlier caches were single-file.
    quiverTemplate = Tables.quiver("quiver-fragments-" + fragments + "-seg", BenchData.smallSchema(),
        (long) fragments * ROWS_PER_FRAGMENT, ROWS_PER_FRAGMENT);
    if (fragments <= LANCE_MAX_FRAGMENTS) {
      lanceTemplate = Tables.lance("lance-fragments-" + fragments, BenchData.smallSchema(),
          (long) fragments * ROWS_PER_FRAGMENT, ROWS_PER_FRAGMENT);
    }
    warmSession = new Session(1L << 30);
  }

  Path lanceTemplate() {
    if (lanceTemplate == null) {
      throw new IllegalStateException("Lance is measured up to " + LANCE_MAX_FRAGMENTS + " fragments, not "
          + fragments + "; pass -p fragments=1000,10000,100000 to Lance's benchmarks");
    }
    return lanceTemplate;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    allocator.close();
  }

  /** Opens the latest version and plans a full scan, nothing cached; returns the number of fragments planned. */
  @Benchmark
  public int openQuiver() throws Exception {
    return openAndPlan(Session.withDefaults());
  }

  /**
   * The same through one session kept across opens (its cached version, root and segments reused), sized to
   * hold every segment of the largest table (1 GiB; the default session holds 256 MiB).
   */
  @Benchmark
  public int openWarmQuiver() throws Exception {
    return openAndPlan(warmSession);
  }

  private int openAndPlan(Session session) throws Exception {
    try (Dataset ds = Dataset.open(quiverTemplate.toString(),
            Bench.quiverOptions(allocator).toBuilder().session(session).build());
        ArrowReader planned = ds.newScan().open()) {
      int n = ds.manifest().fragments().size();
      if (n < fragments) {
        throw new IllegalStateException("quiver: planned " + n + " fragments, expected " + fragments);
      }
      return n;
    }
  }

  /**
   * Before each iteration: writes dirty pages back and drops the OS page cache, dentries and inodes ({@code
   * /proc/sys/vm/drop_caches}), so the open that follows reads every file from the disk.
   */
  @State(Scope.Thread)
  public static class ColdCache {
    static final Path DROP_CACHES = Path.of("/proc/sys/vm/drop_caches");

    @Setup(Level.Iteration)
    public void drop() throws Exception {
      Process sync = new ProcessBuilder("sync").inheritIO().start();
      if (sync.waitFor() != 0) {
        throw new IllegalStateException("sync exited with " + sync.exitValue() + "; cannot start from a cold cache");
      }
      try {
        java.nio.file.Files.writeString(DROP_CACHES, "3");
      } catch (java.io.IOException e) {
        throw new IllegalStateException("cannot write " + DROP_CACHES + " (" + e + "): the cold-cache opens need"
            + " Linux and root; run the other benchmarks with a regex that leaves out openCold", e);
      }
    }
  }

  /** {@link #openQuiver} after the OS page cache was dropped: one open per iteration. */
  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 5)
  @Measurement(iterations = 10)
  public int openColdQuiver(ColdCache cold) throws Exception {
    return openAndPlan(Session.withDefaults());
  }

  /** {@link #openLance} after the OS page cache was dropped: one open per iteration. */
  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 5)
  @Measurement(iterations = 10)
  public long openColdLance(ColdCache cold) {
    return openLance();
  }

  /** Opens the latest version (a new handle, nothing cached) and lists every fragment's files. */
  @Benchmark
  public long openLance() {
    try (LanceTable t = LanceTable.open(allocator, lanceTemplate())) {
      if (t.fragmentCount() < fragments) {
        throw new IllegalStateException("lance: " + t.fragmentCount() + " fragments, expected " + fragments);
      }
      return t.planScan();
    }
  }

  /** A copy of the Lance table and an open handle on it. */
  @State(Scope.Benchmark)
  public static class LanceCopy {
    Path dir;
    LanceTable table;
    VectorSchemaRoot batch;

    @Setup(Level.Trial)
    public void copy(TableSizeBench shared) {
      dir = Bench.copyOf(shared.lanceTemplate(), "size-lance");
      table = LanceTable.open(shared.allocator, dir);
      batch = BenchData.batch(shared.allocator, BenchData.smallSchema(), 0, ROWS_PER_FRAGMENT);
    }

    @TearDown(Level.Trial)
    public void delete() {
      batch.close();
      table.close();
      Bench.deleteTree(dir);
    }
  }

  /** Commits one new fragment. */
  @Benchmark
  public long appendLance(LanceCopy copy) {
    return copy.table.append(copy.batch);
  }

  /** A copy of the table and an open handle on it, for the append benchmark. */
  @State(Scope.Benchmark)
  public static class QuiverCopy {
    Path dir;
    Dataset ds;
    VectorSchemaRoot batch;

    boolean fsync() {
      return true;
    }

    @Setup(Level.Trial)
    public void copy(TableSizeBench shared) {
      dir = Bench.copyOf(shared.quiverTemplate, "size-quiver");
      ds = Dataset.open(dir.toString(), Bench.quiverOptions(shared.allocator, fsync()));
      batch = BenchData.batch(shared.allocator, BenchData.smallSchema(), 0, ROWS_PER_FRAGMENT);
    }

    long firstVersion;
    long metadataBytesBefore;

    @Setup(Level.Iteration)
    public void mark() {
      firstVersion = ds.latestVersion();
      metadataBytesBefore = metadataBytes(dir);
    }

    /** Metadata bytes (version files, roots, segments, transactions) written per commit this iteration. */
    @TearDown(Level.Iteration)
    public void measure(TableSizeBench shared) {
      long commits = ds.latestVersion() - firstVersion;
      if (commits > 0) {
        Bench.record("TableSizeBench", "metadata bytes per commit" + (fsync() ? "" : ", fsync off"),
            "quiver fragments=" + shared.fragments, (double) (metadataBytes(dir) - metadataBytesBefore) / commits,
            "bytes");
      }
    }

    @TearDown(Level.Trial)
    public void delete() {
      batch.close();
      ds.close();
      Bench.deleteTree(dir);
    }
  }

  /**
   * Total size of the files under the table's metadata prefixes: version files, roots, segments and segment
   * lists, transaction files and transaction batches.
   */
  static long metadataBytes(Path table) {
    long total = 0;
    for (String prefix : List.of("_versions", "_manifests", "_segments", "_transactions", "_txlog")) {
      Path d = table.resolve(prefix);
      if (!java.nio.file.Files.isDirectory(d)) {
        continue;
      }
      try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(d)) {
        total += files.mapToLong(f -> f.toFile().length()).sum();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return total;
  }

  /** The same without fsync, as Lance's local store writes. */
  public static class QuiverNoSyncCopy extends QuiverCopy {
    @Override
    boolean fsync() {
      return false;
    }
  }

  @Benchmark
  public long appendQuiverNoSync(QuiverNoSyncCopy copy) {
    return appendQuiver(copy);
  }

  /** Commits one new fragment. */
  @Benchmark
  public long appendQuiver(QuiverCopy copy) {
    return copy.ds.append(List.of(copy.batch));
  }
}
