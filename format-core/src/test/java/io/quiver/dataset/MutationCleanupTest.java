package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static io.quiver.dataset.StagedColumnSupport.intField;
import static io.quiver.dataset.StagedColumnSupport.ints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CommitConflictException;
import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.CommitRetriesExhaustedException;
import io.quiver.exceptions.StaleColumnWriteException;
import io.quiver.exceptions.TableAlreadyExistsException;
import io.quiver.predicate.Predicate;
import io.quiver.store.CommitStore;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore.Op;
import io.quiver.store.FaultInjectingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.TestStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The mutation pipeline's clean-up, for every kind of change: a change whose commit definitely failed
 * (its claim refused until the retries ran out, a conflict, a failure while preparing) leaves the store
 * exactly as it found it, having written files first; one whose outcome is unknown deletes nothing (its
 * version may hold it, and does here); the files workers wrote for a distributed or staged column commit
 * are the caller's and survive a failed commit, which the caller retries with them.
 */
class MutationCleanupTest {
  private static final String URI_ = "test://table";

  private RootAllocator allocator;
  private FaultInjectingObjectStore store;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator(); // close() fails on a leak
    store = new FaultInjectingObjectStore(new MemoryObjectStore(URI_));
    options = options(TestStores.registry("test", TestStores.keepOpen(store)), 1);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private DatasetOptions options(io.quiver.store.ObjectStores registry, int maxAttempts) {
    return DatasetOptions.builder()
        .allocator(allocator)
        .registry(registry)
        .session(new Session(1 << 20))
        .maxRowsPerFragment(10)
        .commitOptions(CommitOptions.defaults().withMaxAttempts(maxAttempts).withBackoff(Duration.ZERO, Duration.ZERO))
        .build();
  }

