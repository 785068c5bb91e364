package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.bench.lance.LanceTable;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Session;
import io.quiver.store.CountingObjectStore;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
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
 * Benchmark 3 ({@link TakeBench}: 1,000 random rows, seeded, of id, x, s from benchmark 1's table) through
 * an object store: Quiver on local disk, Quiver on S3Proxy 4.1.0 ({@link S3Proxy}; the table uploaded once
 * per trial), and Lance on local disk (Lance cannot read S3Proxy in this harness), in one run so their
 * ratios can be read together. Every take's ids are checked. The set-up records the GETs ({@code
 * readRanges} calls and single reads), the ranges asked for and the bytes of one take through a counting
 * store, footers cached: take's point reads go through {@code ObjectStore.readRanges}, which the S3 adapter
 * serves with parallel ranged GETs on its bounded read pool ({@code s3.read-parallelism}, 16); nearby ranges
 * are merged first, up to the store's take gap ({@code ObjectStore.fetchTuning()}) unless {@code takeGap} sets it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class ObjectStoreTakeBench {
  @Param({"quiver-local", "quiver-s3proxy", "lance-local"})
  public String system;

  /** {@code takeGapBytes}; -1: the store's (8 KiB local, 256 KiB on S3). */
  @Param({"-1"})
  public int takeGap;

  long[] positions;
  long[] addresses;
  long expected;
  BufferAllocator allocator;
  S3Proxy s3proxy;
  Dataset quiver;
  LanceTable lance;
  CountingObjectStore[] counting = new CountingObjectStore[1];

  @Setup(Level.Trial)
  public void setup() throws Exception {
    long rows = Bench.size(500_000, 10_000_000);
    allocator = new RootAllocator();
    positions = BenchData.randomRows(rows, TakeBench.TAKE, 7);
    for (long p : positions) {
      expected += p;
    }
    if (system.startsWith("lance")) {
      lance = LanceTable.open(allocator, Tables.lanceScanTable(rows));
      return;
    }
    Path local = Tables.quiverScanTable(rows);
    DatasetOptions.Builder options = Bench.quiverOptions(allocator).toBuilder().session(new Session(256L << 20));
    if (takeGap >= 0) {
      options.takeGapBytes(takeGap);
    }
    String uri = local.toUri().toString();
    if (system.equals("quiver-s3proxy")) {
      s3proxy = S3Proxy.start();
      uri = s3proxy.uri("t");
      s3proxy.upload(local, uri);
      options.storeOptions(s3proxy.storeOptions());
    }
    quiver = Dataset.open(uri, options.registry(Bench.countingRegistry(URI.create(uri).getScheme(), counting)).build());
    addresses = Tables.addresses(quiver, positions);
    quiver().close(); // footers cached
    counting[0].reset();
    quiver().close();
    String label = system + (takeGap < 0 ? "" : " take gap " + takeGap);
    Bench.record("ObjectStoreTakeBench", "take store calls", label, counting[0].readCalls(), "calls");
    Bench.record("ObjectStoreTakeBench", "take ranges (one GET each on S3)", label, counting[0].rangesRead(), "ranges");
    Bench.record("ObjectStoreTakeBench", "take bytes fetched", label, counting[0].bytesRead(), "bytes");
  }

  private VectorSchemaRoot quiver() {
    return quiver.take(addresses, TakeBench.COLUMNS);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    if (quiver != null) {
      quiver.close();
    }
    if (lance != null) {
      lance.close();
    }
    allocator.close();
    if (s3proxy != null) {
      s3proxy.close();
    }
  }

  @Benchmark
  public long take() {
    try (VectorSchemaRoot root = lance != null ? lance.take(positions, TakeBench.COLUMNS) : quiver()) {
      return TakeBench.check(root, expected);
    }
  }
}
