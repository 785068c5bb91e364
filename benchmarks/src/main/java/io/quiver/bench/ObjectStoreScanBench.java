package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Session;
import io.quiver.predicate.Predicate;
import io.quiver.store.CountingObjectStore;
import io.quiver.store.ObjectStores;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
 * ZSTD default) is read from local disk and from S3Proxy 4.1.0 ({@link S3Proxy}), with
 * the scans' fetch plan ({@code plan=true}, the default) and without it ({@code plan=false}: each batch
 * fetched with its own requests when the decoder reaches it, as before fetch plans). Two scans: the {@code
 * id} column alone, and {@code id < 100} (a filter that still reads every batch: no pruning here). The set-up
 * records, per store and plan, the GETs (store reads) and bytes each scan issued, through a counting
 * store with warm footer caches. The fetch settings are the store's ({@code ObjectStore.fetchTuning()}: 8 KiB
 * gap and reads on the scanning thread locally, 1 MiB gap and 8 requests in flight on S3) unless {@code
 * gapBytes} or {@code inFlight} set them. The target: a projected scan on S3Proxy within 1.5× of
 * local disk.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class ObjectStoreScanBench {
  static final int COLUMNS = 4;

  @Param({"local", "s3proxy"})
  public String store;

  @Param({"true", "false"})
  public boolean plan;

  /**
   * {@code coalesceGapBytes}; -1: the store's (8 KiB local, which merges nothing across the other columns
   * of a batch; 1 MiB on S3, which trades bytes for requests).
   */
  @Param({"-1", "8192"})
  public int gapBytes;

  /** {@code fetchRequestsInFlight}; -1: the store's (0 local, 8 on S3). */
  @Param({"-1"})
  public int inFlight;

  long rows;
  BufferAllocator allocator;
  S3Proxy s3proxy;
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
      s3proxy = S3Proxy.start();
      storeOptions = s3proxy.storeOptions();
      uri = s3proxy.uri("t");
      s3proxy.upload(local, uri);
    }
    ObjectStores registry = Bench.countingRegistry(URI.create(uri).getScheme(), counting);
    DatasetOptions.Builder builder = Bench.quiverOptions(allocator).toBuilder()
        .storeOptions(storeOptions)
        .registry(registry)
        .session(new Session(256L << 20))
        .fetchPlans(plan);
    if (gapBytes >= 0) {
      builder.coalesceGapBytes(gapBytes);
    }
    if (inFlight >= 0) {
      builder.fetchRequestsInFlight(inFlight);
    }
    table = Dataset.open(uri, builder.build());
    String system = store + (plan ? " fetch plan" : " per batch") + (gapBytes < 0 ? "" : " gap " + gapBytes)
        + (inFlight < 0 ? "" : " in flight " + inFlight);
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

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    table.close();
    allocator.close();
    if (s3proxy != null) {
      s3proxy.close();
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
