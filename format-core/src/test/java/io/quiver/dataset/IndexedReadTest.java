package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.internal.index.IndexSelection;
import io.quiver.internal.read.FragmentRange;
import io.quiver.internal.read.Projection;
import io.quiver.internal.read.ScanReader;
import io.quiver.internal.read.ScanSpec;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.ScalarIndex;
import io.quiver.predicate.Predicate;
import io.quiver.store.CountingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/**
 * How a scan reads what a scalar index selects (docs/scan-planning.md, "Reading an index selection"): a planned task
 * carries the candidate offsets and reads only them; a sparse selection is point-read (fewer bytes, the same rows
 * as whole chunks and as the scan without indices, with deletions, overlays and struct validity); a fragment whose
 * indexed column got overlays after the build is still answered, its overlaid offsets added to the candidates.
 *
 * <p>The table: {@link SampleTable} rows with their ids shuffled (so {@code id} and {@code s.x = 3 id} are unclustered:
 * every fragment's bounds span nearly all values), 3 fragments of 8,192 rows in 1,024-row batches, ZSTD (the
 * default), some rows deleted, {@code name} overlaid on some rows, indices on {@code id} and {@code s.x}.
 */
class IndexedReadTest {
  private static final int ROWS = 3 * 8192;

  private RootAllocator allocator;
  private CountingObjectStore counting;
  private DatasetOptions options;
  private Dataset table;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    counting = new CountingObjectStore(new MemoryObjectStore("mem://indexed-read"));
    options = DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(16 << 20))
        .registry(ObjectStores.empty().register(TestStores.provider("test", () -> counting)))
        .rowsPerBatch(1024)
        .maxRowsPerFragment(8192)
        .commitOptions(CommitOptions.defaults().withBackoff(java.time.Duration.ZERO, java.time.Duration.ZERO))
        .build();
    int[] perm = new int[ROWS];
    for (int i = 0; i < ROWS; i++) {
      perm[i] = i;
    }
    SplittableRandom random = new SplittableRandom(42);
    for (int i = ROWS - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    try (VectorSchemaRoot ordered = SampleTable.batch(allocator, 0, ROWS);
        VectorSchemaRoot shuffled = VectorSchemaRoot.create(SampleTable.SCHEMA, allocator)) {
      shuffled.allocateNew();
      for (int v = 0; v < ordered.getFieldVectors().size(); v++) {
        FieldVector from = ordered.getVector(v);
        FieldVector to = shuffled.getVector(v);
        for (int i = 0; i < ROWS; i++) {
          to.copyFromSafe(perm[i], i, from);
        }
        to.setValueCount(ROWS);
      }
      shuffled.setRowCount(ROWS);
      table = Dataset.create("test://t", SampleTable.SCHEMA, List.of(shuffled), options);
    }
    assertThat(table.manifest().fragments()).hasSize(3);
    table.delete(Predicate.in("id", 7L, 100L, 5000L, 20_000L));
    table.update(Predicate.in("id", 11L, 12L, 9000L), Map.of("name", "renamed"));
    table.indices().create("by_id", ScalarIndex.Kind.BTREE, "id");
    table.indices().create("by_x", ScalarIndex.Kind.BTREE, "s.x");
  }

  @AfterEach
  void tearDown() {
    table.close();
    allocator.close();
  }

  /** A few ids spread over the table: deleted ones, renamed ones, null structs (id % 11 == 5), null x (id % 5 == 1). */
  private static final Predicate FEW_IDS = Predicate.in("id", 1L, 5L, 7L, 11L, 12L, 16L, 100L, 333L, 4242L, 5000L,
      9000L, 12_345L, 16_000L, 20_000L, 24_000L, 24_575L);

  private Map<Long, String> scan(Dataset ds, Predicate filter, boolean indices, ScanMetrics metrics) {
    return ScanFixture.rowsByAddress(ds.newScan().filter(filter).withRowAddress(true).useIndices(indices)
        .metrics(metrics).open());
  }

  private Map<Long, String> tasks(Dataset ds, Predicate filter, boolean indices, ScanMetrics metrics) {
    Map<Long, String> out = new LinkedHashMap<>();
    for (ScanTask task : ds.newScan().filter(filter).withRowAddress(true).useIndices(indices).planTasks()) {
      out.putAll(ScanFixture.rowsByAddress(task.open(ds, allocator, metrics)));
    }
    return out;
  }

  @Test
  void plannedTasksCarryTheIndexSelectionAndReadOnlyItsRows() throws Exception {
    Map<Long, String> expected = scan(table, FEW_IDS, false, new ScanMetrics());
    assertThat(expected).hasSize(12); // 16 ids, 4 deleted

    List<ScanTask> planned = table.newScan().filter(FEW_IDS).withRowAddress(true).planTasks();
    assertThat(planned).hasSize(3).allSatisfy(t -> assertThat(t.selection()).isPresent());
    assertThat(planned.stream().mapToLong(t -> t.selection().get().getLongCardinality()).sum())
        .as("one candidate per id the index holds, deleted rows included (the reader drops them)").isEqualTo(16);
    // Through the encoding and Java serialization, the selection arrives and the task reads only its rows.
    ScanMetrics indexed = new ScanMetrics();
    Map<Long, String> rows = new LinkedHashMap<>();
    for (ScanTask task : planned) {
      ScanTask decoded = ScanTask.decode(task.encode());
      assertThat(decoded.selection()).isEqualTo(task.selection());
      assertThat(serialized(task).selection()).isEqualTo(task.selection());
      rows.putAll(ScanFixture.rowsByAddress(decoded.open(table, allocator, indexed)));
    }
    assertThat(rows).containsExactlyEntriesOf(expected);
    ScanMetrics whole = new ScanMetrics();
    assertThat(tasks(table, FEW_IDS, false, whole)).containsExactlyEntriesOf(expected);
    assertThat(tasks(table, FEW_IDS, false, new ScanMetrics())).as("warm").containsExactlyEntriesOf(expected);
    whole = new ScanMetrics();
    tasks(table, FEW_IDS, false, whole);
    indexed = new ScanMetrics();
    tasks(table, FEW_IDS, true, indexed);
    assertThat(indexed.bytesFetched() * 2).as("task bytes with the selection (%s) against without (%s)",
        indexed.bytesFetched(), whole.bytesFetched()).isLessThan(whole.bytesFetched());
    assertThat(indexed.rowsReturned()).isEqualTo(12);

    // Split tasks each carry the part of the selection in their range.
    List<ScanTask> split = table.newScan().filter(FEW_IDS).withRowAddress(true).targetTaskBytes(1).planTasks();
    assertThat(split).allSatisfy(t -> {
      RoaringBitmap s = t.selection().orElseThrow();
      assertThat(s.isEmpty()).isFalse();
      assertThat((long) s.first()).isGreaterThanOrEqualTo(t.rowStart());
      assertThat((long) s.last()).isLessThan(t.rowEnd());
    });
    Map<Long, String> fromSplit = new LinkedHashMap<>();
    split.forEach(t -> fromSplit.putAll(ScanFixture.rowsByAddress(t.open(table))));
    assertThat(fromSplit).containsExactlyEntriesOf(expected);

    // Without an index answering (no filter on an indexed column, or useIndices(false)), tasks carry none.
    assertThat(table.newScan().filter(Predicate.eq("name", "renamed")).planTasks())
        .allSatisfy(t -> assertThat(t.selection()).isEmpty());
    assertThat(table.newScan().filter(FEW_IDS).useIndices(false).planTasks())
        .allSatisfy(t -> assertThat(t.selection()).isEmpty());
  }

  private static ScanTask serialized(ScanTask task) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ObjectOutputStream o = new ObjectOutputStream(out)) {
      o.writeObject(task);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(out.toByteArray()))) {
      return (ScanTask) in.readObject();
    }
  }

  /** Every filter reads the same rows (every column, the row address) with and without indices, scans and tasks. */
  private void assertSameAnswers(Dataset ds, List<Predicate> filters) {
    for (Predicate filter : filters) {
      Map<Long, String> expected = scan(ds, filter, false, new ScanMetrics());
      assertThat(scan(ds, filter, true, new ScanMetrics())).as(filter.toString()).containsExactlyEntriesOf(expected);
      assertThat(tasks(ds, filter, true, new ScanMetrics())).as("tasks of " + filter)
          .containsExactlyEntriesOf(expected);
      // Small batches and a limit split the point-read offsets across batches.
      assertThat(ScanFixture.rowsByAddress(ds.newScan().filter(filter).withRowAddress(true).batchSize(3).limit(5)
          .open())).as("limit 5 of " + filter).containsExactlyEntriesOf(first(expected, 5));
    }
  }

  private static Map<Long, String> first(Map<Long, String> rows, int n) {
    Map<Long, String> out = new LinkedHashMap<>();
    rows.entrySet().stream().limit(n).forEach(e -> out.put(e.getKey(), e.getValue()));
    return out;
  }

  @Test
  void aSparseSelectionIsPointReadWithTheSameRowsAndFewerBytes() {
    List<Predicate> sparse = List.of(
        FEW_IDS,
        Predicate.and(FEW_IDS, Predicate.isNotNull("s.x")), // the filter still decides every candidate
        Predicate.in("s.x", 3, 15, 33, 300, 27_000, 60_000, 72_000, 73_722), // ids 1, 5, 11, 100, ...
        Predicate.and(Predicate.ge("id", 12_000L), Predicate.lt("id", 12_040L)));
    assertSameAnswers(table, sparse);

    ScanMetrics metrics = new ScanMetrics();
    assertThat(scan(table, FEW_IDS, true, metrics)).hasSize(12);
    assertThat(metrics.rowsPointRead()).as("live candidates point-read").isEqualTo(12);
    assertThat(metrics.fragmentsAnsweredByIndex()).isEqualTo(3);
    // A parallel scan point-reads on its threads, in the same order.
    ScanMetrics parallel = new ScanMetrics();
    assertThat(ScanFixture.rowsByAddress(table.newScan().filter(FEW_IDS).withRowAddress(true).parallelism(2)
        .metrics(parallel).open())).containsExactlyEntriesOf(scan(table, FEW_IDS, false, null));
    assertThat(parallel.rowsPointRead()).isEqualTo(12);

    // The same selection read as whole chunks, then filtered: the same rows, more bytes.
    Fragment first = table.manifest().fragments().get(0);
    ScanSpec spec = ScanSpec.of(table.manifest().schema(), Projection.project(table.manifest().schema(), null, null),
        FEW_IDS, true, Scanner.DEFAULT_BATCH_SIZE, ScanSpec.NO_LIMIT);
    RoaringBitmap hits = IndexSelection.of(table.io(), table.manifest(), Optional.of(FEW_IDS), List.of(first))
        .candidates(first.id()).orElseThrow();
    FragmentRange range = FragmentRange.whole(first).select(hits);
    readCounted(spec, range, 1); // footers and batch metadata cached for both
    readCounted(spec, range, 0);
    counting.reset();
    List<String> chunks = readCounted(spec, range, 0);
    long chunkBytes = counting.bytesRead();
    counting.reset();
    List<String> points = readCounted(spec, range, ScanReader.POINT_READ_SHARE);
    long pointBytes = counting.bytesRead();
    assertThat(points).isEqualTo(chunks).isNotEmpty();
    assertThat(pointBytes * 2).as("point reads (%s bytes) against whole chunks (%s)", pointBytes, chunkBytes)
        .isLessThan(chunkBytes);
  }

  private List<String> readCounted(ScanSpec spec, FragmentRange range, double share) {
    return ScanFixture.rows(new ScanReader(table.io(), spec, List.of(range), allocator).pointReadShare(share));
  }

  @Test
  void aDenseSelectionReadsWholeChunks() {
    Predicate half = Predicate.lt("id", (long) ROWS / 2);
    assertSameAnswers(table, List.of(half));
    ScanMetrics metrics = new ScanMetrics();
    assertThat(scan(table, half, true, metrics)).hasSize(ROWS / 2 - 3);
    assertThat(metrics.fragmentsAnsweredByIndex()).isEqualTo(3);
    assertThat(metrics.rowsPointRead()).isZero();
  }

  @Test
  void anUpdateOfTheIndexedColumnKeepsTheFragmentAnsweredWithItsOverlaidRowsAsCandidates() {
    // id 333 is updated INTO the range (its x becomes 5), id 4242 OUT of it (its x, 12726, becomes 99999); the
    // row of id 16 gets a null x; id 24000 a new y only (an overlay on another member of the indexed column).
    Predicate range = Predicate.and(Predicate.ge("s.x", 0), Predicate.lt("s.x", 30));
    Map<Long, String> before = scan(table, range, true, new ScanMetrics());
    table.update(Predicate.eq("id", 333L), Map.of("s.x", 5));
    table.update(Predicate.eq("id", 4242L), Map.of("s.x", 99_999));
    Map<String, Object> nullX = new java.util.HashMap<>();
    nullX.put("s.x", null);
    table.update(Predicate.eq("id", 16L), nullX);
    table.update(Predicate.eq("id", 24_000L), Map.of("s.y", "new-y"));
    assertThat(table.indices().coverage("by_x").uncoveredFragments())
        .as("changed fragments still count as uncovered: optimize re-covers them").isPositive();

    List<Predicate> filters = List.of(range, Predicate.eq("s.x", 5), Predicate.eq("s.x", 4242 * 3),
        Predicate.eq("s.x", 99_999), Predicate.isNull("s.x"), Predicate.eq("s.y", "new-y"), Predicate.eq("s.x", 48),
        Predicate.in("s.x", 999, 72_000));
    for (Predicate filter : filters) {
      ScanMetrics metrics = new ScanMetrics();
      Map<Long, String> indexed = scan(table, filter, true, metrics);
      assertThat(indexed).as(filter.toString()).containsExactlyEntriesOf(scan(table, filter, false, null));
      if (!filter.toString().contains("s.y")) {
        assertThat(metrics.fragmentsScannedWithoutIndex()).as(filter + ": " + metrics).isZero();
        // Every fragment the statistics do not prune is answered (the range's bounds meet all three).
        assertThat(metrics.fragmentsAnsweredByIndex()).as(filter + ": " + metrics).isPositive();
        if (filter == range) {
          assertThat(metrics.fragmentsAnsweredByIndex()).isEqualTo(3);
        }
      }
    }
    Map<Long, String> after = scan(table, range, true, new ScanMetrics());
    assertThat(after.values()).anySatisfy(r -> assertThat(r).startsWith("id=333 |"));
    assertThat(before.values()).noneSatisfy(r -> assertThat(r).startsWith("id=333 |"));
    assertThat(scan(table, Predicate.eq("s.x", 4242 * 3), true, new ScanMetrics())).as("updated out").isEmpty();
    assertThat(scan(table, Predicate.eq("s.x", 99_999), true, new ScanMetrics())).hasSize(1);
    assertSameAnswers(table, filters);

    // An overlay on another column (name) leaves the index's source files as they were: nothing is added.
    ScanMetrics metrics = new ScanMetrics();
    table.update(Predicate.eq("id", 1L), Map.of("name", "n"));
    assertThat(scan(table, Predicate.eq("id", 1L), true, metrics)).hasSize(1);
    assertThat(metrics.rowsPointRead()).isEqualTo(1);

    table.indices().optimize("by_x");
    assertThat(table.indices().coverage("by_x").uncoveredFragments()).isZero();
    assertSameAnswers(table, filters);
  }

  private Map<Long, String> projected(Predicate filter, boolean indices, ScanMetrics metrics, String... columns) {
    return ScanFixture.rowsByAddress(table.newScan().columns(columns).filter(filter).withRowAddress(true)
        .useIndices(indices).metrics(metrics).open());
  }

  @Test
  void aConjunctAnIndexDecidesIsNeitherEvaluatedNorReadAndTheRestIsStillEvaluated() {
    // FEW_IDS is decided by the btree on id in every fragment (no overlay on id since the build): the scan
    // projecting name alone returns the same rows as without indices, and does not read id for the filter.
    ScanMetrics decided = new ScanMetrics();
    Map<Long, String> names = projected(FEW_IDS, true, decided, "name");
    assertThat(names).hasSize(12).containsExactlyEntriesOf(projected(FEW_IDS, false, null, "name"));
    assertThat(decided.fragmentsAnsweredByIndex()).isEqualTo(3);
    assertThat(decided.fragmentsDecidedByIndex()).as("%s", decided).isEqualTo(3);
    projected(FEW_IDS, true, null, "name", "id"); // warm both shapes' footers and metadata
    ScanMetrics nameOnly = new ScanMetrics();
    projected(FEW_IDS, true, nameOnly, "name");
    ScanMetrics nameAndId = new ScanMetrics();
    projected(FEW_IDS, true, nameAndId, "name", "id");
    assertThat(nameOnly.bytesFetched()).as("bytes projecting name (%s) against name and id (%s): id is not read"
        + " for a conjunct the index decided", nameOnly.bytesFetched(), nameAndId.bytesFetched())
        .isLessThan(nameAndId.bytesFetched());

    // A conjunct no index answers is evaluated on the candidates: only renamed rows among FEW_IDS (11, 12, 9000).
    Predicate mixed = Predicate.and(FEW_IDS, Predicate.eq("name", "renamed"));
    ScanMetrics partly = new ScanMetrics();
    Map<Long, String> renamed = projected(mixed, true, partly, "id");
    assertThat(renamed).hasSize(3).containsExactlyEntriesOf(projected(mixed, false, null, "id"));
    assertThat(partly.fragmentsDecidedByIndex()).as("every fragment the name statistics leave: %s", partly)
        .isPositive().isEqualTo(partly.fragmentsAnsweredByIndex());

    // Planned tasks carry what is left to evaluate: nothing for FEW_IDS, the name conjunct for the mixed filter;
    // through the encoding they read the same rows.
    List<ScanTask> all = table.newScan().columns("name").filter(FEW_IDS).withRowAddress(true).planTasks();
    assertThat(all).hasSize(3).allSatisfy(t -> assertThat(t.filter()).isEmpty());
    List<ScanTask> rest = table.newScan().columns("id").filter(mixed).withRowAddress(true).planTasks();
    assertThat(rest).allSatisfy(t -> assertThat(t.filter()).hasValue(Predicate.eq("name", "renamed")));
    Map<Long, String> fromTasks = new LinkedHashMap<>();
    for (ScanTask t : rest) {
      fromTasks.putAll(ScanFixture.rowsByAddress(ScanTask.decode(t.encode()).open(table, allocator, null)));
    }
    assertThat(fromTasks).containsExactlyEntriesOf(renamed);

    // An update of the indexed column itself: in the fragment holding the row the index answers with the overlaid
    // offsets added and decides nothing (the filter is evaluated there); the others stay decided. Row 16 gets
    // id 99,999, which FEW_IDS no longer selects and IN (99999) does.
    table.update(Predicate.eq("id", 16L), Map.of("id", 99_999L));
    Predicate moved = Predicate.in("id", 16L, 99_999L, 333L, 24_000L);
    ScanMetrics after = new ScanMetrics();
    Map<Long, String> movedRows = projected(moved, true, after, "name", "id");
    assertThat(movedRows).containsExactlyEntriesOf(projected(moved, false, null, "name", "id"));
    assertThat(movedRows.values()).anySatisfy(r -> assertThat(r).contains("id=99999"))
        .noneSatisfy(r -> assertThat(r).contains("id=16 "));
    assertThat(after.fragmentsAnsweredByIndex()).isEqualTo(3);
    // Of the fragments read (those the index did not prune), all but the overlaid one are decided.
    assertThat(after.fragmentsDecidedByIndex()).as("%s", after)
        .isEqualTo(after.fragmentsAnsweredByIndex() - after.fragmentsPruned() - 1);
    assertThat(projected(FEW_IDS, true, null, "name")).hasSize(11)
        .containsExactlyEntriesOf(projected(FEW_IDS, false, null, "name"));
    assertSameAnswers(table, List.of(FEW_IDS, mixed, moved));
  }
}
