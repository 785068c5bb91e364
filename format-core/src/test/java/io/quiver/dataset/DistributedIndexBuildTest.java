package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.IncompatibleTransactionException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.NotFoundException;
import io.quiver.internal.codec.IndexBuildCodec;
import io.quiver.manifest.IndexSegment;
import io.quiver.manifest.IndexedFragment;
import io.quiver.manifest.ScalarIndex;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Distributed index builds: plan on a driver at a version, build one segment per task on workers (from bytes,
 * with their own store), commit all segments in one UpdateIndices commit. Equal to the single-process create;
 * optimize after appends; retries, foreign results and conflicts refused or harmless; a commit raced by a
 * compaction and by an update of the indexed column still answers every filter as a scan without indices does.
 */
class DistributedIndexBuildTest {
  private RootAllocator allocator;
  private Dataset table;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    table = ScanFixture.create(ScanFixture.newUri(), allocator, ScanFixture.options(allocator));
  }

  @AfterEach
  void tearDown() {
    table.close();
    assertThat(allocator.getAllocatedMemory()).as("Arrow memory leaked").isZero();
    allocator.close();
  }

  private Map<Long, String> scan(Dataset ds, Predicate filter, boolean indices, ScanMetrics metrics) {
    return ScanFixture.rowsByAddress(ds.newScan().filter(filter).withRowAddress(true).useIndices(indices)
        .metrics(metrics).batchSize(7).open());
  }

  /** Every filter of ScalarIndexTest reads the same rows with and without indices; returns fragments answered. */
  private long assertSameAnswers(Dataset ds) {
    long answered = 0;
    for (Predicate filter : ScalarIndexTest.FILTERS) {
      ScanMetrics metrics = new ScanMetrics();
      Map<Long, String> expected = scan(ds, filter, false, new ScanMetrics());
      assertThat(scan(ds, filter, true, metrics)).as(filter.toString()).containsExactlyEntriesOf(expected);
      answered += metrics.fragmentsAnsweredByIndex();
    }
    return answered;
  }

  /** Builds every task as a worker would: from the task's bytes, opening the table itself, returning bytes. */
  private List<BuiltIndexSegment> buildOnWorkers(IndexBuildPlan plan) {
    List<BuiltIndexSegment> out = new ArrayList<>();
    for (IndexBuildTask t : plan.tasks()) {
      byte[] returned = IndexBuildTask.decode(t.encode()).build(ScanFixture.options(allocator)).encode();
      out.add(BuiltIndexSegment.decode(returned));
    }
    return out;
  }

  private IndexBuildResult distributedCreate(Dataset ds, String name, ScalarIndex.Kind kind, String column,
      long rowsPerTask) {
    IndexBuildPlan plan = ds.indices().planBuild(name, kind, column, IndexBuildOptions.defaults()
        .withRowsPerTask(rowsPerTask));
    return ds.indices().commit(plan, buildOnWorkers(plan));
  }

  private Dataset reopen(Dataset ds) {
    Dataset fresh = Dataset.open(ds.uri(), ScanFixture.options(allocator));
    ds.close();
    return fresh;
  }

  @Test
  void planBuildAndCommitEqualsTheSingleProcessCreate() {
    long planned = table.version();
    IndexBuildPlan plan = table.indices().planBuild("dist", ScalarIndex.Kind.BTREE, "s.x",
        IndexBuildOptions.defaults());
    assertThat(plan.version()).isEqualTo(planned);
    assertThat(plan.action()).isEqualTo(IndexBuildPlan.Action.CREATE);
    assertThat(plan.column()).isEqualTo("s.x");
    assertThat(plan.tasks()).as("default rows per task: one task for this small table").hasSize(1);
    assertThat(plan.fragmentsToIndex()).isEqualTo(table.manifest().fragments().size());
    assertThat(table.version()).as("planning commits nothing").isEqualTo(planned);
    IndexBuildResult dist = table.indices().commit(plan, buildOnWorkers(plan));
    assertThat(dist.version()).isEqualTo(planned + 1).isEqualTo(table.version());
    assertThat(dist.segmentsAdded()).isEqualTo(1);
    assertThat(dist.column()).isEqualTo("s.x");
    ScalarIndex single = table.indices().create("single", ScalarIndex.Kind.BTREE, "s.x");

    ScalarIndex d = dist.index();
    assertThat(d.uuid()).isEqualTo(plan.index().uuid());
    assertThat(d.createdVersion()).isEqualTo(dist.version());
    assertThat(d.kind()).isEqualTo(single.kind());
    assertThat(d.fieldId()).isEqualTo(single.fieldId());
    assertThat(d.segments()).hasSize(1);
    IndexSegment ds = d.segments().get(0);
    IndexSegment ss = single.segments().get(0);
    assertThat(ds.fragments()).isEqualTo(ss.fragments());
    assertThat(ds.rows()).isEqualTo(ss.rows()).isEqualTo(dist.rowsIndexed());
    assertThat(ds.builtAtVersion()).isEqualTo(planned);
    assertThat(ds.sizeBytes()).as("the same keys and postings, so the same bytes").isEqualTo(ss.sizeBytes());
    assertThat(table.indices().coverage("dist")).isEqualTo(table.indices().coverage("single"));

    // Answers: with only the distributed index, then only the single-process one.
    table.indices().drop("single");
    long withDist = assertSameAnswers(table);
    assertThat(withDist).isPositive();
    table.indices().drop("dist");
    table.indices().create("single", ScalarIndex.Kind.BTREE, "s.x");
    assertThat(assertSameAnswers(table)).isEqualTo(withDist);
  }

  @Test
  void manyTasksWriteOneSegmentEachAndCommitOnce() {
    // Fragments of 60, 40, 60, 20, 20 physical rows; at most 70 rows per task: [0] [1] [2] [3, 4].
    IndexBuildPlan plan = table.indices().planBuild("by_name", ScalarIndex.Kind.BITMAP, "name",
        IndexBuildOptions.defaults().withRowsPerTask(70));
    List<Long> ids = table.manifest().fragments().stream().map(f -> f.id()).toList();
    assertThat(plan.tasks()).extracting(IndexBuildTask::fragmentIds).containsExactly(List.of(ids.get(0)),
        List.of(ids.get(1)), List.of(ids.get(2)), List.of(ids.get(3), ids.get(4)));
    assertThat(plan.tasks()).allSatisfy(t -> {
      assertThat(t.planId()).isEqualTo(plan.planId());
      assertThat(t.version()).isEqualTo(plan.version());
      assertThat(t.indexUuid()).isEqualTo(plan.index().uuid());
      assertThat(t.kind()).isEqualTo(ScalarIndex.Kind.BITMAP);
      assertThat(t.tableUri()).isEqualTo(table.uri());
    });
    long before = table.version();
    // Workers in reverse order; the commit takes them in any order.
    List<BuiltIndexSegment> built = new ArrayList<>(buildOnWorkers(plan));
    java.util.Collections.reverse(built);
    assertThat(table.version()).as("building commits nothing").isEqualTo(before);
    IndexBuildResult r = table.indices().commit(plan, built);
    assertThat(r.version()).isEqualTo(before + 1);
    assertThat(r.segmentsAdded()).isEqualTo(4);
    assertThat(r.fragmentsIndexed()).isEqualTo(5);
    assertThat(r.rowsIndexed()).isEqualTo(200);
    assertThat(r.index().segments()).extracting(IndexSegment::path).containsExactlyElementsOf(
        built.stream().sorted(java.util.Comparator.comparingInt(BuiltIndexSegment::taskIndex))
            .map(BuiltIndexSegment::path).toList());
    assertThat(table.indices().coverage("by_name").uncoveredFragments()).isZero();
    assertThat(assertSameAnswers(table)).isPositive();
    table = reopen(table);
    assertThat(table.indices().get("by_name").orElseThrow().segments()).hasSize(4);
    assertThat(assertSameAnswers(table)).isPositive();
  }

  @Test
  void optimizeAfterAppendsIndexesOnlyTheNewFragments() {
    distributedCreate(table, "by_id", ScalarIndex.Kind.BTREE, "id", 100);
    for (int i = 0; i < 3; i++) {
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 1000 + 30 * i, 30)) {
        table.append(List.of(b));
      }
    }
    List<Long> appended = table.manifest().fragments().stream().map(f -> f.id()).toList().subList(5, 8);
    assertThat(table.indices().coverage("by_id").uncoveredFragments()).isEqualTo(3);
    IndexBuildPlan plan = table.indices().planOptimize("by_id", IndexBuildOptions.defaults().withRowsPerTask(60));
    assertThat(plan.action()).isEqualTo(IndexBuildPlan.Action.OPTIMIZE);
    assertThat(plan.tasks()).extracting(IndexBuildTask::fragmentIds)
        .containsExactly(appended.subList(0, 2), appended.subList(2, 3));
    int segmentsBefore = table.indices().get("by_id").orElseThrow().segments().size();
    IndexBuildResult r = table.indices().commit(plan, buildOnWorkers(plan));
    assertThat(r.segmentsAdded()).isEqualTo(2);
    assertThat(r.index().segments()).hasSize(segmentsBefore + 2);
    assertThat(table.indices().coverage("by_id").uncoveredFragments()).isZero();
    ScanMetrics metrics = new ScanMetrics();
    assertThat(scan(table, Predicate.eq("id", 1075L), true, metrics)).hasSize(1);
    assertThat(metrics.fragmentsScannedWithoutIndex()).isZero();
    assertSameAnswers(table);

    // Nothing left to index: an empty plan whose commit commits nothing.
    IndexBuildPlan empty = table.indices().planOptimize("by_id", IndexBuildOptions.defaults());
    assertThat(empty.isEmpty()).isTrue();
    long version = table.version();
    IndexBuildResult none = table.indices().commit(empty, List.of());
    assertThat(none.version()).isEqualTo(version).isEqualTo(table.version());
    assertThat(none.segmentsAdded()).isZero();
  }

  @Test
  void anEmptyTablePlansNoTaskAndCommitsAnEmptyIndex() {
    try (Dataset empty = Dataset.create(ScanFixture.newUri(), SampleTable.SCHEMA, List.of(),
        ScanFixture.options(allocator))) {
      IndexBuildPlan plan = empty.indices().planBuild("k", ScalarIndex.Kind.BTREE, "id", IndexBuildOptions.defaults());
      assertThat(plan.isEmpty()).isTrue();
      IndexBuildResult r = empty.indices().commit(plan, List.of());
      assertThat(r.index().segments()).isEmpty();
      assertThat(empty.indices().list()).extracting(ScalarIndex::name).containsExactly("k");
    }
  }

  @Test
  void tasksAndSegmentsRoundTripThroughBytesAndJavaSerialization() throws Exception {
    IndexBuildPlan plan = table.indices().planBuild("k", ScalarIndex.Kind.BITMAP, "s.y",
        IndexBuildOptions.defaults().withRowsPerTask(100));
    IndexBuildTask task = plan.tasks().get(1);
    byte[] bytes = task.encode();
    assertThat(IndexBuildTask.decode(bytes)).isEqualTo(task);
    assertThat(IndexBuildTask.decode(bytes).encode()).as("deterministic").isEqualTo(bytes);
    assertThat(new String(bytes, 0, 4, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("QVI1");
    assertThat(javaRoundTrip(task)).isEqualTo(task);
    assertThat(task.toString()).contains(plan.planId()).contains("'k'");

    BuiltIndexSegment built = task.build(table);
    byte[] segmentBytes = built.encode();
    assertThat(new String(segmentBytes, 0, 4, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("QVJ1");
    assertThat(BuiltIndexSegment.decode(segmentBytes)).isEqualTo(built);
    assertThat(BuiltIndexSegment.decode(segmentBytes).segment()).isEqualTo(built.segment());
    assertThat(javaRoundTrip(built)).isEqualTo(built);
    assertThat(built.fragmentIds()).isEqualTo(task.fragmentIds());
    assertThat(built.path()).startsWith("_indices/" + plan.index().uuid() + "/");

    byte[] damaged = bytes.clone();
    damaged[damaged.length - 2] ^= 0x11;
    assertThatThrownBy(() -> IndexBuildTask.decode(damaged)).isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("index build task");
    assertThatThrownBy(() -> IndexBuildTask.decode(null)).isInstanceOf(CorruptFileException.class);
    assertThatThrownBy(() -> IndexBuildTask.decode(segmentBytes)).as("a segment is not a task")
        .isInstanceOf(CorruptFileException.class);
    assertThatThrownBy(() -> BuiltIndexSegment.decode(bytes)).as("a task is not a segment")
        .isInstanceOf(CorruptFileException.class);
    byte[] compaction = table.compaction().plan(CompactionOptions.defaults()).tasks().get(0).encode();
    assertThatThrownBy(() -> IndexBuildTask.decode(compaction)).isInstanceOf(CorruptFileException.class);
  }

  @SuppressWarnings("unchecked")
  private static <T> T javaRoundTrip(T value) throws IOException, ClassNotFoundException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ObjectOutputStream o = new ObjectOutputStream(out)) {
      o.writeObject(value);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(out.toByteArray()))) {
      return (T) in.readObject();
    }
  }

  @Test
  void aRetriedTaskWritesANewFileAndTheCommitPublishesTheOneItIsGiven() {
    IndexBuildPlan plan = table.indices().planBuild("k", ScalarIndex.Kind.BTREE, "id", IndexBuildOptions.defaults());
    BuiltIndexSegment first = plan.tasks().get(0).build(ScanFixture.options(allocator));
    BuiltIndexSegment retry = plan.tasks().get(0).build(table);
    assertThat(retry.path()).isNotEqualTo(first.path());
    assertThat(table.io().store().head(first.path())).isPresent();
    assertThatThrownBy(() -> table.indices().commit(plan, List.of(first, retry)))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("two built index segments for task 0");
    IndexBuildResult r = table.indices().commit(plan, List.of(retry));
    assertThat(r.index().segments()).extracting(IndexSegment::path).containsExactly(retry.path());
    assertThat(table.io().store().head(first.path())).as("the other copy is left for cleanup").isPresent();
    assertSameAnswers(table);
  }

  @Test
  void aBuildCommittedTwiceIsPublishedOnce() {
    IndexBuildPlan create = table.indices().planBuild("k", ScalarIndex.Kind.BTREE, "id",
        IndexBuildOptions.defaults().withRowsPerTask(100));
    List<BuiltIndexSegment> built = buildOnWorkers(create);
    table.indices().commit(create, built);
    long version = table.version();
    assertThatThrownBy(() -> table.indices().commit(create, built))
        .isInstanceOf(IncompatibleTransactionException.class).hasMessageContaining("already");
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 700, 10)) {
      table.append(List.of(b));
    }
    IndexBuildPlan optimize = table.indices().planOptimize("k", IndexBuildOptions.defaults());
    List<BuiltIndexSegment> more = buildOnWorkers(optimize);
    table.indices().commit(optimize, more);
    int segments = table.indices().get("k").orElseThrow().segments().size();
    // The driver lost the answer of its commit and commits again (from a handle still at the planned version,
    // and from the moved one): two optimizes of one index would otherwise add up.
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> table.indices().commit(optimize, more))
          .isInstanceOf(IncompatibleTransactionException.class).hasMessageContaining("already in index 'k'")
          .hasMessageContaining(more.get(0).path());
    }
    table = reopen(table);
    assertThat(table.indices().get("k").orElseThrow().segments()).hasSize(segments);
    assertThat(table.version()).isEqualTo(version + 2);
    assertSameAnswers(table);
  }

  @Test
  void segmentsOfAnotherPlanVersionOrTaskAreRefused() {
    IndexBuildPlan plan = table.indices().planBuild("k", ScalarIndex.Kind.BTREE, "id",
        IndexBuildOptions.defaults().withRowsPerTask(70));
    assertThat(plan.tasks()).hasSize(4);
    List<BuiltIndexSegment> built = buildOnWorkers(plan);
    IndexBuildPlan other = table.indices().planBuild("k", ScalarIndex.Kind.BTREE, "id",
        IndexBuildOptions.defaults().withRowsPerTask(70));
    List<BuiltIndexSegment> otherBuilt = buildOnWorkers(other);
    long version = table.version();

    assertThatThrownBy(() -> table.indices().commit(plan, List.of(built.get(0), otherBuilt.get(1), built.get(2), built.get(3))))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("belongs to another index build plan");
    assertThatThrownBy(() -> table.indices().commit(plan, built.subList(0, 3)))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("no built segment for tasks [3]")
        .hasMessageContaining("nothing was committed");
    // A segment of the plan's own id, but read at another version or for another task's fragments (forged: a
    // bug in an engine that mixed up its results).
    BuiltIndexSegment b0 = built.get(0);
    IndexSegment atOther = b0.segment();
    IndexSegment moved = new IndexSegment(atOther.path(), atOther.sizeBytes(), atOther.footerOffset(),
        atOther.footerLength(), plan.version() - 1, atOther.rows(), atOther.fragments());
    BuiltIndexSegment otherVersion = new BuiltIndexSegment(new IndexBuildCodec.Segment(plan.planId(), 0,
        b0.tableLocation(), plan.version() - 1, plan.index().uuid(), moved));
    assertThatThrownBy(() -> table.indices().commit(plan, List.of(otherVersion, built.get(1), built.get(2), built.get(3))))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("built at version " + (plan.version() - 1));
    BuiltIndexSegment wrongTask = new BuiltIndexSegment(new IndexBuildCodec.Segment(plan.planId(), 1,
        b0.tableLocation(), plan.version(), plan.index().uuid(), b0.segment()));
    assertThatThrownBy(() -> table.indices().commit(plan, List.of(wrongTask, built.get(2))))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("but task 1 indexes");
    BuiltIndexSegment beyond = new BuiltIndexSegment(new IndexBuildCodec.Segment(plan.planId(), 7,
        b0.tableLocation(), plan.version(), plan.index().uuid(), b0.segment()));
    assertThatThrownBy(() -> table.indices().commit(plan, List.of(beyond)))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("has only 4 tasks");
    assertThatThrownBy(() -> table.indices().commit(plan, null)).isInstanceOf(InvalidArgumentException.class);

    // A plan of another table.
    try (Dataset second = ScanFixture.create(ScanFixture.newUri(), allocator, ScanFixture.options(allocator))) {
      assertThatThrownBy(() -> second.indices().commit(plan, built)).isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("commit it through a handle on its own table");
      IndexBuildTask foreign = plan.tasks().get(0);
      assertThatThrownBy(() -> foreign.build(second)).isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("build it on the task's table");
    }

    // A segment file removed (a cleanup) before the commit.
    table.io().store().delete(built.get(1).path());
    assertThatThrownBy(() -> table.indices().commit(plan, built)).isInstanceOf(NotFoundException.class)
        .hasMessageContaining(built.get(1).path()).hasMessageContaining("missing");
    assertThat(table.version()).as("no refusal committed anything").isEqualTo(version);
    assertThat(table.indices().list()).isEmpty();
  }

  @Test
  void planningChecksNameKindAndColumnAsCreateDoes() {
    IndexBuildOptions o = IndexBuildOptions.defaults();
    assertThatThrownBy(() -> table.indices().planBuild("t", ScalarIndex.Kind.BTREE, "tags", o))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("cannot be indexed");
    assertThatThrownBy(() -> table.indices().planBuild("t", ScalarIndex.Kind.BTREE, "nope", o))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("no column 'nope'");
    assertThatThrownBy(() -> table.indices().planBuild("t", null, "id", o))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("btree or bitmap");
    assertThatThrownBy(() -> table.indices().planBuild("bad name", ScalarIndex.Kind.BTREE, "id", o))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("must match");
    assertThatThrownBy(() -> table.indices().planBuild("t", ScalarIndex.Kind.BTREE, "id", null))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("IndexBuildOptions.defaults()");
    assertThatThrownBy(() -> new IndexBuildOptions(0)).isInstanceOf(InvalidArgumentException.class);
    table.indices().create("t", ScalarIndex.Kind.BTREE, "id");
    assertThatThrownBy(() -> table.indices().planBuild("t", ScalarIndex.Kind.BTREE, "name", o))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("already has an index named 't'");
    assertThatThrownBy(() -> table.indices().planOptimize("missing", o)).isInstanceOf(NotFoundException.class);
  }

  @Test
  void aCreateRacedByACreateOfTheSameNameFailsTypedAndItsSegmentsAreOrphansForCleanup() {
    CleanupTestClock clock = new CleanupTestClock(Instant.parse("2026-01-01T00:00:00Z"));
    MemoryObjectStore store = new MemoryObjectStore("test://dist-index", clock);
    DatasetOptions options = DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(1 << 20))
        .registry(io.quiver.store.ObjectStores.empty().register(io.quiver.store.TestStores.provider("test", () -> store)))
        .rowsPerBatch(16)
        .maxRowsPerFragment(60)
        .clock(clock)
        .build();
    try (Dataset ds = ScanFixture.create("test://dist-index", allocator, options)) {
      IndexBuildPlan plan = ds.indices().planBuild("k", ScalarIndex.Kind.BTREE, "id",
          IndexBuildOptions.defaults().withRowsPerTask(100));
      List<BuiltIndexSegment> built = new ArrayList<>();
      for (IndexBuildTask t : plan.tasks()) {
        built.add(t.build(options));
      }
      // Meanwhile another driver creates an index of the same name.
      try (Dataset other = Dataset.open("test://dist-index", options)) {
        other.indices().create("k", ScalarIndex.Kind.BITMAP, "name");
      }
      long latest = ds.latestVersion();
      assertThatThrownBy(() -> ds.indices().commit(plan, built))
          .isInstanceOf(IncompatibleTransactionException.class).hasMessageContaining("create-index")
          .hasMessageContaining("Nothing was committed");
      assertThat(ds.latestVersion()).isEqualTo(latest);
      try (Dataset fresh = Dataset.open("test://dist-index", options)) {
        ScalarIndex k = fresh.indices().get("k").orElseThrow();
        assertThat(k.kind()).as("the other driver's index stands").isEqualTo(ScalarIndex.Kind.BITMAP);
        assertThat(k.uuid()).isNotEqualTo(plan.index().uuid());
      }
      // The failed build's files were not deleted by the commit: they are unreferenced, kept within the safety
      // window, and removed by cleanup after it.
      for (BuiltIndexSegment b : built) {
        assertThat(store.head(b.path())).as(b.path()).isPresent();
      }
      CleanupOptions cleanup = CleanupOptions.builder().olderThan(Duration.ZERO).safetyWindow(Duration.ofHours(1))
          .build();
      assertThat(ds.cleanup(cleanup).indexFilesRemoved()).as("within the safety window").isZero();
      clock.advance(Duration.ofHours(2));
      assertThat(ds.cleanup(cleanup).indexFilesRemoved()).isEqualTo(built.size());
      for (BuiltIndexSegment b : built) {
        assertThat(store.head(b.path())).as(b.path()).isEmpty();
      }
      try (Dataset fresh = Dataset.open("test://dist-index", options)) {
        assertThat(fresh.validate().isValid()).isTrue();
        assertThat(scan(fresh, Predicate.eq("name", "upd"), true, new ScanMetrics())).hasSize(13);
      }
    }
  }

  @Test
  void anOptimizeRacedByADropFailsTyped() {
    distributedCreate(table, "k", ScalarIndex.Kind.BTREE, "id", 1000);
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 500, 10)) {
      table.append(List.of(b));
    }
    IndexBuildPlan plan = table.indices().planOptimize("k", IndexBuildOptions.defaults());
    assertThat(plan.tasks()).hasSize(1);
    List<BuiltIndexSegment> built = buildOnWorkers(plan);
    try (Dataset other = Dataset.open(table.uri(), ScanFixture.options(allocator))) {
      other.indices().drop("k");
    }
    assertThatThrownBy(() -> table.indices().commit(plan, built))
        .isInstanceOf(IncompatibleTransactionException.class).hasMessageContaining("optimize-index");
    table = reopen(table);
    assertThat(table.indices().list()).isEmpty();
  }

  @Test
  void aBuildWhoseCommitRacedWithACompactionStillAnswersAsAScan() {
    IndexBuildPlan plan = table.indices().planBuild("by_id", ScalarIndex.Kind.BTREE, "id",
        IndexBuildOptions.defaults().withRowsPerTask(70));
    List<BuiltIndexSegment> built = buildOnWorkers(plan);
    Map<Long, String> before;
    try (Dataset other = Dataset.open(table.uri(), ScanFixture.options(allocator))) {
      // Fragments 3 and 4 (20 rows each, with deletions) are compacted away before the commit.
      CompactionResult c = other.compact(CompactionOptions.defaults().withSmallFragmentRows(30)
          .withMaterializeDeletions(false).withMaterializeOverlays(false));
      assertThat(c.fragmentsRemoved()).isEqualTo(2);
      before = scan(other, Predicate.gt("id", 170L), false, new ScanMetrics());
    }
    IndexBuildResult r = table.indices().commit(plan, built);
    assertThat(r.segmentsAdded()).isEqualTo(4);
    table = reopen(table);
    assertThat(table.manifest().fragments()).hasSize(4);
    Indices.Coverage coverage = table.indices().coverage("by_id");
    assertThat(coverage.uncoveredFragments()).as("the compacted fragment").isEqualTo(1);
    assertThat(coverage.coveredFragments()).isEqualTo(3);
    ScanMetrics metrics = new ScanMetrics();
    assertThat(scan(table, Predicate.gt("id", 170L), true, metrics)).containsExactlyEntriesOf(before);
    assertThat(metrics.fragmentsScannedWithoutIndex()).isEqualTo(1);
    assertThat(assertSameAnswers(table)).isPositive();
    // An optimize indexes the compacted fragment.
    IndexBuildPlan again = table.indices().planOptimize("by_id", IndexBuildOptions.defaults());
    assertThat(again.fragmentsToIndex()).isEqualTo(1);
    table.indices().commit(again, buildOnWorkers(again));
    assertThat(table.indices().coverage("by_id").uncoveredFragments()).isZero();
    assertSameAnswers(table);
  }

  @Test
  void aBuildWhoseCommitRacedWithAnUpdateOfTheIndexedColumnNeverAnswersFromTheOldState() {
    IndexBuildPlan plan = table.indices().planBuild("by_x", ScalarIndex.Kind.BITMAP, "s.x",
        IndexBuildOptions.defaults().withRowsPerTask(70));
    List<BuiltIndexSegment> built = buildOnWorkers(plan);
    try (Dataset other = Dataset.open(table.uri(), ScanFixture.options(allocator))) {
      other.update(Predicate.in("id", 120L, 121L), Map.of("s.x", 4242));
    }
    table.indices().commit(plan, built);
    table = reopen(table);
    ScanMetrics metrics = new ScanMetrics();
    assertThat(scan(table, Predicate.eq("s.x", 4242), true, metrics)).hasSize(2);
    // The updated fragment is answered by the index, its newer overlay cells checked exactly (format.md §13.1)
    assertThat(metrics.fragmentsScannedWithoutIndex()).as("the updated fragment").isZero();
    assertThat(metrics.fragmentsAnsweredByIndex()).isPositive();
    assertThat(scan(table, Predicate.eq("s.x", 360), true, new ScanMetrics())).as("id 120's old value").isEmpty();
    assertThat(table.indices().coverage("by_x").uncoveredFragments()).isEqualTo(1);
    assertThat(assertSameAnswers(table)).isPositive();
    Map<Long, String> expected = new LinkedHashMap<>(scan(table, Predicate.eq("s.x", 4242), false, new ScanMetrics()));
    assertThat(expected).hasSize(2);
  }
}
