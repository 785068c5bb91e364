package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * Sustained commits per second into one table (issue 44, item 6): {@code writers} handles, each appending
 * {@link #COMMITS_PER_WRITER} batches of 100 rows one commit at a time, all started together, on the local store
 * (fsync on) and on S3Proxy. One operation is every writer's commits; commits/s is {@code writers *
 * COMMITS_PER_WRITER / time}. Concurrent appends never conflict, so every lost claim is a rebase onto the new
 * latest version and a new claim: the figure is the commit protocol's, with the rebases under contention in it.
 * The teardown checks the version count (every commit landed once).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
public class CommitRateBench {
  public static final int COMMITS_PER_WRITER = 25;
  public static final int ROWS = 100;

  @Param({"local", "s3proxy"})
  public String store;

  @Param({"1", "4", "8"})
  public int writers;

  BufferAllocator allocator;
  List<VectorSchemaRoot> batches;
  ExecutorService pool;
  S3Proxy s3proxy;
  Map<String, String> storeOptions;
  String uri;
  long start;
  final AtomicInteger iteration = new AtomicInteger();

  @Setup(Level.Trial)
  public void setupTrial() throws Exception {
    allocator = new RootAllocator();
    batches = new ArrayList<>();
    for (int i = 0; i < writers * COMMITS_PER_WRITER; i++) {
      batches.add(BenchData.batch(allocator, BenchData.smallSchema(), (long) i * ROWS, ROWS));
    }
    pool = Executors.newFixedThreadPool(writers);
    if (store.equals("s3proxy")) {
      s3proxy = S3Proxy.start();
      storeOptions = s3proxy.storeOptions();
    } else {
      storeOptions = Map.of();
    }
    Bench.record("CommitRateBench", "commits", store + "/" + writers, writers * COMMITS_PER_WRITER, "commits");
  }

  @TearDown(Level.Trial)
  public void tearDownTrial() throws Exception {
    pool.shutdownNow();
    batches.forEach(VectorSchemaRoot::close);
    if (s3proxy != null) {
      s3proxy.close();
    }
    allocator.close();
  }

  private DatasetOptions options() {
    return Bench.quiverOptions(allocator).toBuilder().storeOptions(storeOptions).build();
  }

  @Setup(Level.Iteration)
  public void createTable() {
    String name = "commit-rate-" + writers + "-" + iteration.incrementAndGet();
    if (s3proxy != null) {
      uri = s3proxy.uri(name);
    } else {
      Path dir = Bench.scratch(name);
      Bench.deleteTree(dir);
      uri = dir.toString();
    }
    try (VectorSchemaRoot empty = BenchData.batch(allocator, BenchData.smallSchema(), 0, 0);
        Dataset ds = Dataset.create(uri, BenchData.smallSchema(), List.of(empty), options())) {
      start = ds.version();
    }
  }

  @TearDown(Level.Iteration)
  public void check() {
    try (Dataset ds = Dataset.open(uri, options())) {
      long expected = start + (long) writers * COMMITS_PER_WRITER;
      if (ds.version() != expected || ds.countRows() != (long) writers * COMMITS_PER_WRITER * ROWS) {
        throw new IllegalStateException(store + ": expected version " + expected + " and "
            + writers * COMMITS_PER_WRITER * ROWS + " rows, found v" + ds.version() + ", " + ds.countRows());
      }
    }
    if (s3proxy == null) {
      Bench.deleteTree(Path.of(uri));
    }
  }

  @Benchmark
  public int commits() throws Exception {
    List<Callable<Integer>> work = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      work.add(() -> {
        try (Dataset ds = Dataset.open(uri, options())) {
          for (int c = 0; c < COMMITS_PER_WRITER; c++) {
            ds.append(List.of(batches.get(writer * COMMITS_PER_WRITER + c)));
          }
        }
        return COMMITS_PER_WRITER;
      });
    }
    return ConcurrentAppendBench.race(pool, work);
  }
}
