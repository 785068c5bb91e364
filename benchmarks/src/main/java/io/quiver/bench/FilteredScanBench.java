package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.bench.lance.LanceTable;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.ScanMetrics;
import io.quiver.dataset.Session;
import io.quiver.predicate.Predicate;
import io.quiver.store.CountingObjectStore;
import io.quiver.store.ObjectStores;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Benchmark 11: a filtered scan of benchmark 2's 32-column table, projecting {@code id} with a 1 % range filter
 * on it ({@code id} is the row number, so clustered: the filter selects one run of rows). Quiver prunes
 * fragments by their manifest statistics and batches by their zone statistics; Lance gets the same filter
 * pushed down ({@code ScanOptions.filter}). The setup records, from one cold scan through a counting store, the
 * bytes Quiver fetched for the filtered scan against the full projected scan (target at most 3 %), and the
 * fragments and batches pruned.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class FilteredScanBench {
  long rows;
  long from;
  long to;
  long expected;
  BufferAllocator allocator;
  Dataset quiver;
  LanceTable lance;

  @Setup(Level.Trial)
  public void setup() throws IOException {
    rows = Bench.size(1_000_000, 10_000_000);
    from = rows / 2;
    to = from + rows / 100;
    // Scans.consume's checksum over one column: the sum of ids plus one per row.
    expected = (to * (to - 1) / 2 - from * (from - 1) / 2) + (to - from);
    allocator = new RootAllocator();
    int columns = ProjectedScanBench.COLUMNS;
    // Its own cache key: a table cached by a build before column statistics would have none to prune by.
    Path table = Tables.quiver("quiver-wide-stats-" + columns + "-" + rows, BenchData.wideSchema(columns), rows);
    quiver = Dataset.open(table.toString(), Bench.quiverOptions(allocator));
    Path lanceTable = Tables.lance("lance-wide-" + columns + "-" + rows, BenchData.wideSchema(columns), rows,
        Bench.ROWS_PER_FRAGMENT);
    lance = LanceTable.open(allocator, lanceTable);
    Bench.record("FilteredScanBench", "rows", "table", rows, "rows");
    Bench.record("FilteredScanBench", "rows selected", "table", to - from, "rows");
    measureBytes(table);
  }

  private Predicate filter() {
    return Predicate.and(Predicate.ge("id", from), Predicate.lt("id", to));
  }

  /** Cold scans through a counting store: filtered bytes / full projected bytes, and what was pruned. */
  private void measureBytes(Path table) {
    CountingObjectStore[] counting = new CountingObjectStore[1];
    ObjectStores registry = Bench.countingFileRegistry(counting);
    long full;
    long filtered;
    ScanMetrics metrics = new ScanMetrics();
    DatasetOptions cold = Bench.quiverOptions(allocator).toBuilder().registry(registry)
        .session(new Session(256L << 20)).build();
    long fullWarm;
    long filteredWarm;
    try (Dataset ds = Dataset.open(table.toString(), cold)) {
      counting[0].reset();
      Scans.check("quiver projected scan", Scans.drain(ds.newScan().columns("id").batchSize(Bench.BATCH_ROWS).open()),
          Scans.expected(rows, 1));
      full = counting[0].bytesRead();
      // Footers now cached in the session: only the column ranges are fetched.
      counting[0].reset();
      Scans.drain(ds.newScan().columns("id").batchSize(Bench.BATCH_ROWS).open());
      fullWarm = counting[0].bytesRead();
    }
    cold = Bench.quiverOptions(allocator).toBuilder().registry(registry).session(new Session(256L << 20)).build();
    try (Dataset ds = Dataset.open(table.toString(), cold)) {
      counting[0].reset();
      Scans.check("quiver filtered scan", Scans.drain(ds.newScan().columns("id").filter(filter()).metrics(metrics)
          .batchSize(Bench.BATCH_ROWS).open()), expected);
      filtered = counting[0].bytesRead();
      counting[0].reset();
      Scans.drain(ds.newScan().columns("id").filter(filter()).batchSize(Bench.BATCH_ROWS).open());
      filteredWarm = counting[0].bytesRead();
    }
    Bench.record("FilteredScanBench", "bytes fetched, full projected scan, footers cached", "quiver", fullWarm, "bytes");
    Bench.record("FilteredScanBench", "bytes fetched, filtered scan, footers cached", "quiver", filteredWarm, "bytes");
    Bench.record("FilteredScanBench", "filtered / full bytes, footers cached", "quiver",
        (double) filteredWarm / Math.max(1, fullWarm), "ratio");
    Bench.record("FilteredScanBench", "bytes fetched, full projected scan", "quiver", full, "bytes");
    Bench.record("FilteredScanBench", "bytes fetched, filtered scan", "quiver", filtered, "bytes");
    Bench.record("FilteredScanBench", "filtered / full bytes, cold (target <= 0.03)", "quiver", (double) filtered / full,
        "ratio");
    Bench.record("FilteredScanBench", "fragments pruned / considered", "quiver",
        (double) metrics.fragmentsPruned() / Math.max(1, metrics.fragmentsConsidered()), "ratio");
    Bench.record("FilteredScanBench", "batches pruned / considered", "quiver",
        (double) metrics.batchesPruned() / Math.max(1, metrics.batchesConsidered()), "ratio");
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    quiver.close();
    lance.close();
    allocator.close();
  }

  @Benchmark
  public long lance() {
    return Scans.check("lance filtered scan", Scans.drain(lance.scanReader(List.of("id"), Bench.BATCH_ROWS,
        "id >= " + from + " AND id < " + to)), expected);
  }

  @Benchmark
  public long quiver() {
    return Scans.check("quiver filtered scan",
        Scans.drain(quiver.newScan().columns("id").filter(filter()).batchSize(Bench.BATCH_ROWS).open()), expected);
  }
}
