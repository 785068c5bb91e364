package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.exceptions.StoreUnreachableException;
import io.quiver.predicate.Predicate;
import io.quiver.scenario.StagedColumnScenarios;
import io.quiver.store.CountingObjectStore;
import io.quiver.store.FetchTuning;
import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.TestStores;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import io.quiver.internal.file.ReadOptions;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Scans with fetch plans (docs/scan-planning.md, "Fetching"): the same rows as without them over every
 * shape a scan merges (deletions, overlays, struct validity read alone, a column added in its own file,
 * compression, split tasks, limits, parallel scans), far fewer requests, bounded memory, and nothing left
 * behind (buffers, fetch threads) when a scan is closed early or a fetch fails.
 */
class PrefetchScanTest {
  private final RootAllocator allocator = new RootAllocator();

  @AfterEach
  void tearDown() {
    assertThat(allocator.getAllocatedMemory()).as("Arrow memory left allocated").isZero();
    allocator.close();
    assertThat(fetchThreads()).as("fetch threads still running").isEmpty();
  }

  private static List<Thread> fetchThreads() {
    return TestThreads.aliveAfterJoin("quiver-fetch-");
  }


  /** The ways a scan can fetch; the first (no fetch plan) is the reference. */
  private static final Map<String, UnaryOperator<DatasetOptions.Builder>> VARIANTS = new LinkedHashMap<>();

  static {
    VARIANTS.put("no fetch plan", b -> b.fetchPlans(false));
    VARIANTS.put("defaults", b -> b);
    VARIANTS.put("a remote store's defaults", b -> b.fetchRequestsInFlight(ReadOptions.DEFAULT_REQUESTS_IN_FLIGHT));
    VARIANTS.put("a cloud store's defaults", b -> b.coalesceGapBytes(FetchTuning.CLOUD.coalesceGapBytes())
        .fetchRequestBytes(FetchTuning.CLOUD.requestBytes()).fetchRequestsInFlight(FetchTuning.CLOUD.requestsInFlight()));
    VARIANTS.put("fetched on the reading thread", b -> b.fetchRequestsInFlight(0));
    VARIANTS.put("tiny requests, tiny read-ahead", b -> b.fetchRequestBytes(64).fetchAheadBytes(256).fetchRequestsInFlight(3));
    VARIANTS.put("one in flight, no gap, no read-ahead", b -> b.fetchRequestsInFlight(1).coalesceGapBytes(0).fetchAheadBytes(0));
  }

  private interface Shape {
    Scanner apply(Scanner s);
  }

  private static final List<Shape> SHAPES = List.of(
      s -> s,
      s -> s.columns("s.x", "id"),
      s -> s.columns("s.y"), // the struct's validity comes from s.x's column, read on its own
      s -> s.columns("v", "name"), // v lives in a file of its own, with an overlay
      s -> s.filter(Predicate.or(Predicate.lt("id", 30L), Predicate.gt("s.x", 500))).withRowAddress(true),
      s -> s.filter(Predicate.gt("v", 1000)).columns("id"),
      s -> s.columns("s").batchSize(5),
      s -> s.limit(75),
      s -> s.filter(Predicate.ge("id", 90L)).limit(40).batchSize(7),
      s -> s.limit(0),
      s -> s.filter(Predicate.eq("id", -1L)));

  /** A store of its own per table, seen through a counting decorator, and options on it. */
  private record Table(MemoryObjectStore memory, CountingObjectStore counting, DatasetOptions.Builder options) {
    static Table of(BufferAllocator allocator, UnaryOperator<ObjectStore> decorate) {
      MemoryObjectStore memory = new MemoryObjectStore("memory://prefetch");
      CountingObjectStore counting = new CountingObjectStore(decorate.apply(memory));
      DatasetOptions.Builder options = ScanFixture.options(allocator).toBuilder()
          .registry(TestStores.registry("test", TestStores.keepOpen(counting)));
      return new Table(memory, counting, options);
    }

