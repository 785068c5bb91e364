package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.IdempotenceKeyConflictException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.exceptions.StoreException;
import io.quiver.scenario.CommitScenarios;
import io.quiver.scenario.ScenarioTable;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore.Op;
import io.quiver.store.FaultInjectingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Worker-side writes committed by a driver, and idempotent commits (B2, B4, C3). */
class DistributedWriteTest {
  private static final String URI_ = "test://dist";
  private RootAllocator allocator;
  private FaultInjectingObjectStore store;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new FaultInjectingObjectStore(new MemoryObjectStore(URI_));
    options = DatasetOptions.builder()
        .allocator(allocator)
        .registry(ObjectStores.empty().register(TestStores.provider("test", () -> store)))
        .session(new Session(1 << 20))
        .rowsPerBatch(16)
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

  /** A worker with only the URI and options: opens, writes ids [from, from+rows), ships bytes. */
  private byte[] worker(long version, long from, int rows) {
    try (DistributedWriter w = DistributedWriter.open(URI_, options, version);
        VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return w.write(List.of(b)).encode();
    }
  }

  private static List<WriteResult> decode(byte[]... bytes) {
    return Arrays.stream(bytes).map(WriteResult::decode).toList();
  }

  @Test
  void workersWriteWithoutADatasetAndTheDriverCommitsOneAppend() {
    try (Dataset ds = create()) {
      List<WriteResult> results = decode(worker(1, 10, 5), worker(1, 15, 7), worker(1, 22, 3));
      assertThat(ds.latestVersion()).as("workers commit nothing").isEqualTo(1);
      assertThat(results.stream().mapToLong(WriteResult::rows).sum()).isEqualTo(15);
      assertThat(WriteResult.decode(results.get(0).encode())).isEqualTo(results.get(0));
      assertThat(results.get(0).encode()).isEqualTo(results.get(0).encode());
      assertThat(results.get(0).encode().length).as("compact").isLessThan(1024);

      assertThat(ds.distributed().commit(results, WriteMode.APPEND, CommitOptions.defaults())).isEqualTo(2);
      assertThat(ds.latestVersion()).isEqualTo(2);
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(0, 25));
      assertThat(ds.manifest().fragments().size()).isEqualTo(4);
    }
  }

  @Test
  void resultsOverwriteTheTableAsOneTransaction() {
    try (Dataset ds = create()) {
      List<WriteResult> results = decode(worker(1, 100, 4), worker(1, 104, 4));
      assertThat(ds.distributed().commit(results, WriteMode.OVERWRITE, CommitOptions.defaults())).isEqualTo(2);
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(100, 108));
    }
  }

  @Test
  void newFragmentWriterOnAHandleWritesTheSameResults() {
    try (Dataset ds = create()) {
      WriteResult r;
      try (DistributedWriter w = ds.distributed().newWriter(); VectorSchemaRoot b = SampleTable.batch(allocator, 10, 6)) {
        r = w.write(List.of(b));
      }
      assertThat(r.readVersion()).isEqualTo(1);
      assertThat(r.schema()).isEqualTo(ds.schema());
      assertThat(ds.distributed().commit(List.of(r), WriteMode.APPEND, CommitOptions.defaults())).isEqualTo(2);
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(0, 16));
    }
  }

  @Test
  void aResultWrittenWithAnotherSchemaContractIsRejected() {
    try (Dataset ds = create()) {
      WriteResult good = WriteResult.decode(worker(1, 10, 3));
      org.apache.arrow.vector.types.pojo.Schema renamed = new org.apache.arrow.vector.types.pojo.Schema(
          List.of(SampleTable.SCHEMA.getFields().get(0), new org.apache.arrow.vector.types.pojo.Field("label",
              SampleTable.SCHEMA.getFields().get(1).getFieldType(), null), SampleTable.SCHEMA.getFields().get(2),
              SampleTable.SCHEMA.getFields().get(3)));
      WriteResult other = new WriteResult(good.tableLocation(), 1,
          io.quiver.schema.Schema.fromArrow(renamed, new io.quiver.schema.FieldIdAllocator(0)), good.fragments(),
          java.util.Optional.empty());
      WriteResult decoded = WriteResult.decode(other.encode());
      SchemaMismatchException e = assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(() -> ds.distributed().commit(List.of(good, decoded), WriteMode.APPEND, CommitOptions.defaults())).actual();
      assertThat(e.getMessage()).contains("write result 1").contains("label");
      assertThat(ds.latestVersion()).isEqualTo(1);
    }
  }

  @Test
  void resultsOfAnotherTableAndEmptyListsAreRejected() {
    try (Dataset ds = create()) {
      WriteResult r = WriteResult.decode(worker(1, 10, 3));
      WriteResult foreign = new WriteResult("mem://elsewhere", r.readVersion(), r.schema(), r.fragments(),
          java.util.Optional.empty());
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.distributed().commit(List.of(foreign), WriteMode.APPEND, CommitOptions.defaults()));
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.distributed().commit(List.of(), WriteMode.APPEND, CommitOptions.defaults()));
      assertThat(ds.latestVersion()).isEqualTo(1);
    }
  }

  @Test
  void damagedBytesAreCorruptFileErrors() {
    try (Dataset ds = create()) {
      byte[] bytes = worker(1, 10, 3);
      byte[] flipped = bytes.clone();
      flipped[flipped.length - 1] ^= 1;
      assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> WriteResult.decode(flipped));
      assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> WriteResult.decode(Arrays.copyOf(bytes, 5)));
      assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> WriteResult.decode(null));
      assertThatExceptionOfType(CorruptFileException.class).as("a QVR1 is not a QVB1").isThrownBy(() -> WorkerResults.decode(bytes));
      assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> StagedColumnWrite.decode(bytes));
    }
  }

  @Test
  void workerResultsShipWriteResultsAndStagedColumnWritesOnOneChannel() {
    try (Dataset ds = create()) {
      WriteResult write = WriteResult.decode(worker(1, 10, 3));
      ColumnSchema schema = ds.columns().newSchema(List.of(StagedColumnSupport.intField("v", true)), List.of(), List.of());
      io.quiver.manifest.Fragment fragment = ds.manifest().fragments().get(0);
      Integer[] values = new Integer[(int) fragment.physicalRows()];
      Arrays.fill(values, 7);
      StagedColumnWrite column;
      try (org.apache.arrow.vector.ipc.ArrowReader in =
          StagedColumnSupport.ints(allocator, schema.arrowSchema(), values)) {
        column = ds.columns().writeFragment(fragment.id(), in, schema);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      WorkerResults bundle = new WorkerResults(List.of(write), List.of(column));
      WorkerResults back = WorkerResults.decode(bundle.encode());
      assertThat(back).isEqualTo(bundle);
      assertThat(back.encode()).isEqualTo(bundle.encode());
      assertThat(back.columnWrites()).isEqualTo(List.of(column));
      assertThat(ds.columns().commit(back.columnWrites())).isEqualTo(2);
      assertThat(StagedColumnSupport.column(ds, "v")).isEqualTo(List.of(7, 7, 7, 7, 7, 7, 7, 7, 7, 7));
    }
  }

  // ---------------------------------------------------------------- idempotence keys

  @Test
  void b2_ambiguousAckWithAnIdempotenceKeyLeavesExactlyOneVersion() {
    try (Dataset ds = create()) {
      List<WriteResult> results = decode(worker(1, 10, 5));
      CommitOptions keyed = CommitOptions.defaults().withIdempotenceKey("job-1/7");
      store.armOnce(Op.PUT_IF_ABSENT, ObjectStoreCommitStore.manifestKey(2), Fault.FAIL_AFTER);
      assertThat(ds.distributed().commit(results, WriteMode.APPEND, keyed)).isEqualTo(2);
      assertThat(store.pendingFaults()).isEqualTo(0);
      // The caller did not trust the ack and retries from a fresh handle: same version, no new commit.
      try (Dataset again = Dataset.open(URI_, options)) {
        assertThat(again.distributed().commit(results, WriteMode.APPEND, keyed)).isEqualTo(2);
      }
      assertThat(ds.latestVersion()).isEqualTo(2);
      assertThat(scanIds(ds.checkoutLatest().newScan().open())).isEqualTo(range(0, 15));
    }
  }

  @Test
  void b4_crashAfterCommittingThenRetryWithTheSameKeyDoesNotCommitTwice() {
    try (ScenarioTable t = ScenarioTable.on(new MemoryObjectStore(URI_), allocator)) {
      CommitScenarios.b4_crashAfterCommittingThenRetryWithTheSameKeyDoesNotCommitTwice(t);
    }
  }

  @Test
  void c3_sameKeyWithDifferentContentIsATypedErrorNotASilentSkip() {
    try (Dataset ds = create()) {
      List<WriteResult> first = decode(worker(1, 10, 5));
      List<WriteResult> other = decode(worker(1, 50, 5));
      CommitOptions keyed = CommitOptions.defaults().withIdempotenceKey("job-c3/1");
      assertThat(ds.distributed().commit(first, WriteMode.APPEND, keyed)).isEqualTo(2);
      IdempotenceKeyConflictException e = assertThatExceptionOfType(IdempotenceKeyConflictException.class).isThrownBy(() -> ds.distributed().commit(other, WriteMode.APPEND, keyed)).actual();
      assertThat(e.key()).isEqualTo("job-c3/1");
      assertThat(e.committedVersion()).isEqualTo(2);
      assertThat(e.getMessage()).contains("job-c3/1").contains("version 2").contains("differs");
      assertThat(ds.latestVersion()).isEqualTo(2);
      assertThat(scanIds(ds.checkoutLatest().newScan().open())).isEqualTo(range(0, 15));
    }
  }

  @Test
  void plainAppendsHonourTheKeyToo() {
    try (Dataset ds = create(); Dataset stale = ds.checkout(1);
        VectorSchemaRoot b = SampleTable.batch(allocator, 10, 5)) {
      CommitOptions keyed = CommitOptions.defaults().withIdempotenceKey("append-1");
      assertThat(ds.append(List.of(b), keyed)).isEqualTo(2);
      // A retry re-writes the same rows into new files: recognised by the rows' digest, nothing published.
      assertThat(stale.append(List.of(b), keyed)).isEqualTo(2);
      assertThat(stale.version()).as("the stale handle moved to the version holding its commit").isEqualTo(2);
      try (VectorSchemaRoot other = SampleTable.batch(allocator, 11, 5)) {
        // Other rows under the key: a typed error, from any handle.
        assertThatExceptionOfType(IdempotenceKeyConflictException.class).isThrownBy(() -> stale.append(List.of(other), keyed));
      }
      assertThat(ds.latestVersion()).isEqualTo(2);
    }
  }

  @Test
  void findCommitAnswersFromTheLatestLedgerReadingManifestsOnly() {
    try (Dataset ds = create()) {
      assertThat(ds.distributed().commit(decode(worker(1, 10, 2)), WriteMode.APPEND,
          CommitOptions.defaults().withIdempotenceKey("job/1"))).isEqualTo(2);
      for (int i = 0; i < 3; i++) {
        try (VectorSchemaRoot b = SampleTable.batch(allocator, 20 + i, 1)) {
          ds.append(List.of(b));
        }
      }
      assertThat(ds.latestVersion()).isEqualTo(5);
      store.clearCalls();
      CommitRecord found = ds.distributed().findCommit("job/1", 0).commit().orElseThrow();
      assertThat(found.version()).isEqualTo(2);
      assertThat(found.operation()).isEqualTo("append");
      assertThat(store.calls(Op.READ_RANGE)).isEmpty();
      assertThat(store.calls(Op.READ)).allMatch(k -> !k.startsWith("data/"));
      // One manifest (the latest) answers, whatever the attempt's read version.
      assertThat(store.calls(Op.READ)).hasSizeLessThanOrEqualTo(1);
      assertThat(ds.distributed().findCommit("job/1", 4).version()).isEqualTo(2);
      assertThat(ds.distributed().findCommit("job/2", 0).status()).isEqualTo(CommitLookup.Status.NOT_COMMITTED);
      assertThat(ds.distributed().findCommit("job/2", 3).status()).isEqualTo(CommitLookup.Status.NOT_COMMITTED);
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.distributed().findCommit("job/1", -1));
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.distributed().findCommit("", 0));
    }
  }

  @Test
  void reservedPropertiesCannotBeSetByHand() {
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> CommitOptions.defaults()
        .withProperties(java.util.Map.of(CommitOptions.IDEMPOTENCE_KEY_PROPERTY, "x")));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> CommitOptions.defaults().withIdempotenceKey(""));
  }

  @Test
  void aFailedCommitLeavesNothingAndTheRetryCommitsOnce() {
    try (Dataset ds = create()) {
      List<WriteResult> results = decode(worker(1, 10, 5));
      CommitOptions keyed = CommitOptions.defaults().withIdempotenceKey("job/f");
      store.arm(Op.WRITE, k -> k.startsWith("_transactions/"), Fault.FAIL_BEFORE, 1);
      assertThatExceptionOfType(StoreException.class).isThrownBy(() -> ds.distributed().commit(results, WriteMode.APPEND, keyed));
      assertThat(ds.latestVersion()).isEqualTo(1);
      assertThat(ds.distributed().commit(results, WriteMode.APPEND, keyed)).isEqualTo(2);
      assertThat(ds.distributed().commit(results, WriteMode.APPEND, keyed)).isEqualTo(2);
      assertThat(scanIds(ds.checkoutLatest().newScan().open())).isEqualTo(range(0, 15));
    }
  }
}
