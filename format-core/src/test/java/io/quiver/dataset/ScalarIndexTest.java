package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.IncompatibleTransactionException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.NotFoundException;
import io.quiver.manifest.ScalarIndex;
import io.quiver.predicate.Predicate;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Scalar indices (docs/format.md §13): every indexed filter returns what the same filter returns without indices,
 * on a table with deletions, overlays on an indexed top-level column and on an indexed struct member; fragments
 * changed since a build are scanned (never answered from the old state), and optimize covers them again. Each
 * failure class other formats shipped is a named test: a stale index against a merge-insert update, compaction then
 * lookup, an index built at an old version, a concurrent build and update of the indexed column.
 */
class ScalarIndexTest {
  private RootAllocator allocator;
  private Dataset table;

  static final List<Predicate> FILTERS = List.of(
      Predicate.eq("id", 42L),
      Predicate.eq("id", 3L), // deleted
      Predicate.in("id", 1L, 2L, 150L, 151L, 198L, 199L, 1000L),
      Predicate.and(Predicate.ge("id", 20L), Predicate.lt("id", 70L)),
      Predicate.gt("id", 175L),
      Predicate.le("id", 2.5),
      Predicate.and(Predicate.eq("id", 12L), Predicate.eq("name", "upd")),
      Predicate.eq("name", "upd"),
      Predicate.eq("name", "name-12"), // overwritten by the overlay
      Predicate.isNull("name"),
      Predicate.or(Predicate.eq("name", "name-30"), Predicate.eq("name", "name-31"), Predicate.isNull("name")),
      Predicate.eq("s.x", 999),
      Predicate.eq("s.x", 300), // id 100, overwritten by the overlay
      Predicate.isNull("s.x"), // null members and members of null structs
      Predicate.and(Predicate.gt("s.x", 100), Predicate.lt("s.x", 200)),
      Predicate.eq("s.y", "y42"));

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    table = ScanFixture.create(ScanFixture.newUri(), allocator, ScanFixture.options(allocator));
  }

  @AfterEach
  void tearDown() {
    table.close();
    allocator.close();
  }

  private Map<Long, String> scan(Dataset ds, Predicate filter, boolean indices, ScanMetrics metrics) {
    return ScanFixture.rowsByAddress(ds.newScan().filter(filter).withRowAddress(true).useIndices(indices)
        .metrics(metrics).batchSize(7).open());
  }

  /** Asserts every filter reads the same rows with and without indices; returns fragments answered by an index. */
  private long assertSameAnswers(Dataset ds) {
    long answered = 0;
    for (Predicate filter : FILTERS) {
      ScanMetrics metrics = new ScanMetrics();
      Map<Long, String> expected = scan(ds, filter, false, new ScanMetrics());
      assertThat(scan(ds, filter, true, metrics)).as(filter.toString()).containsExactlyEntriesOf(expected);
      answered += metrics.fragmentsAnsweredByIndex();
      // Planned tasks read the same rows too.
      Map<Long, String> fromTasks = new java.util.LinkedHashMap<>();
      for (ScanTask task : ds.newScan().filter(filter).withRowAddress(true).planTasks()) {
        fromTasks.putAll(ScanFixture.rowsByAddress(task.open(ds)));
      }
      assertThat(fromTasks).as("tasks of " + filter).containsExactlyEntriesOf(expected);
    }
    return answered;
  }

  private void createIndices() {
    table.indices().create("by_id", ScalarIndex.Kind.BTREE, "id");
    table.indices().create("by_name", ScalarIndex.Kind.BITMAP, "name");
    table.indices().create("by_x", ScalarIndex.Kind.BTREE, "s.x");
    table.indices().create("by_y", ScalarIndex.Kind.BTREE, "s.y");
  }

  @Test
  void indexedFiltersReturnWhatScansReturn() {
    createIndices();
    assertThat(table.indices().list()).extracting(ScalarIndex::name).containsExactly("by_id", "by_name", "by_x", "by_y");
    assertThat(table.manifest().writerFeatures()).contains("scalar-indices");
    long answered = assertSameAnswers(table);
    assertThat(answered).isGreaterThan(0);

    // A point lookup reads only the fragment holding the key.
    ScanMetrics metrics = new ScanMetrics();
    assertThat(scan(table, Predicate.eq("id", 42L), true, metrics)).hasSize(1);
    assertThat(metrics.fragmentsAnsweredByIndex()).as("fragments the statistics did not prune").isPositive();
    assertThat(metrics.fragmentsScannedWithoutIndex()).isZero();
    assertThat(metrics.dataFilesOpened()).isEqualTo(1);

    // Re-opened from storage, the indices are there and answer the same.
    try (Dataset reopened = Dataset.open(table.uri(), ScanFixture.options(allocator))) {
      assertThat(reopened.indices().list()).hasSize(4);
      assertSameAnswers(reopened);
    }
  }

  @Test
  void appendedRowsAreScannedUntilOptimized() {
    createIndices();
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 1000, 30)) {
      table.append(List.of(b));
    }
    assertThat(table.indices().coverage("by_id").uncoveredFragments()).isEqualTo(1);
    ScanMetrics metrics = new ScanMetrics();
    assertThat(scan(table, Predicate.eq("id", 1000L), true, metrics)).hasSize(1);
    assertThat(metrics.fragmentsScannedWithoutIndex()).isEqualTo(1);
    assertSameAnswers(table);

    ScalarIndex optimized = table.indices().optimize("by_id");
    assertThat(optimized.segments()).hasSize(2);
    assertThat(table.indices().coverage("by_id").uncoveredFragments()).isZero();
    long before = table.version();
    assertThat(table.indices().optimize("by_id").segments()).hasSize(2);
    assertThat(table.version()).as("nothing to optimize commits nothing").isEqualTo(before);
    assertSameAnswers(table);
  }

  @Test
  void staleIndexVersusMergeInsertUpdate() throws Exception {
    createIndices();
    // The merge rewrites name (an indexed column) for ids 30 and 31 and inserts id 5000.
    try (VectorSchemaRoot source = SampleTable.batch(allocator, 30, 2)) {
      org.apache.arrow.vector.VarCharVector name = (org.apache.arrow.vector.VarCharVector) source.getVector("name");
      name.setSafe(0, "merged".getBytes());
      name.setSafe(1, "merged".getBytes());
      try (org.apache.arrow.vector.ipc.ArrowReader reader = stream(source)) {
        table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(reader);
      }
    }
    assertThat(scan(table, Predicate.eq("name", "merged"), true, new ScanMetrics())).hasSize(2);
    assertThat(scan(table, Predicate.eq("name", "name-30"), true, new ScanMetrics())).isEmpty();
    assertSameAnswers(table);
  }

  @Test
  void updateOfTheIndexedColumnIsNeverAnsweredFromTheOldState() {
    createIndices();
    table.update(Predicate.eq("id", 42L), Map.of("s.x", 123456));
    table.update(Predicate.eq("id", 43L), Map.of("name", "renamed"));
    ScanMetrics metrics = new ScanMetrics();
    assertThat(scan(table, Predicate.eq("s.x", 123456), true, metrics)).hasSize(1);
    // The updated fragment is answered by the segment plus the offsets the newer overlay covers (§13.1).
    assertThat(metrics.fragmentsScannedWithoutIndex()).isZero();
    assertThat(metrics.fragmentsAnsweredByIndex()).isPositive();
    assertThat(table.indices().coverage("by_x").uncoveredFragments()).as("until optimize re-covers it").isEqualTo(1);
    assertThat(scan(table, Predicate.eq("s.x", 126), true, new ScanMetrics())).as("old value of id 42").isEmpty();
    assertThat(scan(table, Predicate.eq("name", "renamed"), true, new ScanMetrics())).hasSize(1);
    assertSameAnswers(table);
    table.indices().optimize("by_x");
    table.indices().optimize("by_name");
    assertSameAnswers(table);
  }

  @Test
  void compactionThenLookup() {
    createIndices();
    table.compact(CompactionOptions.defaults());
    assertThat(table.indices().coverage("by_id").coveredFragments()).isZero();
    assertThat(table.indices().get("by_id").orElseThrow().segments())
        .as("coverage of rewritten fragments is pruned in the compaction's commit").isEmpty();
    assertSameAnswers(table);
    table.indices().optimize("by_id");
    ScanMetrics metrics = new ScanMetrics();
    assertThat(scan(table, Predicate.eq("id", 42L), true, metrics)).hasSize(1);
    assertThat(metrics.fragmentsAnsweredByIndex()).isPositive();
    assertSameAnswers(table);
  }

  @Test
  void indexBuiltAtAnOldVersion() {
    long beforeChanges = table.version();
    try (Dataset old = table.checkout(beforeChanges)) {
      // Meanwhile the table moves on: rows deleted, the indexed column updated, rows appended.
      table.delete(Predicate.eq("id", 42L));
      table.update(Predicate.eq("id", 44L), Map.of("s.x", 77777));
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 2000, 10)) {
        table.append(List.of(b));
      }
      // The old handle builds from its version and commits on top of the newer ones.
      old.indices().create("by_x", ScalarIndex.Kind.BTREE, "s.x");
    }
    table = reopen(table);
    assertThat(scan(table, Predicate.eq("s.x", 42 * 3), true, new ScanMetrics())).as("deleted since").isEmpty();
    assertThat(scan(table, Predicate.eq("s.x", 77777), true, new ScanMetrics())).hasSize(1);
    assertThat(table.indices().coverage("by_x").uncoveredFragments()).as("updated and appended fragments").isEqualTo(2);
    assertSameAnswers(table);
    // Time travel to before the index: no index, same answers.
    try (Dataset old = table.checkout(beforeChanges)) {
      assertThat(old.indices().list()).isEmpty();
      assertSameAnswers(old);
    }
  }

  @Test
  void concurrentBuildAndUpdateOfTheIndexedColumn() {
    try (Dataset builder = table.checkout(table.version())) {
      // The builder has read the version; an update of the indexed column commits before the index does.
      table.update(Predicate.in("id", 120L, 121L), Map.of("s.x", 4242));
      builder.indices().create("by_x", ScalarIndex.Kind.BITMAP, "s.x");
    }
    table = reopen(table);
    assertThat(scan(table, Predicate.eq("s.x", 4242), true, new ScanMetrics())).hasSize(2);
    assertSameAnswers(table);
  }

  @Test
  void droppingTheColumnDropsItsIndex() {
    createIndices();
    table.columns().drop("s");
    assertThat(table.indices().list()).extracting(ScalarIndex::name).containsExactly("by_id", "by_name");
    table.indices().drop("by_name");
    assertThat(table.indices().list()).extracting(ScalarIndex::name).containsExactly("by_id");
    table.indices().drop("by_id");
    assertThat(table.manifest().writerFeatures()).doesNotContain("scalar-indices");
  }

  @Test
  void concurrentCreatesOfOneNameLetOneWin() {
    try (Dataset other = table.checkout(table.version())) {
      table.indices().create("k", ScalarIndex.Kind.BTREE, "id");
      assertThatThrownBy(() -> other.indices().create("k", ScalarIndex.Kind.BITMAP, "name"))
          .isInstanceOf(IncompatibleTransactionException.class).hasMessageContaining("create-index")
          .hasMessageContaining("Nothing was committed");
      assertThat(table.checkoutLatest().indices().get("k").orElseThrow().kind()).isEqualTo(ScalarIndex.Kind.BTREE);
    }
  }

  @Test
  void typedErrorsForWhatCannotBeIndexed() {
    assertThatThrownBy(() -> table.indices().create("t", ScalarIndex.Kind.BTREE, "tags"))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("cannot be indexed");
    assertThatThrownBy(() -> table.indices().create("t", ScalarIndex.Kind.BTREE, "s"))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("cannot be indexed");
    assertThatThrownBy(() -> table.indices().create("t", ScalarIndex.Kind.BTREE, "nope"))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("no column 'nope'");
    assertThatThrownBy(() -> table.indices().create("bad name", ScalarIndex.Kind.BTREE, "id"))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("must match");
    table.indices().create("t", ScalarIndex.Kind.BTREE, "id");
    assertThatThrownBy(() -> table.indices().create("t", ScalarIndex.Kind.BTREE, "name"))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("already has an index named 't'");
    assertThatThrownBy(() -> table.indices().drop("missing"))
        .isInstanceOf(NotFoundException.class).hasMessageContaining("no index named 'missing'");
    assertThatThrownBy(() -> table.indices().optimize("missing")).isInstanceOf(NotFoundException.class);
  }

  @Test
  void damagedOrMissingIndexFilesAreTypedErrorsNamingTheFile() {
    io.quiver.store.MemoryObjectStore store = new io.quiver.store.MemoryObjectStore("test://indices",
        java.time.Clock.systemUTC());
    try (RootAllocator local = new RootAllocator()) {
      DatasetOptions options = DatasetOptions.builder()
          .allocator(local)
          .session(new Session(1 << 20))
          .registry(io.quiver.store.ObjectStores.empty().register(io.quiver.store.TestStores.provider("test", () -> store)))
          .rowsPerBatch(16)
          .maxRowsPerFragment(60)
          .build();
      String path;
      try (Dataset ds = ScanFixture.create("test://indices", local, options)) {
        ds.indices().create("by_id", ScalarIndex.Kind.BTREE, "id");
        path = ds.indices().get("by_id").orElseThrow().segments().get(0).path();
      }
      byte[] bytes = store.read(path);
      bytes[bytes.length - 3] ^= 0x5a; // inside the footer
      store.write(path, bytes);
      try (Dataset fresh = Dataset.open("test://indices", options.toBuilder().session(new Session(1 << 20)).build())) {
        assertThatThrownBy(() -> scan(fresh, Predicate.eq("id", 42L), true, new ScanMetrics()))
            .isInstanceOf(CorruptFileException.class).hasMessageContaining(path).hasMessageContaining("checksum");
        assertThat(scan(fresh, Predicate.eq("id", 42L), false, new ScanMetrics())).as("without indices").hasSize(1);
        assertThat(fresh.validate().problems()).anySatisfy(p -> assertThat(p.location()).contains(path));
      }
      store.delete(path);
      try (Dataset fresh = Dataset.open("test://indices", options.toBuilder().session(new Session(1 << 20)).build())) {
        assertThatThrownBy(() -> scan(fresh, Predicate.eq("id", 42L), true, new ScanMetrics()))
            .isInstanceOf(CorruptFileException.class).hasMessageContaining(path).hasMessageContaining("missing");
        // Dropping the index makes the table whole again.
        fresh.indices().drop("by_id");
        assertThat(scan(fresh, Predicate.eq("id", 42L), true, new ScanMetrics())).hasSize(1);
      }
    }
  }

  @Test
  void cleanupKeepsTheIndicesOfKeptVersionsAndRemovesTheRest() {
    CleanupTestClock clock = new CleanupTestClock(java.time.Instant.parse("2026-01-01T00:00:00Z"));
    io.quiver.store.MemoryObjectStore store = new io.quiver.store.MemoryObjectStore("test://cleanup", clock);
    try (RootAllocator local = new RootAllocator()) {
      DatasetOptions options = DatasetOptions.builder()
          .allocator(local)
          .session(new Session(1 << 20))
          .registry(io.quiver.store.ObjectStores.empty().register(io.quiver.store.TestStores.provider("test", () -> store)))
          .rowsPerBatch(16)
          .maxRowsPerFragment(60)
          .clock(clock)
          .build();
      try (Dataset ds = ScanFixture.create("test://cleanup", local, options)) {
        ds.indices().create("dropped", ScalarIndex.Kind.BTREE, "id");
        String droppedFile = ds.indices().get("dropped").orElseThrow().segments().get(0).path();
        ds.indices().drop("dropped");
        ds.indices().create("kept", ScalarIndex.Kind.BITMAP, "name");
        String keptFile = ds.indices().get("kept").orElseThrow().segments().get(0).path();
        store.write("_indices/never-committed/x.idx", new byte[] {1, 2, 3}); // a build that died before its commit
        clock.advance(java.time.Duration.ofHours(2));
        CleanupReport report = ds.cleanup(CleanupOptions.builder().olderThan(java.time.Duration.ZERO)
            .safetyWindow(java.time.Duration.ofHours(1)).build());
        assertThat(report.indexFilesRemoved()).isEqualTo(2);
        assertThat(store.head(droppedFile)).isEmpty();
        assertThat(store.head("_indices/never-committed/x.idx")).isEmpty();
        assertThat(store.head(keptFile)).isPresent();
        assertThat(ds.validate().isValid()).isTrue();
        ScanMetrics metrics = new ScanMetrics();
        assertThat(scan(ds, Predicate.eq("name", "upd"), true, metrics)).hasSize(13);
        assertThat(metrics.fragmentsAnsweredByIndex()).isPositive();
      }
    }
  }

  /** {@code root} as an Arrow stream (the caller closes the root, the reader's user the reader). */
  private org.apache.arrow.vector.ipc.ArrowReader stream(VectorSchemaRoot root) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (org.apache.arrow.vector.ipc.ArrowStreamWriter writer = new org.apache.arrow.vector.ipc.ArrowStreamWriter(
        root, null, java.nio.channels.Channels.newChannel(bytes))) {
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return new org.apache.arrow.vector.ipc.ArrowStreamReader(new java.io.ByteArrayInputStream(bytes.toByteArray()),
        allocator);
  }

  private Dataset reopen(Dataset ds) {
    String uri = ds.uri();
    Dataset fresh = Dataset.open(uri, ScanFixture.options(allocator));
    ds.close();
    return fresh;
  }
}