  /** Versions 1..3, three fragments of ten rows (ids 0..29), the sample schema plus an int64 {@code n}. */
  private Dataset table() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 30)) {
      Dataset ds = Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
      ds.columns().add(List.of(new Field("n", FieldType.nullable(new ArrowType.Int(64, true)), null)));
      ds.delete(new long[] {RowAddress.of(2, 9)});
      return ds;
    }
  }

  private Set<String> keys() {
    return store.delegate().listAll("").stream().map(ObjectInfo::key).collect(Collectors.toCollection(TreeSet::new));
  }

  /** The keys the change wrote (or began writing) since the calls were last cleared. */
  private List<String> writtenSinceCleared() {
    List<String> out = new ArrayList<>(store.calls(Op.WRITE));
    out.addAll(store.calls(Op.OPEN_WRITER));
    return out;
  }

  // ---------------------------------------------------------------- the changes

  /** What a change does once its inputs exist; inputs a worker writes are made by {@link Change#prepare}. */
  interface Step {
    Object run();
  }

  /**
   * One kind of change: {@code prepare} does what happens before the commit outside the pipeline (workers
   * writing their files) and returns the commit step; {@code writes} are the key prefixes the pipeline
   * itself writes under.
   */
  record Change(String name, Function<Ctx, Step> prepare, Set<String> writes) {
    @Override
    public String toString() {
      return name;
    }
  }

  /** What a change's preparation sees. */
  record Ctx(Dataset ds, BufferAllocator allocator) {}

  private static final Set<String> TXN = Set.of("_transactions/");
  private static final Set<String> DATA = Set.of("data/", "_transactions/");
  private static final Set<String> DELETIONS = Set.of("_deletions/", "_transactions/");

  private static Change change(String name, Set<String> writes, Function<Dataset, Object> run) {
    return new Change(name, c -> () -> run.apply(c.ds()), writes);
  }

  static Stream<Change> changes() {
    return Stream.of(
        change("append", DATA, ds -> append(ds, 30, 15, CommitOptions.defaults().withMaxAttempts(1))),
        change("keyed append", DATA,
            ds -> append(ds, 30, 15, CommitOptions.defaults().withMaxAttempts(1).withIdempotenceKey("k"))),
        change("overwrite", DATA, ds -> {
          try (VectorSchemaRoot b = SampleTable.batch(ds.allocator(), 100, 5)) {
            return ds.overwrite(SampleTable.SCHEMA, List.of(b));
          }
        }),
        change("delete by predicate", DELETIONS, ds -> ds.delete(Predicate.lt("id", 15L))),
        change("delete by address", DELETIONS, ds -> ds.delete(new long[] {RowAddress.of(0, 1), RowAddress.of(1, 2)})),
        change("update by predicate", DATA, ds -> ds.update(Predicate.ge("id", 5L), Map.of("name", "x"))),
        change("update by address", DATA, ds -> ds.update(new long[] {RowAddress.of(1, 3)}, Map.of("s.x", 7))),
        change("computed update", DATA,
            ds -> ds.update(Predicate.TRUE, List.of("id"), List.of("n"), MutationCleanupTest::idPlusOne)),
        change("compact", DATA, ds -> ds.compact(CompactionOptions.defaults())),
        change("add all-null column", TXN, ds -> ds.columns().add(List.of(int64("m")))),
        change("add computed column", DATA,
            ds -> ds.columns().add(List.of(int64("m")), List.of("id"), MutationCleanupTest::doubled)),
        change("replace column", DATA,
            ds -> ds.columns().replace(List.of("n"), List.of("id"), MutationCleanupTest::doubledAsN)),
        change("drop column", TXN, ds -> ds.columns().drop("name")),
        change("rename column", TXN, ds -> ds.columns().rename("name", "label")),
        change("set nullable", TXN, ds -> ds.columns().setNullable("id", true)),
        change("restore", TXN, ds -> ds.restore(1)),
        change("update config", TXN, ds -> ds.updateConfig(Map.of("owner", "me"), Set.of())),
        new Change("staged column-write commit", c -> {
          List<StagedColumnWrite> staged = stage(c.ds(), c.allocator());
          return () -> c.ds().columns().commit(staged);
        }, TXN),
        new Change("distributed commit", c -> {
          List<WriteResult> results = workerResults(c.ds(), c.allocator());
          return () -> c.ds().distributed().commit(results, WriteMode.APPEND,
              CommitOptions.defaults().withMaxAttempts(1).withIdempotenceKey("job/1"));
        }, TXN));
  }

  // ---------------------------------------------------------------- a definite failure after files were written

  @ParameterizedTest(name = "{0}")
  @MethodSource("changes")
  void aRefusedClaimLeavesNoFileBehind(Change change) {
    try (Dataset ds = table()) {
      Step step = change.prepare().apply(new Ctx(ds, allocator));
      Set<String> before = keys();
      long version = ds.version();
      store.clearCalls();
      // The store refuses the claim (it did not act); with one attempt allowed the commit has definitely failed.
      store.armOnce(Op.PUT_IF_ABSENT, ObjectStoreCommitStore.manifestKey(version + 1), Fault.FAIL_BEFORE);
      assertThatExceptionOfType(CommitRetriesExhaustedException.class).isThrownBy(step::run);
      assertThat(store.pendingFaults()).as("the change reached its claim").isEqualTo(0);
      assertWroteUnder(change.writes());
      assertThat(keys()).as("every file the change wrote is gone, and nothing else").isEqualTo(before);
      assertThat(ds.version()).isEqualTo(version);
      assertThat(ds.latestVersion()).isEqualTo(version);
      ds.validate().orThrow();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("changes")
  void anUnknownOutcomeDeletesNothing(Change change) {
    try (Dataset ds = table()) {
      Step step = change.prepare().apply(new Ctx(ds, allocator));
      Set<String> before = keys();
      long version = ds.version();
      store.clearCalls();
      // The claim lands but its answer is lost, and reading the version back fails too.
      String manifest = ObjectStoreCommitStore.manifestKey(version + 1);
      store.armOnce(Op.PUT_IF_ABSENT, manifest, Fault.FAIL_AFTER);
      store.arm(Op.READ, manifest::equals, Fault.FAIL_BEFORE, 1);
      assertThatExceptionOfType(CommitStateUnknownException.class).isThrownBy(step::run);
      assertThat(store.pendingFaults()).isEqualTo(0);
      assertWroteUnder(change.writes());
      Set<String> after = keys();
      assertThat(after).containsAll(before).contains(manifest);
      for (String written : writtenSinceCleared()) {
        assertThat(after).as("kept " + written).contains(written);
      }
      // The commit did land, and every file its version references is there.
      try (Dataset latest = Dataset.open(URI_, options)) {
        assertThat(latest.version()).isEqualTo(version + 1);
        latest.validate().orThrow();
        assertThat(scannedRows(latest)).isEqualTo(latest.countRows());
      }
    }
  }

  private void assertWroteUnder(Set<String> prefixes) {
    List<String> written = writtenSinceCleared();
    for (String prefix : prefixes) {
      assertThat(written).as("the change wrote under " + prefix).anyMatch(k -> k.startsWith(prefix));
    }
  }

  @Test
  void anUnsettledClaimThatDidNotLandStillDeletesNothing() {
    try (Dataset ds = table()) {
      String manifest = ObjectStoreCommitStore.manifestKey(ds.version() + 1);
      store.armOnce(Op.PUT_IF_ABSENT, manifest, Fault.FAIL_BEFORE);
      store.arm(Op.READ, manifest::equals, Fault.FAIL_BEFORE, 1);
      Set<String> before = keys();
      store.clearCalls();
      assertThatExceptionOfType(CommitStateUnknownException.class).isThrownBy(() -> append(ds, 30, 15, CommitOptions.defaults().withMaxAttempts(1)));
      Set<String> orphans = new TreeSet<>(keys());
      orphans.removeAll(before);
      assertThat(orphans).isEqualTo(new TreeSet<>(writtenSinceCleared()))
          .anyMatch(k -> k.startsWith("data/")).anyMatch(k -> k.startsWith("_transactions/"));
      assertThat(ds.latestVersion()).isEqualTo(3);
    }
  }

  @Test
  void aClaimThatThrowsSomethingElseKeepsTheFilesItsVersionMayReference() {
    DatasetOptions throwing = options.toBuilder().commitStore(s -> new ThrowingAfterClaim(s, 4)).build();
    try (Dataset ds = createWith(throwing)) {
      ds.columns().add(List.of(new Field("n", FieldType.nullable(new ArrowType.Int(64, true)), null)));
      ds.delete(new long[] {RowAddress.of(2, 9)});
      Set<String> before = keys();
      // Version 4's claim lands, then the commit store fails with something the commit loop does not settle.
      assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> append(ds, 30, 15, CommitOptions.defaults()));
      assertThat(keys()).containsAll(before).anyMatch(k -> !before.contains(k) && k.startsWith("data/"));
      try (Dataset latest = Dataset.open(URI_, options)) {
        assertThat(latest.version()).isEqualTo(4);
        latest.validate().orThrow();
        assertThat(scanIds(latest.newScan().open())).isEqualTo(range(0, 45).stream().filter(id -> id != 29).toList());
      }
    }
  }

  private Dataset createWith(DatasetOptions with) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 30)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), with);
    }
  }

  // ---------------------------------------------------------------- conflicts

  /** A change on a stale handle, and the concurrent commit that makes it conflict. */
  record Conflict(String name, Function<Dataset, Object> concurrent, Function<Ctx, Step> prepare, Set<String> writes,
      Class<? extends RuntimeException> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Conflict> conflicts() {
    Class<CommitConflictException> conflict = CommitConflictException.class;
    return Stream.of(
        new Conflict("compaction after a delete of its fragment", ds -> ds.delete(new long[] {RowAddress.of(0, 0)}),
            c -> () -> c.ds().compact(CompactionOptions.defaults()), DATA, conflict),
        new Conflict("update after an update of its cells", ds -> ds.update(Predicate.lt("id", 3L), Map.of("name", "a")),
            c -> () -> c.ds().update(Predicate.lt("id", 5L), Map.of("name", "b")), DATA, conflict),
        new Conflict("delete after a drop of its predicate's column", ds -> ds.columns().drop("name"),
            c -> () -> c.ds().delete(Predicate.eq("name", "name-1")), DELETIONS, conflict),
        new Conflict("replace after a replace of its column",
            ds -> ds.columns().replace(List.of("n"), List.of("id"), MutationCleanupTest::doubledAsN),
            c -> () -> c.ds().columns().replace(List.of("n"), List.of("id"), MutationCleanupTest::doubledAsN), DATA,
            conflict),
        new Conflict("overwrite after an append", ds -> append(ds, 30, 5, CommitOptions.defaults()),
            c -> () -> {
              try (VectorSchemaRoot b = SampleTable.batch(c.allocator(), 100, 5)) {
                return c.ds().overwrite(SampleTable.SCHEMA, List.of(b));
              }
            }, DATA, conflict),
        new Conflict("restore after an append", ds -> append(ds, 30, 5, CommitOptions.defaults()),
            c -> () -> c.ds().restore(1), TXN, conflict),
        new Conflict("staged column write after an update of its input",
            ds -> ds.update(Predicate.eq("id", 4L), Map.of("name", "changed")), c -> {
              List<StagedColumnWrite> staged = stage(c.ds(), c.allocator());
              return () -> c.ds().columns().commit(staged);
            }, TXN, StaleColumnWriteException.class),
        new Conflict("distributed overwrite after an append", ds -> append(ds, 30, 5, CommitOptions.defaults()), c -> {
          List<WriteResult> results = workerResults(c.ds(), c.allocator());
          return () -> c.ds().distributed().commit(results, WriteMode.OVERWRITE, CommitOptions.defaults());
        }, TXN, conflict));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("conflicts")
  void aConflictLeavesNoFileBehind(Conflict conflict) {
    try (Dataset ds = table(); Dataset stale = ds.checkout(ds.version())) {
      Step step = conflict.prepare().apply(new Ctx(stale, allocator));
      conflict.concurrent().apply(ds);
      Set<String> before = keys();
      store.clearCalls();
      assertThatExceptionOfType(conflict.expected()).isThrownBy(step::run);
      assertWroteUnder(conflict.writes());
      assertThat(keys()).isEqualTo(before);
      ds.validate().orThrow();
    }
  }

  @Test
  void aRebasedDeleteWhoseClaimIsRefusedRemovesBothItsDeletionFiles() {
    try (Dataset ds = table(); Dataset stale = ds.checkout(ds.version())) {
      ds.delete(new long[] {RowAddress.of(0, 0)});
      Set<String> before = keys();
      store.clearCalls();
      store.armOnce(Op.PUT_IF_ABSENT, ObjectStoreCommitStore.manifestKey(ds.version() + 1), Fault.FAIL_BEFORE);
      // Another row of the same fragment: rebased onto the concurrent delete (a second deletion file).
      assertThatExceptionOfType(CommitRetriesExhaustedException.class).isThrownBy(() -> stale.delete(new long[]{RowAddress.of(0, 1)}));
      assertThat(store.calls(Op.WRITE).stream().filter(k -> k.startsWith("_deletions/")).count()).isEqualTo(2);
      assertThat(keys()).isEqualTo(before);
    }
  }

  @Test
  void aCreateThatLosesTheRaceRemovesItsFiles() {
    Set<String> winner = new TreeSet<>();
    DatasetOptions direct = options(TestStores.registry("test", TestStores.keepOpen(store.delegate())), 3);
    store.schedule((index, op, key) -> op == Op.PUT_IF_ABSENT && key.equals(ObjectStoreCommitStore.manifestKey(1))
        && winner.isEmpty() ? Fault.INTERLEAVE : null, () -> {
          Set<String> ours = keys(); // written by the create under test, before its claim
          try (Dataset other = createWith(direct)) {
            winner.addAll(keys());
          }
          winner.removeAll(ours);
        });
    assertThatExceptionOfType(TableAlreadyExistsException.class).isThrownBy(this::table);
    assertThat(winner).isNotEmpty();
    assertThat(keys()).as("only the winner's files").isEqualTo(winner);
  }

  // ---------------------------------------------------------------- failures while preparing

  @Test
  void aColumnFunctionThatFailsOnALaterFragmentRemovesTheFilesOfTheEarlierOnes() {
    try (Dataset ds = table()) {
      Set<String> before = keys();
      store.clearCalls();
      assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> ds.columns().add(List.of(int64("m")), List.of("id"), failingOnTheThirdCall(MutationCleanupTest::doubled)));
      assertThat(store.calls(Op.OPEN_WRITER)).hasSize(3);
      assertThat(keys()).isEqualTo(before);
      store.clearCalls();
      assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> ds.columns().replace(List.of("n"), List.of("id"),
          failingOnTheThirdCall(MutationCleanupTest::doubledAsN)));
      assertThat(store.calls(Op.OPEN_WRITER)).hasSize(3);
      assertThat(keys()).isEqualTo(before);
    }
  }

  @Test
  void anAppendWhoseLaterBatchDoesNotMatchRemovesTheFragmentsWrittenBefore() {
    try (Dataset ds = table(); VectorSchemaRoot good = rows(ds, allocator, 30, 25);
        VectorSchemaRoot bad = VectorSchemaRoot.create(new Schema(List.of(int64("id"))), allocator)) {
      bad.setRowCount(0);
      Set<String> before = keys();
      store.clearCalls();
      assertThatExceptionOfType(io.quiver.exceptions.SchemaMismatchException.class).isThrownBy(() -> ds.append(List.of(good, bad)));
      assertThat(store.calls(Op.OPEN_WRITER)).hasSize(3); // two fragments of ten rows finished, one begun
      assertThat(keys()).isEqualTo(before);
    }
  }

  @Test
  void aComputedUpdateThatFailsOnALaterFragmentRemovesTheOverlaysWrittenBefore() {
    try (Dataset ds = table()) {
      Set<String> before = keys();
      store.clearCalls();
      AtomicInteger calls = new AtomicInteger();
      assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> ds.update(Predicate.TRUE, List.of("id"), List.of("n"),
          current -> {
            if (calls.incrementAndGet() == 2) {
              current.close();
              throw new IllegalStateException("the update function failed");
            }
            return idPlusOne(current);
          }));
      assertThat(store.calls(Op.OPEN_WRITER)).isNotEmpty();
      assertThat(keys()).isEqualTo(before);
    }
  }

  // ---------------------------------------------------------------- what the pipeline does not own, or keeps

  @Test
  void aFailedDistributedCommitKeepsTheWorkersFilesAndCommitsThemOnRetry() {
    try (Dataset ds = table()) {
      List<WriteResult> results = workerResults(ds, allocator);
      Set<String> withWorkerFiles = keys();
      CommitOptions keyed = CommitOptions.defaults().withMaxAttempts(1).withIdempotenceKey("job/7");
      store.armOnce(Op.PUT_IF_ABSENT, ObjectStoreCommitStore.manifestKey(ds.version() + 1), Fault.FAIL_BEFORE);
      assertThatExceptionOfType(CommitRetriesExhaustedException.class).isThrownBy(() -> ds.distributed().commit(results, WriteMode.APPEND, keyed));
      assertThat(keys()).isEqualTo(withWorkerFiles);
      long version = ds.distributed().commit(results, WriteMode.APPEND, keyed);
      assertThat(version).isEqualTo(4);
      ds.validate().orThrow();
      assertThat(ds.countRows()).isEqualTo(29 + 8);
    }
  }

  @Test
  void aFailedStagedColumnCommitKeepsTheStagedFilesAndCommitsThemOnRetry() {
    try (Dataset ds = table()) {
      List<StagedColumnWrite> staged = stage(ds, allocator);
      Set<String> withStagedFiles = keys();
      store.armOnce(Op.PUT_IF_ABSENT, ObjectStoreCommitStore.manifestKey(ds.version() + 1), Fault.FAIL_BEFORE);
      assertThatExceptionOfType(CommitRetriesExhaustedException.class).isThrownBy(() -> ds.columns().commit(staged));
      assertThat(keys()).isEqualTo(withStagedFiles);
      assertThat(ds.columns().commit(staged)).isEqualTo(4);
      ds.validate().orThrow();
      assertThat(StagedColumnSupport.column(ds, "w")).hasSize(29);
    }
  }

  @Test
  void aKeyedAppendFoundCommittedPublishesNothingAndKeepsNoFile() {
    try (Dataset ds = table()) {
      CommitOptions keyed = CommitOptions.defaults().withIdempotenceKey("batch-9");
      long first = append(ds, 30, 15, keyed);
      try (Dataset retry = ds.checkout(3)) {
        Set<String> before = keys();
        store.clearCalls();
        assertThat(append(retry, 30, 15, keyed)).isEqualTo(first);
        assertWroteUnder(DATA);
        assertThat(keys()).as("the retry's own files are unreferenced, and gone").isEqualTo(before);
      }
    }
  }

  @Test
  void aChangeWithNothingToCommitWritesNothing() {
    try (Dataset ds = table()) {
      Set<String> before = keys();
      assertThat(ds.delete(Predicate.eq("id", 1000L)).deletedRows()).isEqualTo(0);
      assertThat(ds.update(Predicate.eq("id", 1000L), Map.of("name", "x")).updatedRows()).isEqualTo(0);
      assertThat(ds.compact(CompactionOptions.defaults().withMaterializeDeletions(false).withTargetRowsPerFragment(5))).isEqualTo(new CompactionResult(ds.version(), 0, 0, 0));
      assertThat(keys()).isEqualTo(before);
    }
  }

  // ---------------------------------------------------------------- helpers

  /** Rows a scan of every column returns. */
  private static long scannedRows(Dataset ds) {
    long rows = 0;
    try (ArrowReader reader = ds.newScan().open()) {
      while (reader.loadNextBatch()) {
        rows += reader.getVectorSchemaRoot().getRowCount();
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return rows;
  }

  private static long append(Dataset ds, long from, int rows, CommitOptions commitOptions) {
    try (VectorSchemaRoot b = rows(ds, ds.allocator(), from, rows)) {
      return ds.append(List.of(b), commitOptions);
    }
  }

  /** The sample rows {@code [from, from + rows)} in the handle's schema: the sample columns, then a null n. */
  private static VectorSchemaRoot rows(Dataset ds, BufferAllocator allocator, long from, int rows) {
    VectorSchemaRoot out = VectorSchemaRoot.create(ds.schema().toArrow(), allocator);
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      for (int i = 0; i < b.getFieldVectors().size(); i++) {
        b.getVector(i).makeTransferPair(out.getVector(i)).transfer();
      }
    }
    BigIntVector n = (BigIntVector) out.getVector("n");
    n.allocateNew(rows);
    n.setValueCount(rows);
    out.setRowCount(rows);
    return out;
  }

  /** A worker's results: eight rows written by a writer bound to the handle's version. */
  private static List<WriteResult> workerResults(Dataset ds, BufferAllocator allocator) {
    try (DistributedWriter writer = ds.distributed().newWriter(); VectorSchemaRoot b = rows(ds, allocator, 200, 8)) {
      return List.of(writer.write(List.of(b)));
    }
  }

  /** Staged writes of a new int32 column {@code w} computed from {@code name}, one per fragment. */
  private static List<StagedColumnWrite> stage(Dataset ds, BufferAllocator allocator) {
    ColumnSchema schema = ds.columns().newSchema(List.of(intField("w", true)), List.of(), List.of("name"));
    List<StagedColumnWrite> staged = new ArrayList<>();
    for (io.quiver.manifest.Fragment f : ds.manifest().fragments()) {
      Integer[] values = new Integer[(int) f.physicalRows()];
      java.util.Arrays.fill(values, (int) f.id());
      try (ArrowReader batches = ints(allocator, schema.arrowSchema(), values)) {
        staged.add(ds.columns().writeFragment(f.id(), batches, schema));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return staged;
  }

  /** {@code fn}, except that its third call (one per fragment here) fails. */
  private static ColumnFunction failingOnTheThirdCall(ColumnFunction fn) {
    AtomicInteger calls = new AtomicInteger();
    return (input, alloc) -> {
      if (calls.incrementAndGet() == 3) {
        throw new IllegalStateException("the column function failed");
      }
      return fn.apply(input, alloc);
    };
  }

  private static Field int64(String name) {
    return new Field(name, FieldType.nullable(new ArrowType.Int(64, true)), null);
  }

  private static VectorSchemaRoot doubled(VectorSchemaRoot input, BufferAllocator alloc) {
    return longs(input, alloc, "m", 2, 0);
  }

  private static VectorSchemaRoot doubledAsN(VectorSchemaRoot input, BufferAllocator alloc) {
    return longs(input, alloc, "n", 2, 0);
  }

  private static VectorSchemaRoot idPlusOne(VectorSchemaRoot current) {
    return longs(current, current.getVector(0).getAllocator(), "n", 1, 1);
  }

  /** {@code name} = id * factor + offset for every row of {@code input} (whose first column is the id). */
  private static VectorSchemaRoot longs(VectorSchemaRoot input, BufferAllocator alloc, String name, long factor,
      long offset) {
    VectorSchemaRoot out = VectorSchemaRoot.create(new Schema(List.of(int64(name))), alloc);
    BigIntVector ids = (BigIntVector) input.getVector(0);
    BigIntVector v = (BigIntVector) out.getVector(0);
    v.allocateNew(input.getRowCount());
    for (int i = 0; i < input.getRowCount(); i++) {
      v.set(i, ids.get(i) * factor + offset);
    }
    v.setValueCount(input.getRowCount());
    out.setRowCount(input.getRowCount());
    return out;
  }

  /** The object store's commit store, except that the claim of {@code version} throws after it landed. */
  private static final class ThrowingAfterClaim implements CommitStore {
    private final ObjectStoreCommitStore delegate;
    private final long version;

    ThrowingAfterClaim(io.quiver.store.ObjectStore store, long version) {
      this.delegate = new ObjectStoreCommitStore(store);
      this.version = version;
    }

    @Override
    public ClaimResult claim(long v, byte[] manifestBytes) {
      ClaimResult result = delegate.claim(v, manifestBytes);
      if (v == version) {
        throw new IllegalStateException("the connection was reset after the claim of version " + v);
      }
      return result;
    }

    @Override
    public Optional<byte[]> read(long v) {
      return delegate.read(v);
    }

    @Override
    public Optional<Long> latestVersion() {
      return delegate.latestVersion();
    }

    @Override
    public List<Long> listVersions(int limit) {
      return delegate.listVersions(limit);
    }

    @Override
    public String locationOf(long v) {
      return delegate.locationOf(v);
    }

    @Override
    public String location() {
      return delegate.location();
    }

    @Override
    public List<Long> versionsAfter(long afterVersion) {
      return delegate.versionsAfter(afterVersion);
    }

    @Override
    public void remove(long v) {
      delegate.remove(v);
    }
  }
}
