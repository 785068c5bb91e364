package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Session;
import io.quiver.predicate.Predicate;
import io.quiver.store.CountingObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.ObjectStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
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
 * Benchmark 11: scans through an object store. The same table (id int64 and three other 8-byte columns,
 * ZSTD default) is read from local disk and from S3Proxy 4.1.0 (jclouds {@code transient} backend, a child
 * process on 127.0.0.1 started from the Maven-resolved jar, {@code -Dquiver.s3proxy.jar} to override), with
 * the scans' fetch plan ({@code plan=true}, the default) and without it ({@code plan=false}: each batch
 * fetched with its own requests when the decoder reaches it, as before fetch plans). Two scans: the {@code
 * id} column alone, and {@code id < 100} (a filter that still reads every batch: no pruning here). The set-up
 * records, per store and plan, the GETs (store reads) and bytes each scan issued, through a counting
 * store with warm footer caches. The target: a projected scan on S3Proxy within 1.5× of local disk.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class ObjectStoreScanBench {
  static final int COLUMNS = 4;
  static final String BUCKET = "quiver-bench";

  @Param({"local", "s3proxy"})
  public String store;

  @Param({"true", "false"})
  public boolean plan;

  /**
   * {@code coalesceGapBytes}: the default 8 KiB merges nothing across the other columns of a batch; a wider
   * gap trades bytes for requests (worth it where a request costs milliseconds).
   */
  @Param({"8192"})
  public int gapBytes;

  long rows;
  BufferAllocator allocator;
  Process s3proxy;
  Dataset table;
  CountingObjectStore[] counting = new CountingObjectStore[1];

  @Setup(Level.Trial)
  public void setup() throws Exception {
    rows = Bench.size(2_000_000, 10_000_000);
    allocator = new RootAllocator();
    Path local = Tables.quiver("quiver-wide-" + COLUMNS + "-" + rows, BenchData.wideSchema(COLUMNS), rows);
    String uri;
    Map<String, String> storeOptions;
    if (store.equals("local")) {
      uri = local.toUri().toString();
      storeOptions = Map.of();
    } else {
      int port = startS3Proxy();
      storeOptions = Map.of("s3.endpoint", "http://127.0.0.1:" + port, "s3.region", "us-east-1",
          "s3.path-style-access", "true", "s3.access-key-id", "bench", "s3.secret-access-key", "bench-secret");
      uri = "s3://" + BUCKET + "/t";
      upload(local, uri, storeOptions);
    }
    ObjectStores base = ObjectStores.defaultRegistry();
    ObjectStores registry = base.register(new ObjectStoreProvider() {
      @Override
      public Set<String> schemes() {
        return Set.of(URI.create(uri).getScheme());
      }

      @Override
      public ObjectStore open(URI u, Map<String, String> options) {
        counting[0] = new CountingObjectStore(base.open(u.toString(), options));
        return counting[0];
      }
    });
    DatasetOptions options = Bench.quiverOptions(allocator).toBuilder()
        .storeOptions(storeOptions)
        .registry(registry)
        .session(new Session(256L << 20))
        .fetchPlans(plan)
        .coalesceGapBytes(gapBytes)
        .build();
    table = Dataset.open(uri, options);
    String system = store + (plan ? " fetch plan" : " per batch") + (gapBytes == 8192 ? "" : " gap " + gapBytes);
    for (String scan : List.of("projected", "filtered")) {
      Scans.drain(open(scan)); // footers cached
      counting[0].reset();
      Scans.drain(open(scan));
      Bench.record("ObjectStoreScanBench", scan + " scan GETs", system, counting[0].readCalls(), "requests");
      Bench.record("ObjectStoreScanBench", scan + " scan bytes fetched", system, counting[0].bytesRead(), "bytes");
    }
  }

  private ArrowReader open(String scan) {
    return scan.equals("projected")
        ? table.newScan().columns("id").batchSize(Bench.BATCH_ROWS).open()
        : table.newScan().columns("id", "i1").filter(Predicate.lt("id", 100L)).batchSize(Bench.BATCH_ROWS).open();
  }

  /** Starts S3Proxy (in-memory backend, no signature check) on a free port and creates the bucket. */
  private int startS3Proxy() throws Exception {
    Path jar = Path.of(System.getProperty("quiver.s3proxy.jar", System.getProperty("user.home")
        + "/.m2/repository/org/gaul/s3proxy/4.1.0/s3proxy-4.1.0-jar-with-dependencies.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("S3Proxy jar not found at " + jar + "; resolve org.gaul:s3proxy:4.1.0"
          + ":jar-with-dependencies (conformance-tests does) or pass -Dquiver.s3proxy.jar=<path>");
    }
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path dir = Bench.scratch("s3proxy-" + port);
    Path config = dir.resolve("s3proxy.conf");
    Files.writeString(config, String.join("\n",
        "s3proxy.endpoint=http://127.0.0.1:" + port,
        "s3proxy.authorization=none",
        "jclouds.provider=transient",
        "jclouds.identity=bench",
        "jclouds.credential=bench-secret", ""));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    s3proxy = new ProcessBuilder(java, "-Xmx2g", "-jar", jar.toString(), "--properties", config.toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("s3proxy.log").toFile()).start();
    HttpClient http = HttpClient.newHttpClient();
    URI bucket = URI.create("http://127.0.0.1:" + port + "/" + BUCKET);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(bucket).PUT(HttpRequest.BodyPublishers.noBody()).build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 == 2) {
          return port;
        }
        throw new IllegalStateException("S3Proxy refused to create bucket " + BUCKET + ": " + r.statusCode() + " " + r.body());
      } catch (IOException e) {
        if (System.nanoTime() > deadline || !s3proxy.isAlive()) {
          throw new IllegalStateException("S3Proxy did not start; see " + dir.resolve("s3proxy.log"), e);
        }
        Thread.sleep(200); // harness start-up, not a measurement
      }
    }
  }

  /** Copies every file of the local table to the S3 table's keys, byte for byte. */
  private static void upload(Path local, String uri, Map<String, String> storeOptions) throws IOException {
    try (ObjectStore s3 = ObjectStores.defaultRegistry().open(uri, storeOptions);
        Stream<Path> files = Files.walk(local)) {
      files.filter(Files::isRegularFile).forEach(f -> {
        String key = local.relativize(f).toString().replace('\\', '/');
        if (key.startsWith(".") || key.contains("/.")) {
          return; // the benchmark cache's own markers
        }
        try {
          s3.write(key, Files.readAllBytes(f));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    table.close();
    allocator.close();
    if (s3proxy != null) {
      s3proxy.destroy();
      s3proxy.waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Benchmark
  public long projectedScan() {
    return Scans.drain(open("projected"));
  }

  @Benchmark
  public long filteredScan() {
    return Scans.drain(open("filtered"));
  }
}
