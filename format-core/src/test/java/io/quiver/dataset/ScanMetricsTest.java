package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.predicate.Predicate;
import io.quiver.store.CountingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** ScanMetrics: what planning and reading record, with bytes as the store really returned them. */
class ScanMetricsTest {
  private static final int ROWS = 500;

  private RootAllocator allocator;
  private CountingObjectStore store;
  private DatasetOptions options;
  private Dataset ds;

  /** Four fragments of 500 rows, one data file each, of the sample table's 4 columns (id, name, s, tags). */
  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new CountingObjectStore(new MemoryObjectStore(OverlayTestSupport.URI_));
    options = DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(1 << 20))
        .registry(ObjectStores.empty().register(TestStores.provider("test", () -> store)))
        .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
        .build();
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, ROWS)) {
      ds = Dataset.create(OverlayTestSupport.URI_, SampleTable.SCHEMA, List.of(b), options);
    }
    for (int i = 1; i < 4; i++) {
      try (VectorSchemaRoot b = SampleTable.batch(allocator, (long) i * ROWS, ROWS)) {
        ds.append(List.of(b));
      }
    }
  }

  @AfterEach
  void tearDown() {
    ds.close();
    allocator.close();
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

  /** Metrics of a full read of the scan, with the bytes the counting store saw during it. */
  private record Measured(ScanMetrics metrics, long storeBytes, long rows) {}

  private Measured measure(Scanner scan) throws IOException {
    ScanMetrics metrics = new ScanMetrics();
    store.reset();
    long rows = drain(scan.metrics(metrics).open());
    return new Measured(metrics, store.bytesRead(), rows);
  }

  @Test
  void aFullScanRecordsEveryFigureAndTheBytesTheStoreReturned() throws IOException {
    Measured all = measure(ds.newScan());
    ScanMetrics m = all.metrics();
    assertThat(all.rows()).isEqualTo(4 * ROWS);
    assertThat(m.rowsReturned()).isEqualTo(4 * ROWS);
    assertThat(m.fragmentsConsidered()).isEqualTo(4);
    assertThat(m.fragmentsPruned()).isZero();
    assertThat(m.tasksPlanned()).isZero();
    assertThat(m.dataFilesOpened()).isEqualTo(4);
    assertThat(m.bytesFetched()).as("exactly what the store returned").isEqualTo(all.storeBytes()).isPositive();
    assertThat(m.toString()).contains("dataFilesOpened=4", "rowsReturned=2000");
  }

  @Test
  void projectingOneOfFourColumnsFetchesMuchLessThanAll() throws IOException {
    drain(ds.newScan().open()); // footers now in the session's cache for both reads
    Measured all = measure(ds.newScan());
    Measured id = measure(ds.newScan().columns("id"));
    assertThat(id.rows()).isEqualTo(all.rows());
    assertThat(id.metrics().bytesFetched()).isEqualTo(id.storeBytes());
    assertThat(all.metrics().bytesFetched()).isEqualTo(all.storeBytes());
    assertThat(id.metrics().bytesFetched()).as("id only: " + id.metrics() + " vs all: " + all.metrics())
        .isPositive().isLessThan(all.metrics().bytesFetched() / 3);
    assertThat(id.metrics().dataFilesOpened()).isEqualTo(4);
  }

  @Test
  void aLimitOpensFewerFilesAndPrunesTheFragmentsItNeverReaches() throws IOException {
    Measured limited = measure(ds.newScan().limit(5));
    assertThat(limited.rows()).isEqualTo(5);
    assertThat(limited.metrics().rowsReturned()).isEqualTo(5);
    assertThat(limited.metrics().dataFilesOpened()).isEqualTo(1);
    assertThat(limited.metrics().fragmentsConsidered()).isEqualTo(4);
    assertThat(limited.metrics().fragmentsPruned()).isEqualTo(3);
    Measured all = measure(ds.newScan());
    assertThat(limited.metrics().bytesFetched()).isLessThan(all.metrics().bytesFetched());
  }

  @Test
  void planningCountsTasksAndPrunesWhatALimitNeverReaches() throws IOException {
    ScanMetrics planning = new ScanMetrics();
    List<ScanTask> tasks = ds.newScan().columns("id", "name").metrics(planning).planTasks();
    assertThat(tasks).hasSize(4);
    assertThat(planning.fragmentsConsidered()).isEqualTo(4);
    assertThat(planning.fragmentsPruned()).isZero();
    assertThat(planning.tasksPlanned()).isEqualTo(4);
    assertThat(planning.dataFilesOpened()).as("planning reads no data file").isZero();
    assertThat(planning.bytesFetched()).isZero();
    assertThat(planning.rowsReturned()).isZero();

    ScanMetrics limited = new ScanMetrics();
    List<ScanTask> two = ds.newScan().limit(ROWS + 1).metrics(limited).planTasks();
    assertThat(two).extracting(ScanTask::fragmentId).containsExactly(0L, 1L);
    assertThat(limited.tasksPlanned()).isEqualTo(2);
    assertThat(limited.fragmentsPruned()).as("fragments the limit never reaches").isEqualTo(2);
    ScanMetrics reading = new ScanMetrics();
    long rows = 0;
    for (ScanTask t : two) {
      rows += drain(t.open(ds, allocator, reading));
    }
    assertThat(rows).as("each task applies the limit to its own rows; the engine keeps the global limit")
        .isEqualTo(2L * ROWS);
    assertThat(reading.dataFilesOpened()).isEqualTo(2);

    ScanMetrics filtered = new ScanMetrics();
    assertThat(ds.newScan().filter(Predicate.gt("id", 100L)).limit(1).metrics(filtered).planTasks())
        .as("with a filter, how many rows a task returns is unknown: the limit prunes nothing").hasSize(4);
    assertThat(filtered.fragmentsPruned()).isZero();
    ScanMetrics byStatistics = new ScanMetrics();
    assertThat(ds.newScan().filter(Predicate.gt("id", 1900L)).limit(1).metrics(byStatistics).planTasks())
        .as("the column statistics prune the fragments whose ids are all <= 1900").hasSize(1);
    assertThat(byStatistics.fragmentsPruned()).isEqualTo(3);

    ds.delete(Predicate.and(Predicate.ge("id", (long) ROWS), Predicate.lt("id", 2L * ROWS)));
    Measured read = measure(ds.newScan());
    assertThat(read.metrics().fragmentsConsidered()).as("a fully deleted fragment leaves the manifest").isEqualTo(3);
    assertThat(read.metrics().dataFilesOpened()).isEqualTo(3);
    assertThat(read.rows()).isEqualTo(3 * ROWS);
  }

  @Test
  void eachTaskRecordsItsOwnReadAndTheSumsAddUp() throws Exception {
    List<ScanTask> tasks = ds.newScan().columns("id").planTasks();
    ScanMetrics total = new ScanMetrics();
    try (Dataset worker = Dataset.open(OverlayTestSupport.URI_, options)) {
      for (ScanTask task : tasks) {
        ScanMetrics perTask = new ScanMetrics();
        ScanTask shipped = ScanTask.decode(task.encode());
        long rows = drain(task.fragmentId() % 2 == 0
            ? shipped.open(options, allocator, perTask)
            : shipped.open(worker, allocator, perTask));
        assertThat(rows).isEqualTo(ROWS);
        assertThat(perTask.rowsReturned()).isEqualTo(ROWS);
        assertThat(perTask.dataFilesOpened()).isEqualTo(1);
        assertThat(perTask.bytesFetched()).isPositive();
        assertThat(perTask.fragmentsConsidered()).isZero();
        total.add(perTask);
      }
    }
    assertThat(total.rowsReturned()).isEqualTo(4 * ROWS);
    assertThat(total.dataFilesOpened()).isEqualTo(4);
  }

  @Test
  void oneInstanceCollectsConcurrentTaskReads() throws Exception {
    List<ScanTask> tasks = ds.newScan().planTasks();
    ScanMetrics shared = new ScanMetrics();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Long>> reads = new ArrayList<>();
      for (ScanTask task : tasks) {
        reads.add(pool.submit(() -> drain(task.open(options, allocator, shared))));
      }
      long rows = 0;
      for (Future<Long> f : reads) {
        rows += f.get();
      }
      assertThat(rows).isEqualTo(4 * ROWS);
    } finally {
      pool.shutdownNow();
    }
    assertThat(shared.rowsReturned()).isEqualTo(4 * ROWS);
    assertThat(shared.dataFilesOpened()).isEqualTo(4);
    assertThat(shared.bytesFetched()).isPositive();
  }
}
