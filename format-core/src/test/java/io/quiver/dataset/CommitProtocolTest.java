package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CommitRetriesExhaustedException;
import io.quiver.scenario.CommitScenarios;
import io.quiver.scenario.ScenarioTable;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore.Op;
import io.quiver.store.FaultInjectingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.time.Duration;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The commit protocol against injected store failures and interleaved handles. */
class CommitProtocolTest {
  private static final String URI_ = "test://table";
  private RootAllocator allocator;
  private FaultInjectingObjectStore store;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new FaultInjectingObjectStore(new MemoryObjectStore(URI_));
    ObjectStoreProvider provider =
        TestStores.provider("test", () -> store);
    options =
        DatasetOptions.builder()
            .allocator(allocator)
            .registry(ObjectStores.empty().register(provider))
            .session(new Session(1 << 20))
            .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
            .build();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private Dataset create() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 10)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  private long append(Dataset ds, long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return ds.append(List.of(b));
    }
  }

  @Test
  void b2_ambiguousAcknowledgementIsRecognisedAsOurOwnCommit() {
    try (ScenarioTable t = ScenarioTable.on(new MemoryObjectStore(URI_), allocator)) {
      CommitScenarios.b2_ambiguousAcknowledgementIsRecognisedAsOurOwnCommit(t);
    }
  }

  @Test
  void ambiguousFailureBeforeThePutIsRetried() {
    try (Dataset ds = create()) {
      store.armOnce(Op.PUT_IF_ABSENT, ObjectStoreCommitStore.manifestKey(2), Fault.FAIL_BEFORE);
      assertThat(append(ds, 10, 5)).isEqualTo(2);
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(0, 15));
      assertThat(store.calls(Op.PUT_IF_ABSENT).stream()
          .filter(ObjectStoreCommitStore.manifestKey(2)::equals).count()).isEqualTo(2);
    }
  }

  @Test
  void staleHandlesAppendAfterEachOtherInAnyOrder() {
    try (Dataset a = create(); Dataset b = Dataset.open(URI_, options); Dataset c = Dataset.open(URI_, options)) {
      assertThat(append(c, 100, 3)).isEqualTo(2);
      assertThat(append(a, 200, 3)).isEqualTo(3);
      assertThat(append(b, 300, 3)).isEqualTo(4);
      List<Long> ids = scanIds(b.newScan().open());
      assertThat(ids).containsExactlyInAnyOrderElementsOf(
          concat(range(0, 10), range(100, 103), range(200, 203), range(300, 303)));
      // b rebased onto versions 2 and 3: fragment ids were renumbered, never duplicated.
      assertThat(b.manifest().fragments().stream().map(io.quiver.manifest.Fragment::id).toList()).isEqualTo(List.of(0L, 1L, 2L, 3L));
    }
  }

  @Test
  void b7_appendAfterAConcurrentOverwriteIsIncompatibleAndCommitsNothing() {
    try (ScenarioTable t = ScenarioTable.on(new MemoryObjectStore(URI_), allocator)) {
      CommitScenarios.b7_appendAfterAConcurrentOverwriteIsIncompatibleAndCommitsNothing(t);
    }
  }

  @Test
  void b7_overwriteAfterAConcurrentAppendIsRetryableAndDiscardsNothing() {
    try (ScenarioTable t = ScenarioTable.on(new MemoryObjectStore(URI_), allocator)) {
      CommitScenarios.b7_overwriteAfterAConcurrentAppendIsRetryableAndDiscardsNothing(t);
    }
  }

  @Test
  void losingEveryRaceEndsWithATypedErrorAndNothingCommitted() {
    try (Dataset ds = create()) {
      DatasetOptions oneAttempt =
          options.toBuilder().commitOptions(options.commitOptions().withMaxAttempts(3)).build();
      // Every claim of any version is refused as if another writer held it.
      store.arm(Op.PUT_IF_ABSENT, k -> k.startsWith(ObjectStoreCommitStore.VERSIONS_PREFIX), Fault.FAIL_BEFORE, 100);
      try (Dataset handle = Dataset.open(URI_, oneAttempt);
          VectorSchemaRoot b = SampleTable.batch(allocator, 10, 5)) {
        CommitRetriesExhaustedException e =
            assertThatExceptionOfType(CommitRetriesExhaustedException.class).isThrownBy(() -> handle.append(List.of(b))).actual();
        assertThat(e.getMessage()).contains("3 attempts");
      }
      store.disarmAll();
      assertThat(ds.latestVersion()).isEqualTo(1);
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(0, 10));
    }
  }

  @SafeVarargs
  private static List<Long> concat(List<Long>... lists) {
    return java.util.Arrays.stream(lists).flatMap(List::stream).toList();
  }
}
