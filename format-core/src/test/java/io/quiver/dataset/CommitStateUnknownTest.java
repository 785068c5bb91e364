package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore.Op;
import io.quiver.store.FaultInjectingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.time.Duration;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The claim of a version fails ambiguously and reading the version back fails too: the commit loop cannot
 * tell whether it committed, and says so with a typed exception carrying what a caller needs to find out.
 */
class CommitStateUnknownTest {
  private static final String URI_ = "test://table";
  private static final String MANIFEST_2 = ObjectStoreCommitStore.manifestKey(2);
  private RootAllocator allocator;
  private FaultInjectingObjectStore store;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new FaultInjectingObjectStore(new MemoryObjectStore(URI_));
    options = DatasetOptions.builder()
        .allocator(allocator)
        .registry(ObjectStores.empty().register(TestStores.provider("test", () -> TestStores.keepOpen(store))))
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

  private CommitStateUnknownException appendFailing(Dataset ds, Fault claimFault, CommitOptions commitOptions) {
    store.armOnce(Op.PUT_IF_ABSENT, MANIFEST_2, claimFault);
    store.arm(Op.READ, MANIFEST_2::equals, Fault.FAIL_BEFORE, 1);
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 10, 5)) {
      return assertThatExceptionOfType(CommitStateUnknownException.class).isThrownBy(() -> ds.append(List.of(b), commitOptions)).actual();
    } finally {
      assertThat(store.pendingFaults()).isEqualTo(0);
    }
  }

  @Test
  void anAmbiguousClaimWhoseReadBackFailsIsAnUnknownOutcomeNamingTheTransaction() {
    try (Dataset ds = create()) {
      CommitStateUnknownException e = appendFailing(ds, Fault.FAIL_AFTER, options.commitOptions());
      assertThat(e).isInstanceOf(StoreException.class); // existing catchers of store failures still catch it
      assertThat(e.location()).isEqualTo(URI_);
      assertThat(e.version()).isEqualTo(java.util.OptionalLong.of(2));
      assertThat(e.isTransient()).isFalse();
      assertThat(e.idempotenceKey()).isEmpty();
      assertThat(e.getMessage())
          .contains("outcome of the commit of transaction " + e.transactionUuid().orElseThrow())
          .contains("as version 2 of " + URI_)
          .contains("injected FAIL_AFTER on PUT_IF_ABSENT").contains("injected FAIL_BEFORE on READ")
          .contains("Before retrying, look for transaction " + e.transactionUuid().orElseThrow() + " in the table's history")
          .contains("Do not delete the files it wrote");
      assertThat(e.getCause()).isInstanceOf(StoreException.class);
      assertThat(e.getCause().getSuppressed()).hasSize(1);

      // The claim did land: the transaction is in the history under the reported uuid and version.
      try (Dataset again = Dataset.open(URI_, options)) {
        VersionInfo v = again.versions().get(0);
        assertThat(v.version()).isEqualTo(2);
        assertThat(v.transactionUuid()).isEqualTo(e.transactionUuid().orElseThrow());
        assertThat(scanIds(again.newScan().open())).isEqualTo(range(0, 15));
      }
    }
  }

  @Test
  void theIdempotenceKeyIsCarriedAndFindsTheCommit() {
    try (Dataset ds = create()) {
      CommitStateUnknownException e =
          appendFailing(ds, Fault.FAIL_AFTER, options.commitOptions().withIdempotenceKey("job-7/batch-3"));
      assertThat(e.idempotenceKey()).contains("job-7/batch-3");
      assertThat(e.getMessage()).contains("(idempotence key 'job-7/batch-3')")
          .contains("look idempotence key 'job-7/batch-3' up (findCommit)");
      try (Dataset again = Dataset.open(URI_, options)) {
        assertThat(again.distributed().findCommit("job-7/batch-3", 0).version()).isEqualTo(2);
      }
    }
  }

  @Test
  void aClaimThatDidNotLandIsNotFoundInTheHistory() {
    try (Dataset ds = create()) {
      CommitStateUnknownException e = appendFailing(ds, Fault.FAIL_BEFORE, options.commitOptions());
      try (Dataset again = Dataset.open(URI_, options)) {
        assertThat(again.latestVersion()).isEqualTo(1);
        assertThat(again.versions()).noneMatch(v -> v.transactionUuid().equals(e.transactionUuid().orElseThrow()));
        assertThat(scanIds(again.newScan().open())).isEqualTo(range(0, 10));
      }
    }
  }
}
