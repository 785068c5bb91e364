package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CommitConflictException;
import io.quiver.exceptions.StaleReadVersionException;
import io.quiver.exceptions.StoreException;
import io.quiver.predicate.Predicate;
import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A commit from a handle many versions behind reads the transactions of every version in between (in
 * parallel, beside the caller) and checks each one: a conflicting version anywhere in the range is found, a
 * version a cleanup removed anywhere in the range makes the read version stale, and a failed read publishes
 * nothing.
 */
class CatchUpTest {
  private static final String URI_ = DeleteTest.URI_;

  private RootAllocator allocator;
  private MemoryObjectStore memory;
  private FailingReads store;
  private DatasetOptions options;

  /** Fails every read of the keys in {@link #failing} with a transient store error. */
  static final class FailingReads extends ForwardingObjectStore {
    final Set<String> failing = ConcurrentHashMap.newKeySet();

    FailingReads(MemoryObjectStore delegate) {
      super(delegate);
    }

    @Override
    public byte[] read(String key) {
      if (failing.contains(key)) {
        throw new StoreException("injected read failure of " + key, null, false);
      }
      return super.read(key);
    }
  }

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    memory = new MemoryObjectStore(URI_);
    store = new FailingReads(memory);
    options = DeleteTest.options(store, allocator);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private Dataset fresh() {
    return Dataset.open(URI_, options.toBuilder().session(new Session(1 << 20)).build());
  }

  private long append(Dataset ds, long from) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, 1)) {
      return ds.append(List.of(b));
    }
  }

  private Dataset table() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 10)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  @Test
  void aConflictingVersionInTheMiddleOfALongCatchUpIsFound() {
    try (Dataset ds = table(); Dataset stale = fresh()) {
      for (int i = 0; i < 20; i++) {
        append(ds, 100 + i);
      }
      ds.update(Predicate.lt("id", 3L), Map.of("name", "concurrent"));
      for (int i = 0; i < 20; i++) {
        append(ds, 200 + i);
      }
      long latest = ds.version();
      assertThatExceptionOfType(CommitConflictException.class)
          .isThrownBy(() -> stale.update(Predicate.lt("id", 5L), Map.of("name", "stale")));
      try (Dataset after = fresh()) {
        assertThat(after.version()).isEqualTo(latest);
      }
      // Without the conflicting version, the same catch-up commits on top of all 41.
      long committed = append(stale.checkout(latest), 999);
      assertThat(committed).isEqualTo(latest + 1);
    }
  }

  @Test
  void aLongCatchUpCommitsOnTopOfEveryVersionAndKeepsEveryRow() {
    try (Dataset ds = table(); Dataset stale = fresh()) {
      for (int i = 0; i < 40; i++) {
        append(ds, 100 + i);
      }
      long committed = append(stale, 500);
      assertThat(committed).isEqualTo(ds.latestVersion());
      try (Dataset after = fresh()) {
        assertThat(scanIds(after.newScan().open())).hasSize(10 + 40 + 1).contains(500L, 139L, 100L);
      }
    }
  }

  @Test
  void aVersionRemovedInTheMiddleOfTheRangeMakesTheReadVersionStale() {
    try (Dataset ds = table(); Dataset stale = fresh()) {
      long read = stale.version();
      for (int i = 0; i < 10; i++) {
        append(ds, 100 + i);
      }
      // What a cleanup that kept a tagged version (read + 2) and removed read + 5 leaves: a gap a listing of
      // the versions after the read version would skip without a word.
      memory.delete(ObjectStoreCommitStore.manifestKey(read + 5));
      long latest = ds.version();
      StaleReadVersionException e = assertThatExceptionOfType(StaleReadVersionException.class)
          .isThrownBy(() -> append(stale, 500)).actual();
      assertThat(e.getMessage()).contains("version " + (read + 5) + " was committed after version " + read)
          .contains("removed by a cleanup").contains("Nothing was committed");
      assertThat(e.oldestAvailable()).isEqualTo(read + 6);
      assertThat(ds.latestVersion()).isEqualTo(latest);
    }
  }

  @Test
  void aFailedReadOfOneVersionInBetweenPublishesNothing() {
    try (Dataset ds = table(); Dataset stale = fresh()) {
      long read = stale.version();
      for (int i = 0; i < 12; i++) {
        append(ds, 100 + i);
      }
      long latest = ds.version();
      store.failing.add(ObjectStoreCommitStore.manifestKey(read + 7));
      assertThatExceptionOfType(StoreException.class).isThrownBy(() -> append(stale, 500))
          .withMessageContaining("injected read failure");
      assertThat(ds.latestVersion()).isEqualTo(latest);
      store.failing.clear();
      assertThat(append(stale, 500)).isEqualTo(latest + 1);
    }
  }
}
