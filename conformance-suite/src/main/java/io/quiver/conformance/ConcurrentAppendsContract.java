package io.quiver.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.SampleTable;
import io.quiver.dataset.Session;
import io.quiver.dataset.VersionInfo;
import io.quiver.internal.table.TransactionBatches;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * B1: many writers, each with its own handle opened by URI through ServiceLoader, append to one table
 * at once. Every commit lands as its own version and every row is present exactly once. And a handle 130
 * versions behind catches up through the transaction batches those commits wrote (docs/format.md §11.4).
 */
public abstract class ConcurrentAppendsContract extends StoreSuite {
  private static final int THREADS = 8;
  private static final int APPENDS_PER_THREAD = 25;
  private static final int ROWS_PER_APPEND = 3;

  /** A URI where no table exists yet. */
  protected String newTableUri() {
    return fixture().newTableUri();
  }

  /** Adapter settings (endpoint, credentials) for opening {@link #newTableUri()}. */
  protected Map<String, String> storeOptions() {
    return fixture().storeOptions();
  }

  @Test
  void b1_concurrentAppendsFromSeparateHandlesAllLandExactlyOnce() throws Exception {
    String uri = newTableUri();
    try (RootAllocator allocator = new RootAllocator()) {
      DatasetOptions options =
          DatasetOptions.builder()
              .allocator(allocator)
              .storeOptions(storeOptions())
              .session(new Session(64L << 20))
              .commitOptions(
                  CommitOptions.defaults()
                      .withMaxAttempts(100_000)
                      .withTimeout(Duration.ofMinutes(5))
                      .withBackoff(Duration.ofMillis(1), Duration.ofMillis(50)))
              .build();
      try (Dataset ds = Dataset.create(uri, SampleTable.SCHEMA, List.of(), options, io.quiver.model.ModelWorld.SMALL_SEGMENTS)) {
        assertThat(ds.version()).isEqualTo(1);
      }
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<List<Long>>> results = new ArrayList<>();
      try {
        for (int t = 0; t < THREADS; t++) {
          final int thread = t;
          results.add(pool.submit(() -> {
            List<Long> versions = new ArrayList<>();
            try (Dataset handle = Dataset.open(uri, options)) {
              start.await();
              for (int i = 0; i < APPENDS_PER_THREAD; i++) {
                long first = ((long) thread * APPENDS_PER_THREAD + i) * ROWS_PER_APPEND;
                try (VectorSchemaRoot batch = SampleTable.batch(allocator, first, ROWS_PER_APPEND)) {
                  versions.add(handle.append(List.of(batch)));
                }
              }
            }
            return versions;
          }));
        }
        start.countDown();
        List<Long> committed = new ArrayList<>();
        for (Future<List<Long>> f : results) {
          committed.addAll(f.get(5, TimeUnit.MINUTES));
        }
        int total = THREADS * APPENDS_PER_THREAD;
        assertThat(committed).doesNotHaveDuplicates().hasSize(total);
        assertThat(committed).allMatch(v -> v >= 2 && v <= total + 1);
      } finally {
        pool.shutdownNow();
      }
      try (Dataset ds = Dataset.open(uri, options)) {
        int total = THREADS * APPENDS_PER_THREAD;
        assertThat(ds.version()).isEqualTo(total + 1);
        List<VersionInfo> versions = ds.versions();
        assertThat(versions.size()).isEqualTo(total + 1);
        assertThat(versions.stream().filter(v -> v.operation().equals("append")).count()).isEqualTo(total);
        List<Long> ids = SampleTable.scanIds(ds.newScan().open());
        assertThat(ids).containsExactlyInAnyOrderElementsOf(SampleTable.range(0, (long) total * ROWS_PER_APPEND));
        assertThat(ds.countRows()).isEqualTo((long) total * ROWS_PER_APPEND);
      }
    }
  }

  @Test
  void b1_aHandleFarBehindCatchesUpThroughTransactionBatches() {
    String uri = newTableUri();
    try (RootAllocator allocator = new RootAllocator()) {
      DatasetOptions options = DatasetOptions.builder().allocator(allocator).storeOptions(storeOptions())
          .session(new Session(64L << 20)).build();
      try (Dataset ds = Dataset.create(uri, SampleTable.SCHEMA, List.of(), options, io.quiver.model.ModelWorld.SMALL_SEGMENTS);
          Dataset stale = Dataset.open(uri, options.toBuilder().session(new Session(1 << 20)).build())) {
        for (long i = 0; i < 130; i++) {
          try (VectorSchemaRoot batch = SampleTable.batch(allocator, i, 1)) {
            ds.append(List.of(batch));
          }
        }
        try (ObjectStore store = ObjectStores.defaultRegistry().open(uri, storeOptions())) {
          assertThat(store.listAll(TransactionBatches.PREFIX).stream().map(ObjectInfo::key).sorted().toList())
              .containsExactly(TransactionBatches.path(1), TransactionBatches.path(65));
        }
        try (VectorSchemaRoot batch = SampleTable.batch(allocator, 1000, 1)) {
          assertThat(stale.append(List.of(batch))).isEqualTo(132);
        }
        assertThat(ds.checkout(100).validate().problems()).isEmpty();
      }
      try (Dataset ds = Dataset.open(uri, options)) {
        List<Long> expected = new ArrayList<>(SampleTable.range(0, 130));
        expected.add(1000L);
        assertThat(SampleTable.scanIds(ds.newScan().open())).containsExactlyInAnyOrderElementsOf(expected);
      }
    }
  }
}
