package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.StoreUnreachableException;
import io.quiver.predicate.Predicate;
import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Parallel scans ({@link Scanner#parallelism}): ordered output is the sequential scan's, row for row and in
 * order, with deletions, overlays, struct projection, filters, limits and row addresses; unordered output
 * holds the same rows; a thread's failure reaches the caller; closing early or failing leaks no buffer and
 * leaves no scan thread behind.
 */
class ParallelScanTest {
  private RootAllocator allocator;
  private Dataset ds;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    ds = ScanFixture.create(ScanFixture.newUri(), allocator, ScanFixture.options(allocator));
  }

  @AfterEach
  void tearDown() {
    ds.close();
    assertThat(allocator.getAllocatedMemory()).as("Arrow memory left allocated").isZero();
    allocator.close();
    assertThat(TestThreads.aliveAfterJoin("quiver-scan-")).as("scan threads still running").isEmpty();
  }

  private static List<Thread> scanThreads() {
    List<Thread> alive = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("quiver-scan-") && t.isAlive()) {
        alive.add(t);
      }
    }
    return alive;
  }


  private interface Shape {
    Scanner apply(Scanner s);
  }

  private static final List<Shape> SHAPES = List.of(
      s -> s,
      s -> s.columns("s.x", "id"),
      s -> s.filter(Predicate.or(Predicate.lt("id", 30L), Predicate.gt("s.x", 500))).withRowAddress(true),
      s -> s.limit(75),
      s -> s.filter(Predicate.ge("id", 90L)).limit(40).batchSize(7),
      s -> s.limit(0),
      s -> s.filter(Predicate.eq("id", -1L)));

  @Test
  void orderedOutputIsTheSequentialScanRowForRow() {
    for (int threads : new int[] {2, 3, 8}) {
      for (Shape shape : SHAPES) {
        List<String> sequential = ScanFixture.rows(shape.apply(ds.newScan()).open());
        List<String> parallel = ScanFixture.rows(shape.apply(ds.newScan()).parallelism(threads).open(),
            Scanner.DEFAULT_BATCH_SIZE);
        assertThat(parallel).as("%d threads", threads).containsExactlyElementsOf(sequential);
      }
    }
  }

  @Test
  void unorderedOutputHoldsTheSameRows() {
    for (Shape shape : SHAPES.subList(0, 3)) {
      List<String> sequential = ScanFixture.rows(shape.apply(ds.newScan()).open());
      List<String> parallel = ScanFixture.rows(shape.apply(ds.newScan()).parallelism(3).ordered(false).open());
      assertThat(parallel).containsExactlyInAnyOrderElementsOf(sequential);
    }
  }

  @Test
  void unorderedWithALimitReturnsThatManyMatchingRows() {
    List<String> all = ScanFixture.rows(ds.newScan().filter(Predicate.ge("id", 50L)).open());
    List<String> some = ScanFixture.rows(ds.newScan().filter(Predicate.ge("id", 50L)).limit(33).parallelism(4)
        .ordered(false).open());
    assertThat(some).hasSize(33).doesNotHaveDuplicates();
    assertThat(all).containsAll(some);
  }

  @Test
  void metricsMatchTheSequentialScan() throws IOException {
    ScanMetrics seq = new ScanMetrics();
    ScanMetrics par = new ScanMetrics();
    drain(ds.newScan().columns("id", "name").open()); // the handle's caches warm, as for the parallel scan
    drain(ds.newScan().columns("id", "name").metrics(seq).open());
    drain(ds.newScan().columns("id", "name").metrics(par).parallelism(3).open());
    assertThat(par.rowsReturned()).isEqualTo(seq.rowsReturned());
    assertThat(par.bytesFetched()).isEqualTo(seq.bytesFetched());
    assertThat(par.dataFilesOpened()).isEqualTo(seq.dataFilesOpened());
    assertThat(par.fragmentsConsidered()).isEqualTo(seq.fragmentsConsidered());

    ScanMetrics limited = new ScanMetrics();
    assertThat(drain(ds.newScan().limit(10).metrics(limited).parallelism(2).open())).isEqualTo(10);
    assertThat(limited.rowsReturned()).isEqualTo(10);
  }

  @Test
  void closingBeforeTheEndReleasesEverything() throws IOException {
    try (ArrowReader reader = ds.newScan().batchSize(5).parallelism(4).open()) {
      assertThat(reader.loadNextBatch()).isTrue();
      assertThat(reader.getVectorSchemaRoot().getRowCount()).isBetween(1, 5);
    }
    // tearDown checks memory and threads
  }

  @Test
  void aFailingReadReachesTheCallerAndStopsTheOtherThreads() throws IOException {
    AtomicBoolean fail = new AtomicBoolean();
    MemoryObjectStore memory = new MemoryObjectStore("memory://parallel/t");
    ObjectStore failing = new ForwardingObjectStore(memory) {
      @Override
      public byte[] readRange(String key, long offset, int length) {
        if (fail.get() && key.contains("data/")) {
          throw new StoreUnreachableException("injected: store unreachable reading " + key, null);
        }
        return super.readRange(key, offset, length);
      }
    };
    DatasetOptions options = DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(1 << 20))
        .maxRowsPerFragment(20)
        .registry(ObjectStores.empty().register(TestStores.provider("memory", () -> TestStores.keepOpen(failing))))
        .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
        .build();
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 200);
        Dataset t = Dataset.create("memory://parallel/t", SampleTable.SCHEMA, List.of(b), options)) {
      fail.set(true);
      ArrowReader reader = t.newScan().parallelism(3).open();
      assertThatThrownBy(() -> drain(reader)).isInstanceOf(StoreUnreachableException.class)
          .hasMessageContaining("injected");
    }
  }

  @Test
  void aSlowConsumerHoldsABoundedNumberOfBatches() throws Exception {
    // Fetched bytes ahead of decoding are bounded by the fetch knobs (PrefetchTest); small ones here, so
    // that what is measured is the decoded batches the threads hold.
    DatasetOptions options = DatasetOptions.builder().allocator(allocator).session(new Session(1 << 20))
        .rowsPerBatch(16).maxRowsPerFragment(1000).fetchRequestBytes(2048).fetchAheadBytes(4096)
        .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO)).build();
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 30_000);
        Dataset big = Dataset.create(ScanFixture.newUri(), SampleTable.SCHEMA, List.of(b), options)) {
      long all;
      try (ArrowReader whole = big.newScan().open()) {
        assertThat(whole.loadNextBatch()).isTrue();
        // a 16-row file batch of the first fragment ...
        all = whole.getVectorSchemaRoot().getFieldVectors().stream().mapToLong(v -> v.getBufferSize()).sum();
      }
      all *= 30_000 / 16; // ... times the batches of the table: what an unbounded read-ahead would end up holding
      long before = allocator.getAllocatedMemory(); // the batch the table was created from
      try (ArrowReader reader = big.newScan().batchSize(4).parallelism(3).open()) {
        assertThat(reader.loadNextBatch()).isTrue();
        awaitScanThreadsBlocked();
        long held = allocator.getAllocatedMemory() - before;
        long rows = reader.getVectorSchemaRoot().getRowCount();
        while (reader.loadNextBatch()) {
          rows += reader.getVectorSchemaRoot().getRowCount();
        }
        assertThat(rows).isEqualTo(30_000);
        assertThat(held).as("bytes held while the consumer waited (the whole table is %d)", all)
            .isLessThan(all / 4);
      }
    }
  }

  /** Waits until every scan thread waits for the consumer (its queue is full) or has ended. */
  private static void awaitScanThreadsBlocked() {
    // Generous: a full build's JVM can be slow here (this once took over 20 s inside `mvn verify`).
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    int calm = 0;
    while (calm < 3) {
      if (System.nanoTime() > deadline) {
        StringBuilder where = new StringBuilder();
        for (Thread t : scanThreads()) {
          where.append("\n").append(t).append(' ').append(t.getState());
          for (StackTraceElement e : t.getStackTrace()) {
            where.append("\n    at ").append(e);
          }
        }
        throw new AssertionError("scan threads never blocked:" + where);
      }
      boolean blocked = scanThreads().stream().allMatch(t -> t.getState() == Thread.State.TIMED_WAITING
          || t.getState() == Thread.State.WAITING);
      calm = blocked ? calm + 1 : 0;
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  @Test
  void parallelismIsBounded() {
    assertThatThrownBy(() -> ds.newScan().parallelism(0)).isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("between 1 and 256");
    assertThatThrownBy(() -> ds.newScan().parallelism(257)).isInstanceOf(InvalidArgumentException.class);
  }

  private static long drain(ArrowReader reader) throws IOException {
    long rows = 0;
    try (reader) {
      while (reader.loadNextBatch()) {
        rows += reader.getVectorSchemaRoot().getRowCount();
      }
    }
    return rows;
  }
}
