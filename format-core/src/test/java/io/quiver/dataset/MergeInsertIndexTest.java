package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.MatchedRowException;
import io.quiver.manifest.ScalarIndex;
import io.quiver.predicate.Predicate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Merge-insert with a scalar index on a key column (issue 42): every merge gives, row for row and address for
 * address, what the same merge gives with {@code useIndices(false)} on a twin table with the same history, and
 * the metrics show the index answered. The tables are small, where reading the key column is cheaper than asking
 * the index, so the indexed merges here ask it always ({@code alwaysUseIndices}); when it is asked by default
 * is {@link MergeInsertIndexCostTest}'s subject. The stale cases other formats shipped are named tests: the key column
 * updated or merged after the build, compaction then merge, an index built at an old version, rows appended
 * after the build — in each the rows the index no longer describes are read whole, so no update is skipped.
 */
class MergeInsertIndexTest {
  /** The source's columns: the key and one nullable column; the table's other columns are left alone. */
  static final Schema SOURCE = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

  private RootAllocator allocator;
  /** The table merged with indices, and its twin merged without. */
  private Dataset indexed;
  private Dataset plain;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    indexed = ScanFixture.create(ScanFixture.newUri(), allocator, ScanFixture.options(allocator));
    plain = ScanFixture.create(ScanFixture.newUri(), allocator, ScanFixture.options(allocator));
  }

  @AfterEach
  void tearDown() {
    indexed.close();
    plain.close();
    allocator.close(); // fails on a leak
  }

  /** Applies one change to both tables. */
  private void both(Consumer<Dataset> change) {
    change.accept(indexed);
    change.accept(plain);
  }

  private static List<MergeInsertTest.Row> named(String prefix, long... ids) {
    List<MergeInsertTest.Row> out = new ArrayList<>();
    for (long id : ids) {
      out.add(new MergeInsertTest.Row(id, prefix + id, null));
    }
    return out;
  }

  /** What one merge did on the indexed table. */
  private record Run(MergeInsertResult result, ScanMetrics metrics) {}

  /**
   * Runs the merge on both tables (indices used on one, not on the other) and asserts the same result and the
   * same rows at the same addresses afterwards.
   */
  private Run merge(List<String> keys, List<MergeInsertTest.Row> rows, Function<MergeInsert, MergeInsert> clauses) {
    ScanMetrics withIndex = new ScanMetrics();
    ScanMetrics without = new ScanMetrics();
    MergeInsertResult a;
    MergeInsertResult b;
    try (ArrowReader source = MergeInsertTest.source(allocator, SOURCE, rows)) {
      a = clauses.apply(indexed.mergeInsert(keys.toArray(String[]::new))).alwaysUseIndices().metrics(withIndex)
          .execute(source);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    try (ArrowReader source = MergeInsertTest.source(allocator, SOURCE, rows)) {
      b = clauses.apply(plain.mergeInsert(keys.toArray(String[]::new))).useIndices(false).metrics(without)
          .execute(source);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(a).isEqualTo(b);
    assertThat(all(indexed)).containsExactlyEntriesOf(all(plain));
    assertThat(without.fragmentsAnsweredByIndex()).isZero();
    assertThat(withIndex.rowsReturned()).as("rows read with the index").isLessThanOrEqualTo(without.rowsReturned());
    return new Run(a, withIndex);
  }

  private Run upsert(List<MergeInsertTest.Row> rows) {
    return merge(List.of("id"), rows, m -> m.whenMatchedUpdateAll().whenNotMatchedInsertAll());
  }

  private static Map<Long, String> all(Dataset ds) {
    return ScanFixture.rowsByAddress(ds.newScan().withRowAddress(true).useIndices(false).open());
  }

  private static List<String> names(Dataset ds, long id) {
    List<String> out = new ArrayList<>();
    for (String row : ScanFixture.rowsByAddress(ds.newScan().columns(List.of("id", "name")).filter(Predicate.eq("id", id))
        .withRowAddress(true).useIndices(false).open()).values()) {
      out.add(row.substring(row.indexOf("name=") + 5, row.indexOf(" | _rowaddr")));
    }
    return out;
  }

  private void indexIds() {
    both(ds -> ds.indices().create("by_id", ScalarIndex.Kind.BTREE, "id"));
  }

  @Test
  void anUpsertReadsOnlyTheRowsTheIndexSelects() {
    indexIds();
    // Keys in every fragment, deleted ones (3, 150, 199), overlaid ones (12, 155), and new ones.
    Run run = upsert(named("m", 1, 3, 12, 42, 61, 150, 155, 170, 199, 5000, 5001));
    assertThat(run.result().rowsUpdated()).isEqualTo(6);
    assertThat(run.result().rowsInserted()).as("3, 150, 199 are deleted: not matched").isEqualTo(5);
    assertThat(run.metrics().fragmentsAnsweredByIndex()).isEqualTo(5);
    assertThat(run.metrics().fragmentsScannedWithoutIndex()).isZero();
    assertThat(run.metrics().rowsReturned()).as("only the live rows holding a source key").isEqualTo(6);
    assertThat(names(indexed, 42)).containsExactly("m42");
    assertThat(names(indexed, 150)).containsExactly("m150");
  }

  @Test
  void everyClauseGivesTheSameResult() {
    indexIds();
    merge(List.of("id"), named("a", 2, 50, 120, 5100),
        m -> m.whenMatchedUpdateAll(Predicate.lt("target.id", 100L)).whenNotMatchedInsertAll());
    merge(List.of("id"), named("b", 2, 51, 5101), m -> m.whenMatchedDoNothing().whenNotMatchedInsertAll());
    merge(List.of("id"), named("c", 7, 8, 9), m -> m.whenMatchedUpdateAll().whenNotMatchedDoNothing());
    assertThat(names(indexed, 2)).containsExactly("a2");
    assertThat(names(indexed, 120)).containsExactly("name-120");
    assertThat(names(indexed, 5101)).containsExactly("b5101");
    assertThat(names(indexed, 8)).containsExactly("c8");
    // Deleting by source reads every row: the index is not asked.
    Run deleting = merge(List.of("id"), named("d", 1, 2), m -> m.whenMatchedUpdateAll().whenNotMatchedBySourceDelete(
        Predicate.gt("target.id", 170L)));
    assertThat(deleting.metrics().fragmentsAnsweredByIndex()).isZero();
    assertThat(deleting.result().rowsDeleted()).isPositive();
  }

  @Test
  void aMatchedKeyFailsAsWithoutTheIndex() throws Exception {
    indexIds();
    for (Dataset ds : List.of(indexed, plain)) {
      try (ArrowReader source = MergeInsertTest.source(allocator, SOURCE, named("f", 5000, 77))) {
        assertThatExceptionOfType(MatchedRowException.class)
            .isThrownBy(() -> (ds == indexed ? ds.mergeInsert("id").alwaysUseIndices() : ds.mergeInsert("id")
                .useIndices(false)).whenMatchedFail().execute(source))
            .withMessageContaining("77");
      }
    }
    assertThat(all(indexed)).containsExactlyEntriesOf(all(plain));
  }

  @Test
  void aKeyTheIndexDoesNotHoldReadsNoDataFile() {
    indexIds();
    // 65 is deleted: the index lists its offset (segments hold deleted rows), the read skips it.
    Run deleted = upsert(named("n", 65));
    assertThat(deleted.result().rowsInserted()).isEqualTo(1);
    assertThat(deleted.metrics().rowsReturned()).isZero();
    // A fragment of ids 5000 and 5002: 5001 is within its bounds but not in it, as the index knows.
    upsert(named("g", 5000, 5002));
    both(ds -> ds.indices().optimize("by_id"));
    Run absent = upsert(named("h", 5001));
    assertThat(absent.result().rowsInserted()).isEqualTo(1);
    assertThat(absent.metrics().fragmentsAnsweredByIndex()).isEqualTo(1);
    assertThat(absent.metrics().rowsReturned()).isZero();
    assertThat(absent.metrics().dataFilesOpened()).as("no data file read").isZero();
  }

  @Test
  void staleIndexAfterAnUpdateOfTheKeyColumn() {
    indexIds();
    // Id 42 becomes 4242 after the build: the index's entry for the fragment no longer holds.
    both(ds -> ds.update(Predicate.eq("id", 42L), Map.of("id", 4242L)));
    Run run = upsert(named("u", 42, 4242, 130));
    assertThat(run.result().rowsUpdated()).as("4242 and 130").isEqualTo(2);
    assertThat(run.result().rowsInserted()).as("42 is gone").isEqualTo(1);
    assertThat(names(indexed, 4242)).containsExactly("u4242");
    assertThat(names(indexed, 42)).containsExactly("u42");
    // the updated fragment is answered by the index with its overlay cells checked (format.md §13.1)
    assertThat(run.metrics().fragmentsScannedWithoutIndex()).as("the updated fragment").isZero();
    assertThat(run.metrics().fragmentsAnsweredByIndex()).as("the fragments of 4242 and 130").isEqualTo(2);
  }

  @Test
  void staleIndexAfterAMergeRewroteTheIndexedKeyColumn() {
    both(ds -> ds.indices().create("by_name", ScalarIndex.Kind.BITMAP, "name"));
    // A merge keyed on id rewrites name (the next merge's key) after the build.
    upsert(named("renamed-", 20, 21, 120));
    // Keyed on name: the new names must match, the old ones must not.
    Run run = merge(List.of("name"), List.of(new MergeInsertTest.Row(20L, "renamed-20", null),
        new MergeInsertTest.Row(9021L, "name-21", null), new MergeInsertTest.Row(9022L, "name-22", null)),
        m -> m.whenMatchedUpdateAll().whenNotMatchedInsertAll());
    assertThat(run.result().rowsUpdated()).as("renamed-20 and name-22").isEqualTo(2);
    assertThat(run.result().rowsInserted()).as("name-21 is no longer in the table").isEqualTo(1);
    // the rewritten fragments are answered by the index with their overlay cells checked (format.md §13.1)
    assertThat(run.metrics().fragmentsScannedWithoutIndex()).isZero();
    assertThat(names(indexed, 9021)).containsExactly("name-21");
    assertThat(names(indexed, 9022)).as("matched by name: it gets the source's id").containsExactly("name-22");
    assertThat(names(indexed, 22)).isEmpty();
  }

  @Test
  void compactionThenMerge() {
    indexIds();
    both(ds -> ds.compact(CompactionOptions.defaults()));
    Run before = upsert(named("c", 1, 42, 130, 6000));
    assertThat(before.metrics().fragmentsAnsweredByIndex()).as("compacted fragments are not covered").isZero();
    assertThat(before.result().rowsUpdated()).isEqualTo(3);
    both(ds -> ds.indices().optimize("by_id"));
    Run after = upsert(named("d", 1, 42, 6000, 6001));
    assertThat(after.metrics().fragmentsAnsweredByIndex()).isPositive();
    assertThat(after.result().rowsUpdated()).isEqualTo(3);
    assertThat(names(indexed, 42)).containsExactly("d42");
    assertThat(names(indexed, 6000)).containsExactly("d6000");
  }

  @Test
  void indexBuiltAtAnOldVersion() {
    long built = indexed.version();
    both(ds -> {
      try (Dataset old = ds.checkout(built)) {
        ds.delete(Predicate.eq("id", 42L));
        ds.update(Predicate.eq("id", 44L), Map.of("id", 4444L));
        try (VectorSchemaRoot b = SampleTable.batch(allocator, 2000, 10)) {
          ds.append(List.of(b));
        }
        old.indices().create("by_id", ScalarIndex.Kind.BTREE, "id");
      }
    });
    indexed = reopen(indexed);
    plain = reopen(plain);
    Run run = upsert(named("o", 42, 44, 4444, 2005, 130));
    assertThat(run.result().rowsUpdated()).as("4444, 2005, 130").isEqualTo(3);
    assertThat(run.result().rowsInserted()).as("42 deleted, 44 renamed").isEqualTo(2);
    // the updated fragment is answered by the index with its overlay cells checked (format.md §13.1)
    assertThat(run.metrics().fragmentsScannedWithoutIndex()).as("the appended fragment").isEqualTo(1);
    assertThat(names(indexed, 4444)).containsExactly("o4444");
    assertThat(names(indexed, 2005)).containsExactly("o2005");
  }

  @Test
  void rowsAppendedAfterTheBuild() {
    indexIds();
    both(ds -> {
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 3000, 30)) {
        ds.append(List.of(b));
      }
    });
    Run run = upsert(named("a", 3001, 3029, 10, 9999));
    assertThat(run.result().rowsUpdated()).isEqualTo(3);
    assertThat(run.result().rowsInserted()).isEqualTo(1);
    assertThat(run.metrics().fragmentsScannedWithoutIndex()).isEqualTo(1);
    assertThat(run.metrics().fragmentsAnsweredByIndex()).isEqualTo(1);
    assertThat(names(indexed, 3001)).containsExactly("a3001");
  }

  @Test
  void aMultiColumnKeyIsNarrowedByAnIndexOnOneOfItsColumns() {
    indexIds();
    // Key (id, name): 12's name is "upd" (an overlay), so (12, "name-12") matches nothing; (13, "upd") matches.
    Run run = merge(List.of("id", "name"), List.of(new MergeInsertTest.Row(13L, "upd", null),
        new MergeInsertTest.Row(12L, "name-12", null), new MergeInsertTest.Row(130L, "name-130", null)),
        m -> m.whenMatchedUpdateAll().whenNotMatchedInsertAll());
    assertThat(run.result().rowsUpdated()).as("every source column is a key: nothing to set").isZero();
    assertThat(run.result().rowsInserted()).as("(12, name-12) only").isEqualTo(1);
    assertThat(run.metrics().fragmentsAnsweredByIndex()).isPositive();
    assertThat(run.metrics().rowsReturned()).as("ids 12, 13 and 130").isEqualTo(3);
    assertThat(names(indexed, 12)).containsExactlyInAnyOrder("upd", "name-12");
  }

  @Test
  void aLargeSourceIsAskedInChunks() {
    indexIds();
    // More distinct keys than one IN filter holds: new keys sort before the table's, which are in the last chunk.
    List<MergeInsertTest.Row> rows = new ArrayList<>();
    for (long id = 1; id <= io.quiver.internal.index.KeyCandidates.CHUNK * 2L + 17; id++) {
      rows.add(new MergeInsertTest.Row(-id, "l" + -id, null));
    }
    for (long id = 0; id < 200; id += 3) {
      rows.add(new MergeInsertTest.Row(id, "l" + id, null));
    }
    Run run = upsert(rows);
    assertThat(run.metrics().fragmentsAnsweredByIndex()).isEqualTo(5);
    assertThat(run.result().rowsInserted() + run.result().rowsUpdated()).isEqualTo(rows.size());
    assertThat(names(indexed, 198)).containsExactly("l198");
    assertThat(names(indexed, -5)).containsExactly("l-5");
    assertThat(run.result().rowsUpdated()).as("live multiples of 3 below 200").isEqualTo(63);
  }

  @Test
  void aDamagedIndexFailsTheMergeNamingTheFileAndWritesNothing() throws Exception {
    io.quiver.store.MemoryObjectStore store = new io.quiver.store.MemoryObjectStore("test://merge-index",
        java.time.Clock.systemUTC());
    DatasetOptions options = ScanFixture.options(allocator).toBuilder()
        .registry(io.quiver.store.ObjectStores.empty().register(io.quiver.store.TestStores.provider("test", () -> store)))
        .build();
    String path;
    try (Dataset ds = ScanFixture.create("test://merge-index", allocator, options)) {
      ds.indices().create("by_id", ScalarIndex.Kind.BTREE, "id");
      path = ds.indices().get("by_id").orElseThrow().segments().get(0).path();
    }
    byte[] bytes = store.read(path);
    bytes[bytes.length - 3] ^= 0x5a; // inside the footer
    store.write(path, bytes);
    java.util.Set<String> before = new java.util.TreeSet<>();
    store.listAll("").forEach(o -> before.add(o.key()));
    try (Dataset ds = Dataset.open("test://merge-index", options.toBuilder().session(new Session(1 << 20)).build())) {
      long version = ds.version();
      for (boolean always : new boolean[] {false, true}) {
        try (ArrowReader source = MergeInsertTest.source(allocator, SOURCE, named("x", 42, 9000))) {
          MergeInsert merge = ds.mergeInsert("id").whenMatchedUpdateAll();
          assertThatExceptionOfType(io.quiver.exceptions.CorruptFileException.class)
              .isThrownBy(() -> (always ? merge.alwaysUseIndices() : merge).execute(source))
              .withMessageContaining(path);
        }
      }
      assertThat(ds.version()).isEqualTo(version);
      java.util.Set<String> after = new java.util.TreeSet<>();
      store.listAll("").forEach(o -> after.add(o.key()));
      assertThat(after).as("no file written").isEqualTo(before);
      // Without the index the merge reads past the damaged file.
      try (ArrowReader source = MergeInsertTest.source(allocator, SOURCE, named("x", 42, 9000))) {
        MergeInsertResult r = ds.mergeInsert("id").whenMatchedUpdateAll().useIndices(false).execute(source);
        assertThat(r.rowsUpdated()).isEqualTo(1);
        assertThat(r.rowsInserted()).isEqualTo(1);
      }
      assertThat(names(ds, 42)).containsExactly("x42");
    }
  }

  private Dataset reopen(Dataset ds) {
    Dataset again = Dataset.open(ds.uri(), ScanFixture.options(allocator));
    ds.close();
    return again;
  }
}