    Dataset open(UnaryOperator<DatasetOptions.Builder> variant) {
      return Dataset.open("test://t", variant.apply(options.build().toBuilder()).build());
    }
  }

  /** {@link ScanFixture}'s table, plus columns v, w (one new file per fragment) and an overlay on v. */
  private Table mergedTable() {
    Table t = Table.of(allocator, s -> s);
    try (Dataset ds = ScanFixture.create("test://t", allocator, t.options().build())) {
      ds.columns().add(List.of(StagedColumnSupport.intField("v", true), StagedColumnSupport.intField("w", true)),
          List.of("id"), StagedColumnScenarios::tens);
      ds.update(Predicate.and(Predicate.ge("id", 50L), Predicate.lt("id", 120L)), Map.of("v", 7));
    }
    return t;
  }

  private void assertEveryVariantReadsTheSameRows(Table t, List<Shape> shapes) {
    Map<String, Dataset> handles = new LinkedHashMap<>();
    VARIANTS.forEach((name, variant) -> handles.put(name, t.open(variant)));
    try {
      for (int i = 0; i < shapes.size(); i++) {
        Shape shape = shapes.get(i);
        List<String> expected = ScanFixture.rows(shape.apply(handles.get("no fetch plan").newScan()).open());
        for (Map.Entry<String, Dataset> e : handles.entrySet()) {
          assertThat(ScanFixture.rows(shape.apply(e.getValue().newScan()).open()))
              .as("shape %d, %s", i, e.getKey()).isEqualTo(expected);
          assertThat(ScanFixture.rows(shape.apply(e.getValue().newScan()).parallelism(3).open()))
              .as("shape %d, %s, 3 threads", i, e.getKey()).isEqualTo(expected);
        }
      }
    } finally {
      handles.values().forEach(Dataset::close);
    }
  }

  /** The names of the threads that read data-file bytes from the store. */
  private static ObjectStore recordingReaders(ObjectStore store, Set<String> readers, FetchTuning tuning) {
    return new ForwardingObjectStore(store) {
      @Override
      public int readRangeInto(String key, long offset, java.nio.ByteBuffer target) {
        if (key.startsWith("data/")) {
          readers.add(Thread.currentThread().getName());
        }
        return super.readRangeInto(key, offset, target);
      }

      @Override
      public FetchTuning fetchTuning() {
        return tuning;
      }
    };
  }

