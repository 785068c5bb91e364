package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStores;
import io.quiver.store.StoreArgs;
import io.quiver.store.TestStores;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cleanup removes the store's own temporaries through the port, only once they are older than the safety
 * window, and counts them; a dry run only reports them. The store here fakes its temporaries; {@code
 * LocalCleanupTemporariesTest} (conformance-tests) does the same with the local store's real temp files.
 */
class CleanupTemporariesTest {
  private static final String URI_ = "test://temporaries";
  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");
  private RootAllocator allocator;
  private CleanupTestClock clock;
  private StoreWithTemporaries store;
  private DatasetOptions options;

  /** A memory store that also holds temporaries (name → size and modification time) no other call sees. */
  static final class StoreWithTemporaries extends ForwardingObjectStore {
    final Map<String, ObjectInfo> temporaries = new TreeMap<>();

    StoreWithTemporaries(MemoryObjectStore memory) {
      super(memory);
    }

    void leave(String name, long size, Instant modified) {
      temporaries.put(name, new ObjectInfo(name, size, modified));
    }

    @Override
    public synchronized List<ObjectInfo> abandonedTemporaries(Instant olderThan) {
      StoreArgs.olderThan(olderThan);
      return temporaries.values().stream().filter(t -> t.lastModified().isBefore(olderThan)).toList();
    }

    @Override
    public synchronized List<ObjectInfo> deleteAbandonedTemporaries(Instant olderThan) {
      List<ObjectInfo> old = new ArrayList<>(abandonedTemporaries(olderThan));
      old.forEach(t -> temporaries.remove(t.key()));
      return old;
    }
  }

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    clock = new CleanupTestClock(T0);
    store = new StoreWithTemporaries(new MemoryObjectStore(URI_, clock));
    options = DatasetOptions.builder()
        .allocator(allocator)
        .registry(ObjectStores.empty().register(TestStores.provider("test", () -> TestStores.keepOpen(store))))
        .session(new Session(1 << 20))
        .clock(clock)
        .build();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  @Test
  void temporariesOlderThanTheSafetyWindowAreRemovedAndCounted() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 10);
        Dataset ds = Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options)) {
      clock.advance(Duration.ofHours(3));
      store.leave("data/.tmp-killed", 1000, T0);                                   // 3 h old
      store.leave("_versions/.tmp-killed", 20, T0.plus(Duration.ofMinutes(90)));   // 90 min old
      store.leave("data/.tmp-writing", 500, clock.instant().minus(Duration.ofMinutes(10)));
      CleanupOptions window = CleanupOptions.builder().safetyWindow(Duration.ofHours(1)).build();

      CleanupReport dry = ds.cleanup(CleanupOptions.builder().safetyWindow(Duration.ofHours(1)).dryRun(true).build());
      assertThat(dry.temporaryFilesRemoved()).isEqualTo(2);
      assertThat(dry.bytesFreed()).isEqualTo(1020);
      assertThat(store.temporaries.size()).as("a dry run removes nothing").isEqualTo(3);

      CleanupReport report = ds.cleanup(window);
      assertThat(report.temporaryFilesRemoved()).isEqualTo(2);
      assertThat(report.filesRemoved()).isEqualTo(2);
      assertThat(report.bytesFreed()).isEqualTo(1020);
      assertThat(List.copyOf(store.temporaries.keySet())).as("the young one stays").isEqualTo(List.of("data/.tmp-writing"));

      clock.advance(Duration.ofHours(1));
      assertThat(ds.cleanup(window).temporaryFilesRemoved()).as("removed once it is older than the window").isEqualTo(1);
      assertThat(store.temporaries).isEqualTo(Map.of());
    }
  }
}