  @Test
  void storesThatGainNothingFromReadAheadAreReadOnTheScanningThreadUnlessToldOtherwise() {
    for (FetchTuning tuning : List.of(FetchTuning.LOCAL, FetchTuning.DEFAULT, FetchTuning.CLOUD)) {
      boolean pays = tuning.requestsInFlight() > 0;
      Set<String> readers = java.util.concurrent.ConcurrentHashMap.newKeySet();
      Table t = Table.of(allocator, s -> recordingReaders(s, readers, tuning));
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 150);
          Dataset ds = Dataset.create("test://t", SampleTable.SCHEMA, List.of(b), t.options().build())) {
        readers.clear();
        assertThat(ScanFixture.rows(ds.newScan().open())).hasSize(150);
        if (pays) {
          assertThat(readers).as("a remote store's scan reads ahead on fetch threads")
              .anyMatch(n -> n.startsWith("quiver-fetch-"));
        } else {
          assertThat(readers).as("a local store's scan reads on its own thread").containsExactly(
              Thread.currentThread().getName());
        }
      }
      readers.clear();
      try (Dataset ds = t.open(o -> o.fetchRequestsInFlight(2))) {
        assertThat(ScanFixture.rows(ds.newScan().open())).hasSize(150);
        assertThat(readers).as("told to read ahead, every store does").anyMatch(n -> n.startsWith("quiver-fetch-"));
      }
    }
  }

  @Test
  void everyWayOfFetchingReadsTheSameRows() {
    Table t = mergedTable();
    assertEveryVariantReadsTheSameRows(t, SHAPES);
  }

  @Test
  void compressedFilesReadTheSameRows() {
    Table t = Table.of(allocator, s -> s);
    List<Shape> shapes = new ArrayList<>();
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 150);
        Dataset ds = Dataset.create("test://t", SampleTable.SCHEMA, List.of(b), t.options().build(),
            Map.of("write.compression", "zstd"))) {
      ds.delete(Predicate.in("id", 3L, 17L, 18L, 19L, 64L, 140L));
      ds.update(Predicate.lt("id", 40L), Map.of("name", "upd"));
      for (Shape shape : SHAPES) {
        try {
          shape.apply(ds.newScan()).projectedSchema();
          shapes.add(shape);
        } catch (io.quiver.exceptions.InvalidArgumentException e) {
          // the shapes that read v: this table has no v
        }
      }
    }
    assertThat(shapes).hasSize(SHAPES.size() - 2);
    assertEveryVariantReadsTheSameRows(t, shapes);
  }

  @Test
  void splitTasksReadTheScansRowsInEveryVariant() {
    Table t = mergedTable();
    for (Map.Entry<String, UnaryOperator<DatasetOptions.Builder>> variant : VARIANTS.entrySet()) {
      try (Dataset ds = t.open(variant.getValue())) {
        for (Shape shape : List.<Shape>of(s -> s, s -> s.columns("s.y", "v"),
            s -> s.filter(Predicate.gt("s.x", 100)).batchSize(6))) {
          List<String> expected = ScanFixture.rows(shape.apply(ds.newScan()).open());
          List<ScanTask> tasks = shape.apply(ds.newScan()).targetTaskBytes(400).planTasks();
          assertThat(tasks.size()).as("fragments split into row ranges").isGreaterThan(ds.manifest().fragments().size());
          List<String> fromTasks = new ArrayList<>();
          for (ScanTask task : tasks) {
            fromTasks.addAll(ScanFixture.rows(ScanTask.decode(task.encode()).open(ds)));
          }
          assertThat(fromTasks).as(variant.getKey()).isEqualTo(expected);
        }
      }
    }
  }

  // ---------------------------------------------------------------- requests

  private static final Schema NARROW = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("k", FieldType.nullable(new ArrowType.Int(32, true)), null)));

  /** One fragment of {@code batches} file batches of 1024 rows: id (8 KiB a batch) and k (4 KiB). */
  private Table narrowTable(int batches, UnaryOperator<ObjectStore> decorate) {
    Table t = Table.of(allocator, decorate);
    t = new Table(t.memory(), t.counting(), t.options().rowsPerBatch(1024).maxRowsPerFragment(1L << 20));
    int rows = batches * 1024;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(NARROW, allocator)) {
      BigIntVector id = (BigIntVector) root.getVector("id");
      IntVector k = (IntVector) root.getVector("k");
      id.allocateNew(rows);
      k.allocateNew(rows);
      for (int i = 0; i < rows; i++) {
        id.set(i, i);
        k.set(i, i % 97);
      }
      root.setRowCount(rows);
      // uncompressed, so that the sizes are the ones above (compressedFilesReadTheSameRows covers compression)
      Dataset.create("test://t", NARROW, List.of(root), t.options().build(), Map.of("write.compression", "none"))
          .close();
    }
    return t;
  }

  /** Rows, read calls and bytes of one scan with warm metadata caches. */
  private record Counted(long rows, long calls, long bytes) {}

  private static Counted count(Table t, Dataset ds, UnaryOperator<Scanner> shape) {
    drain(shape.apply(ds.newScan()).open()); // footers cached
    t.counting().reset();
    long rows = drain(shape.apply(ds.newScan()).open());
    return new Counted(rows, t.counting().readCalls(), t.counting().bytesRead());
  }

  @Test
  void aProjectedScanIssuesAboutOneRequestPerTargetSizeInsteadOfOnePerBatch() {
    int batches = 64;
    Table t = narrowTable(batches, s -> s);
    long target = 128 << 10;
    Counted off;
    Counted on;
    try (Dataset ds = t.open(b -> b.fetchPlans(false))) {
      off = count(t, ds, s -> s.columns("id"));
    }
    try (Dataset ds = t.open(b -> b.fetchRequestBytes(target))) {
      on = count(t, ds, s -> s.columns("id"));
    }
    assertThat(off.rows()).isEqualTo(on.rows()).isEqualTo(batches * 1024L);
    assertThat(off.calls()).as("without a plan: one request per batch").isEqualTo(batches);
    // the gaps between two batches' id buffers (k's 4 KiB, the next batch's metadata) are merged and fetched
    long expected = (on.bytes() + target - 1) / target;
    assertThat(on.calls()).as("requests for %d bytes in %d-byte requests", on.bytes(), target)
        .isBetween(expected, expected + 1);
    assertThat(on.calls()).isLessThan(batches / 6);
    assertThat(on.bytes()).as("bytes: the column plus the gaps").isLessThan(off.bytes() * 8 / 5);

    try (Dataset ds = t.open(b -> b)) {
      Counted all = count(t, ds, s -> s);
      assertThat(all.calls()).as("whole table (%d bytes) in 8 MiB requests", all.bytes()).isEqualTo(1);
      Counted limited = count(t, ds, s -> s.columns("id").limit(10));
      assertThat(limited.rows()).isEqualTo(10);
      assertThat(limited.calls()).as("a limit fetches ahead only the batches that hold it").isEqualTo(1);
      assertThat(limited.bytes()).isLessThan(16 << 10);
    }
  }

  @Test
  void aColumnInAFileOfItsOwnIsFetchedInTargetSizedRequests() {
    Table t = narrowTable(32, s -> s);
    try (Dataset ds = t.open(b -> b)) {
      ds.columns().add(List.of(new Field("big", FieldType.nullable(new ArrowType.Int(64, true)), null)), List.of("id"),
          (input, alloc) -> {
            VectorSchemaRoot out = VectorSchemaRoot.create(new Schema(List.of(
                new Field("big", FieldType.nullable(new ArrowType.Int(64, true)), null))), alloc);
            BigIntVector big = (BigIntVector) out.getVector(0);
            BigIntVector id = (BigIntVector) input.getVector("id");
            big.allocateNew(input.getRowCount());
            for (int i = 0; i < input.getRowCount(); i++) {
              big.set(i, id.get(i) * 7);
            }
            big.setValueCount(input.getRowCount());
            out.setRowCount(input.getRowCount());
            return out;
          });
    }
    try (Dataset ds = t.open(b -> b.fetchRequestBytes(64 << 10))) {
      Counted c = count(t, ds, s -> s.columns("big"));
      assertThat(c.rows()).isEqualTo(32 * 1024L);
      // 32 batches of 8 KiB values + 128 bytes of validity, nothing between them but batch metadata
      assertThat(c.calls()).isEqualTo((c.bytes() + (64 << 10) - 1) / (64 << 10));
      assertThat(c.calls()).isLessThanOrEqualTo(5);
    }
  }

  // ---------------------------------------------------------------- bounds, early close, failures

  /** Counts the reads in progress at once. */
  private static final class Concurrency extends ForwardingObjectStore {
    final AtomicInteger now = new AtomicInteger();
    final AtomicInteger most = new AtomicInteger();

    Concurrency(ObjectStore delegate) {
      super(delegate);
    }

    @Override
    public int readRangeInto(String key, long offset, ByteBuffer target) {
      most.accumulateAndGet(now.incrementAndGet(), Math::max);
      try {
        return super.readRangeInto(key, offset, target);
      } finally {
        now.decrementAndGet();
      }
    }
  }

  @Test
  void readAheadIsBoundedByTheFetchKnobs() {
    Concurrency[] probe = new Concurrency[1];
    Table t = narrowTable(64, s -> probe[0] = new Concurrency(s));
    long ahead = 64 << 10;
    try (Dataset ds = t.open(b -> b.fetchRequestBytes(16 << 10).fetchAheadBytes(ahead).fetchRequestsInFlight(2));
        BufferAllocator scan = allocator.newChildAllocator("scan", 0, Long.MAX_VALUE)) {
      drain(ds.newScan().columns("id").open()); // footers cached
      probe[0].most.set(0);
      long rows = drain(ds.newScan().columns("id").allocator(scan).open());
      assertThat(rows).isEqualTo(64 * 1024L);
      // read-ahead + the span being decoded (16 KiB) + the batch decoded and the one handed out (8 KiB each)
      assertThat(scan.getPeakMemoryAllocation()).as("peak bytes of the scan (the column is %d)", 64 * 8192)
          .isLessThanOrEqualTo(ahead + (16 << 10) + 4 * (8 << 10));
      assertThat(probe[0].most.get()).as("reads in progress at once").isLessThanOrEqualTo(2);
    }
  }

  @Test
  void closingAScanEarlyReleasesItsPrefetchedBuffersAndStopsItsThreads() throws IOException {
    Table t = narrowTable(64, s -> s);
    for (UnaryOperator<DatasetOptions.Builder> variant : VARIANTS.values()) {
      try (Dataset ds = t.open(variant.andThen(b -> b.fetchRequestBytes(8 << 10))::apply)) {
        for (int batchesRead = 0; batchesRead < 3; batchesRead++) {
          try (ArrowReader reader = ds.newScan().columns("id").batchSize(1000).open()) {
            for (int i = 0; i < batchesRead; i++) {
              assertThat(reader.loadNextBatch()).isTrue();
            }
          }
          try (ArrowReader reader = ds.newScan().batchSize(300).parallelism(2).open()) {
            assertThat(reader.loadNextBatch()).isTrue();
          }
        }
      }
    }
    // tearDown checks memory and threads
  }

  /** Fails every data-file read after the first {@code ok} ones (once armed). */
  private static final class FailAfter extends ForwardingObjectStore {
    final AtomicInteger left = new AtomicInteger(Integer.MAX_VALUE);

    FailAfter(ObjectStore delegate) {
      super(delegate);
    }

    private void check(String key) {
      if (key.startsWith("data/") && left.getAndDecrement() <= 0) {
        throw new StoreUnreachableException("injected: store unreachable reading " + key, null);
      }
    }

    @Override
    public byte[] readRange(String key, long offset, int length) {
      check(key);
      return super.readRange(key, offset, length);
    }

    @Override
    public int readRangeInto(String key, long offset, ByteBuffer target) {
      check(key);
      return super.readRangeInto(key, offset, target);
    }
  }

  @Test
  void aFetchThatFailsMidScanFailsTheScanWithTheStoresErrorAndLeaksNothing() {
    FailAfter[] store = new FailAfter[1];
    Table t = narrowTable(64, s -> store[0] = new FailAfter(s));
    for (Map.Entry<String, UnaryOperator<DatasetOptions.Builder>> variant : VARIANTS.entrySet()) {
      try (Dataset ds = t.open(variant.getValue().andThen(b -> b.fetchRequestBytes(16 << 10))::apply)) {
        drain(ds.newScan().open()); // footers cached: only data reads remain
        for (int ok : new int[] {0, 1, 3, 7}) {
          store[0].left.set(ok);
          assertThatThrownBy(() -> drain(ds.newScan().columns("id").open()))
              .as("%s, failing after %d reads", variant.getKey(), ok)
              .isInstanceOf(StoreUnreachableException.class).hasMessageContaining("injected");
          store[0].left.set(ok);
          assertThatThrownBy(() -> drain(ds.newScan().parallelism(2).batchSize(500).open()))
              .isInstanceOf(StoreUnreachableException.class);
          store[0].left.set(Integer.MAX_VALUE);
        }
      }
    }
    // tearDown checks memory and threads
  }

  private static long drain(ArrowReader reader) {
    long rows = 0;
    try (reader) {
      while (reader.loadNextBatch()) {
        rows += reader.getVectorSchemaRoot().getRowCount();
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return rows;
  }
}
