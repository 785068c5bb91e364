package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.DuplicateSourceKeyException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.MatchedRowException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectInfo;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Merge-insert: every clause combination cell by cell, errors that commit nothing, races with stale handles. */
class MergeInsertTest {
  static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("name", FieldType.nullable(new ArrowType.Utf8()), null),
      new Field("ts", FieldType.nullable(new ArrowType.Int(64, true)), null)));

  /** One row; a null id is a null key. */
  record Row(Long id, String name, Long ts) {}

  private RootAllocator allocator;
  private MemoryObjectStore store;
  private DatasetOptions options;

  @BeforeEach
  void setUp() throws Exception {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(OverlayTestSupport.URI_);
    options = OverlayTestSupport.options(allocator, store, 4);
  }

  @AfterEach
  void tearDown() throws Exception {
    allocator.close(); // fails on a leak
  }

  // ------------------------------------------------------------------ helpers

  static VectorSchemaRoot batch(BufferAllocator allocator, Schema schema, List<Row> rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    fill(root, rows);
    return root;
  }

  private static boolean has(VectorSchemaRoot root, String name) {
    return root.getSchema().getFields().stream().anyMatch(f -> f.getName().equals(name));
  }

  static void fill(VectorSchemaRoot root, List<Row> rows) {
    root.allocateNew();
    for (int i = 0; i < rows.size(); i++) {
      Row r = rows.get(i);
      BigIntVector id = (BigIntVector) root.getVector("id");
      if (r.id() == null) {
        id.setNull(i);
      } else {
        id.setSafe(i, r.id());
      }
      if (has(root, "name")) {
        VarCharVector name = (VarCharVector) root.getVector("name");
        if (r.name() == null) {
          name.setNull(i);
        } else {
          name.setSafe(i, r.name().getBytes(StandardCharsets.UTF_8));
        }
      }
      if (has(root, "ts")) {
        BigIntVector ts = (BigIntVector) root.getVector("ts");
        if (r.ts() == null) {
          ts.setNull(i);
        } else {
          ts.setSafe(i, r.ts());
        }
      }
    }
    root.setRowCount(rows.size());
  }

  /** An Arrow IPC stream of the rows (in batches of 3), read back as the source. */
  static ArrowReader source(BufferAllocator allocator, Schema schema, List<Row> rows) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
      writer.start();
      for (int start = 0; start < rows.size(); start += 3) {
        fill(root, rows.subList(start, Math.min(rows.size(), start + 3)));
        writer.writeBatch();
      }
      writer.end();
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
  }

  static List<Row> rows(long from, long to, String prefix, long tsBase) {
    List<Row> out = new ArrayList<>();
    for (long id = from; id < to; id++) {
      out.add(new Row(id, prefix + id, tsBase + id));
    }
    return out;
  }

  /** Target: ids 0..9 in two fragments (0..5, 6..9), name t<id>, ts = id. */
  private Dataset target() {
    Dataset ds;
    try (VectorSchemaRoot b = batch(allocator, SCHEMA, rows(0, 6, "t", 0))) {
      ds = Dataset.create(OverlayTestSupport.URI_, SCHEMA, List.of(b), options);
    }
    try (VectorSchemaRoot b = batch(allocator, SCHEMA, rows(6, 10, "t", 0))) {
      ds.append(List.of(b));
    }
    return ds;
  }

  /** The table's rows, as a list sorted by id (nulls first), so duplicates show. */
  static List<Row> read(Dataset ds) {
    List<Row> out = new ArrayList<>();
    try (ArrowReader reader = ds.newScan().open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        BigIntVector ts = (BigIntVector) root.getVector("ts");
        for (int i = 0; i < root.getRowCount(); i++) {
          out.add(new Row(id.isNull(i) ? null : id.get(i),
              name.isNull(i) ? null : new String(name.get(i), StandardCharsets.UTF_8), ts.isNull(i) ? null : ts.get(i)));
        }
      }
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
    out.sort(java.util.Comparator.comparing(Row::id, java.util.Comparator.nullsFirst(java.util.Comparator.naturalOrder()))
        .thenComparing(Row::name, java.util.Comparator.nullsFirst(java.util.Comparator.naturalOrder())));
    return out;
  }

  static List<Row> readLatest(Dataset ds) {
    try (Dataset latest = ds.checkoutLatest()) {
      return read(latest);
    }
  }

  private TreeSet<String> keys() {
    TreeSet<String> out = new TreeSet<>();
    for (ObjectInfo o : store.listAll("")) {
      out.add(o.key());
    }
    return out;
  }

  // ------------------------------------------------------------------ the clause grid

  enum M { UPDATE, UPDATE_IF, NOTHING, FAIL }

  enum N { INSERT, NOTHING }

  enum S { KEEP, DELETE, DELETE_IF }

  /** Source: ids 5..13, name s<id>; ts 100+id except id 7 (ts 1, older than the target's 7). */
  static List<Row> gridSource() {
    List<Row> out = new ArrayList<>(rows(5, 14, "s", 100));
    out.set(2, new Row(7L, "s7", 1L));
    return out;
  }

  private static final Predicate NEWER = Predicate.compareColumns("source.ts", Predicate.Op.GT, "target.ts");
  private static final Predicate SMALL = Predicate.lt("target.id", 3L);

  @TestFactory
  Stream<DynamicTest> everyClauseCombination() {
    List<DynamicTest> tests = new ArrayList<>();
    for (M m : M.values()) {
      for (N n : N.values()) {
        for (S s : S.values()) {
          tests.add(DynamicTest.dynamicTest(m + "/" + n + "/" + s, () -> {
            setUp();
            try {
              checkCombination(m, n, s);
            } finally {
              tearDown();
            }
          }));
        }
      }
    }
    return tests.stream();
  }

  private void checkCombination(M m, N n, S s) throws Exception {
    List<Row> target = new ArrayList<>(rows(0, 10, "t", 0));
    List<Row> source = gridSource();
    // The model: applied row by row.
    Map<Long, Row> bySourceKey = new LinkedHashMap<>();
    source.forEach(r -> bySourceKey.put(r.id(), r));
    List<Row> want = new ArrayList<>();
    long inserted = 0;
    long updated = 0;
    long deleted = 0;
    for (Row t : target) {
      Row src = bySourceKey.get(t.id());
      if (src != null) {
        boolean update = m == M.UPDATE || (m == M.UPDATE_IF && src.ts() > t.ts());
        want.add(update ? src : t);
        updated += update ? 1 : 0;
      } else if (s == S.DELETE || (s == S.DELETE_IF && t.id() < 3)) {
        deleted++;
      } else {
        want.add(t);
      }
    }
    if (n == N.INSERT) {
      for (Row r : source) {
        if (r.id() >= 10) {
          want.add(r);
          inserted++;
        }
      }
    }
    want.sort(java.util.Comparator.comparing(Row::id));
    try (Dataset ds = target()) {
      long before = ds.version();
      MergeInsert merge = ds.mergeInsert("id");
      switch (m) {
        case UPDATE -> merge.whenMatchedUpdateAll();
        case UPDATE_IF -> merge.whenMatchedUpdateAll(NEWER);
        case NOTHING -> merge.whenMatchedDoNothing();
        case FAIL -> merge.whenMatchedFail();
      }
      switch (n) {
        case INSERT -> merge.whenNotMatchedInsertAll();
        case NOTHING -> merge.whenNotMatchedDoNothing();
      }
      switch (s) {
        case KEEP -> merge.whenNotMatchedBySourceKeep();
        case DELETE -> merge.whenNotMatchedBySourceDelete();
        case DELETE_IF -> merge.whenNotMatchedBySourceDelete(SMALL);
      }
      TreeSet<String> filesBefore = keys();
      if (m == M.FAIL) {
        try (ArrowReader src = source(allocator, SCHEMA, source)) {
          MatchedRowException e = assertThatExceptionOfType(MatchedRowException.class)
              .isThrownBy(() -> merge.execute(src)).actual();
          assertThat(e.key()).isIn("5", "6", "7", "8", "9");
          assertThat(e.getMessage()).contains("[id] = " + e.key()).contains("Nothing was committed");
        }
        assertThat(ds.latestVersion()).isEqualTo(before);
        assertThat(keys()).isEqualTo(filesBefore);
        assertThat(read(ds)).isEqualTo(target);
        return;
      }
      MergeInsertResult r;
      try (ArrowReader src = source(allocator, SCHEMA, source)) {
        r = merge.execute(src);
      }
      assertThat(r.rowsInserted()).isEqualTo(inserted);
      assertThat(r.rowsUpdated()).isEqualTo(updated);
      assertThat(r.rowsDeleted()).isEqualTo(deleted);
      assertThat(r.attempts()).isEqualTo(1);
      boolean changed = inserted + updated + deleted > 0;
      assertThat(r.version()).isEqualTo(changed ? before + 1 : before);
      assertThat(ds.version()).isEqualTo(r.version());
      assertThat(read(ds)).isEqualTo(want);
      if (changed) {
        assertThat(ds.versionInfo(r.version()).operation()).isEqualTo("merge-insert");
      }
      // Another handle reads the same rows (the operation persisted and decodes).
      try (Dataset reopened = Dataset.open(OverlayTestSupport.URI_, options)) {
        assertThat(read(reopened)).isEqualTo(want);
      }
    }
  }

  // ------------------------------------------------------------------ keys

  @Test
  void nullSourceKeysNeverMatchAndAreInserted() throws Exception {
    try (Dataset ds = target()) {
      List<Row> source = List.of(new Row(null, "n1", 1L), new Row(null, "n2", 2L), new Row(3L, "s3", 3L));
      MergeInsertResult r;
      try (ArrowReader src = source(allocator, nullableId(), source)) {
        assertThatExceptionOfType(SchemaMismatchException.class)
            .isThrownBy(() -> ds.mergeInsert("id").whenMatchedUpdateAll().execute(src))
            .withMessageContaining("non-nullable column 'id'");
      }
      // A nullable key column: null keys are inserted, never matched.
      try (Dataset nullable = nullableTable()) {
        try (ArrowReader src = source(allocator, nullableId(), source)) {
          r = nullable.mergeInsert("id").whenMatchedUpdateAll().execute(src);
        }
        assertThat(r.rowsInserted()).isEqualTo(2);
        assertThat(r.rowsUpdated()).isEqualTo(1);
        // Again: the null-key rows in the table match nothing, so they are inserted once more.
        try (ArrowReader src = source(allocator, nullableId(), source)) {
          r = nullable.mergeInsert("id").whenMatchedUpdateAll().execute(src);
        }
        assertThat(r.rowsInserted()).isEqualTo(2);
        assertThat(read(nullable).stream().filter(x -> x.id() == null).count()).isEqualTo(4);
      }
    }
  }

  private static Schema nullableId() {
    return new Schema(List.of(
        new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
        new Field("name", FieldType.nullable(new ArrowType.Utf8()), null),
        new Field("ts", FieldType.nullable(new ArrowType.Int(64, true)), null)));
  }

  private Dataset nullableTable() {
    MemoryObjectStore other = new MemoryObjectStore("test://other");
    DatasetOptions o = OverlayTestSupport.options(allocator, other, 4);
    try (VectorSchemaRoot b = batch(allocator, nullableId(), rows(0, 5, "t", 0))) {
      return Dataset.create(OverlayTestSupport.URI_, nullableId(), List.of(b), o);
    }
  }

  @Test
  void duplicateSourceKeyFailsNamingItAndCommitsNothing() throws Exception {
    try (Dataset ds = target()) {
      long before = ds.version();
      TreeSet<String> files = keys();
      List<Row> source = List.of(new Row(20L, "a", 1L), new Row(3L, "b", 1L), new Row(20L, "c", 2L));
      try (ArrowReader src = source(allocator, SCHEMA, source)) {
        DuplicateSourceKeyException e = assertThatExceptionOfType(DuplicateSourceKeyException.class)
            .isThrownBy(() -> ds.mergeInsert("id").whenMatchedUpdateAll().execute(src)).actual();
        assertThat(e.key()).isEqualTo("20");
        assertThat(e.getMessage()).contains("[id] = 20 twice").contains("rows 0 and 2");
      }
      assertThat(ds.latestVersion()).isEqualTo(before);
      assertThat(keys()).isEqualTo(files);
    }
  }

  @Test
  void typeMismatchNamesColumnExpectedAndFound() throws Exception {
    Schema wrong = new Schema(List.of(
        new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
        new Field("name", FieldType.nullable(new ArrowType.Int(32, true)), null)));
    try (Dataset ds = target()) {
      long before = ds.version();
      TreeSet<String> files = keys();
      try (ArrowReader src = new ArrowStreamReader(new ByteArrayInputStream(emptyStream(wrong)), allocator)) {
        assertThatExceptionOfType(SchemaMismatchException.class)
            .isThrownBy(() -> ds.mergeInsert("id").execute(src))
            .withMessageContaining("column 'name': expected Utf8, found Int(32, true)");
      }
      Schema extra = new Schema(List.of(
          new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
          new Field("zzz", FieldType.nullable(new ArrowType.Utf8()), null)));
      try (ArrowReader src = new ArrowStreamReader(new ByteArrayInputStream(emptyStream(extra)), allocator)) {
        assertThatExceptionOfType(SchemaMismatchException.class)
            .isThrownBy(() -> ds.mergeInsert("id").execute(src))
            .withMessageContaining("column 'zzz', which the table lacks");
      }
      assertThat(ds.latestVersion()).isEqualTo(before);
      assertThat(keys()).isEqualTo(files);
    }
  }

  private byte[] emptyStream(Schema schema) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
      writer.start();
      writer.end();
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
    return bytes.toByteArray();
  }

  @Test
  void aMissingNullableColumnIsNullInInsertsAndKeptInUpdates() throws Exception {
    Schema noTs = new Schema(List.of(
        new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
        new Field("name", FieldType.nullable(new ArrowType.Utf8()), null)));
    try (Dataset ds = target()) {
      try (ArrowReader src = source(allocator, noTs, List.of(new Row(2L, "new2", null), new Row(50L, "new50", null)))) {
        MergeInsertResult r = ds.mergeInsert("id").whenMatchedUpdateAll().execute(src);
        assertThat(r.rowsInserted()).isEqualTo(1);
        assertThat(r.rowsUpdated()).isEqualTo(1);
      }
      List<Row> rows = read(ds);
      assertThat(rows).contains(new Row(2L, "new2", 2L), new Row(50L, "new50", null));
      assertThat(rows).hasSize(11);
    }
  }

  @Test
  void badKeysAndConditionsAreRefused() throws Exception {
    try (Dataset ds = target()) {
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.mergeInsert())
          .withMessageContaining("at least one key column");
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.mergeInsert("nope"))
          .withMessageContaining("no key column 'nope'");
      try (ArrowReader src = source(allocator, SCHEMA, List.of(new Row(1L, "x", 1L)))) {
        assertThatExceptionOfType(InvalidArgumentException.class)
            .isThrownBy(() -> ds.mergeInsert("id").whenMatchedUpdateAll(Predicate.gt("ts", 1L)).execute(src))
            .withMessageContaining("'target.<column>'");
      }
      try (ArrowReader src = source(allocator, SCHEMA, List.of(new Row(1L, "x", 1L)))) {
        assertThatExceptionOfType(InvalidArgumentException.class)
            .isThrownBy(() -> ds.mergeInsert("id")
                .whenMatchedUpdateAll(Predicate.compareColumns("source.name", Predicate.Op.GT, "target.ts")).execute(src))
            .withMessageContaining("cannot compare column");
      }
      long before = ds.version();
      try (ArrowReader src = source(allocator, SCHEMA, rows(100, 200, "big", 0))) {
        assertThatExceptionOfType(InvalidArgumentException.class)
            .isThrownBy(() -> ds.mergeInsert("id").maxSourceBytes(64).execute(src))
            .withMessageContaining("more than 64 bytes");
      }
      assertThat(ds.latestVersion()).isEqualTo(before);
    }
  }

  /** k struct<id int32, tag utf8>, v int64. */
  private static final Schema NESTED = new Schema(List.of(
      new Field("k", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
          new Field("id", FieldType.nullable(new ArrowType.Int(32, true)), null),
          new Field("tag", FieldType.nullable(new ArrowType.Utf8()), null))),
      new Field("v", FieldType.nullable(new ArrowType.Int(64, true)), null)));

  @Test
  void nestedStructMemberKey() throws Exception {
    Schema nested = NESTED;
    try (VectorSchemaRoot b = nestedBatch(nested, new Integer[] {1, 2, 3}, new String[] {"a", "b", "c"},
        new long[] {10, 20, 30})) {
      try (Dataset ds = Dataset.create(OverlayTestSupport.URI_, nested, List.of(b), options)) {
        byte[] stream;
        try (VectorSchemaRoot s = nestedBatch(nested, new Integer[] {2, 9}, new String[] {"B", "z"}, new long[] {200, 900})) {
          stream = streamOf(s);
        }
        MergeInsertResult r;
        try (ArrowReader src = new ArrowStreamReader(new ByteArrayInputStream(stream), allocator)) {
          r = ds.mergeInsert("k.id").whenMatchedUpdateAll().execute(src);
        }
        assertThat(r.rowsInserted()).isEqualTo(1);
        assertThat(r.rowsUpdated()).isEqualTo(1);
        Map<Integer, String> got = new TreeMap<>();
        try (ArrowReader reader = ds.newScan().open()) {
          while (reader.loadNextBatch()) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            StructVector k = (StructVector) root.getVector("k");
            IntVector id = (IntVector) k.getChild("id");
            VarCharVector tag = (VarCharVector) k.getChild("tag");
            BigIntVector v = (BigIntVector) root.getVector("v");
            for (int i = 0; i < root.getRowCount(); i++) {
              got.put(id.get(i), new String(tag.get(i), StandardCharsets.UTF_8) + "/" + v.get(i));
            }
          }
        } catch (IOException e) {
          throw new RuntimeException(e);
        }
        assertThat(got).isEqualTo(Map.of(1, "a/10", 2, "B/200", 3, "c/30", 9, "z/900"));
      }
    }
  }

  /** Keys other than one integer column (a string; two columns) take the encoded-key path. */
  @Test
  void stringAndCompositeKeys() throws Exception {
    Schema nested = NESTED;
    try (VectorSchemaRoot b = nestedBatch(nested, new Integer[] {1, 2, 3}, new String[] {"a", "b", "c"},
        new long[] {10, 20, 30});
        Dataset ds = Dataset.create(OverlayTestSupport.URI_, nested, List.of(b), options)) {
      MergeInsertResult r;
      try (VectorSchemaRoot s = nestedBatch(nested, new Integer[] {2, 9}, new String[] {"b", "c"}, new long[] {200, 900});
          ArrowReader src = new ArrowStreamReader(new ByteArrayInputStream(streamOf(s)), allocator)) {
        r = ds.mergeInsert("k.tag").whenMatchedUpdateAll().execute(src);
      }
      assertThat(r.rowsUpdated()).isEqualTo(2);
      assertThat(r.rowsInserted()).isZero();
      assertThat(nestedRows(ds)).containsExactlyInAnyOrder("1/a/10", "2/b/200", "9/c/900");
      try (VectorSchemaRoot s = nestedBatch(nested, new Integer[] {2, 3}, new String[] {"b", "x"}, new long[] {222, 300});
          ArrowReader src = new ArrowStreamReader(new ByteArrayInputStream(streamOf(s)), allocator)) {
        r = ds.mergeInsert("k.id", "k.tag").whenMatchedUpdateAll().execute(src);
      }
      assertThat(r.rowsUpdated()).isEqualTo(1);
      assertThat(r.rowsInserted()).isEqualTo(1);
      assertThat(nestedRows(ds)).containsExactlyInAnyOrder("1/a/10", "2/b/222", "9/c/900", "3/x/300");
    }
  }

  private static List<String> nestedRows(Dataset ds) throws IOException {
    List<String> out = new java.util.ArrayList<>();
    try (ArrowReader reader = ds.newScan().open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        StructVector k = (StructVector) root.getVector("k");
        IntVector id = (IntVector) k.getChild("id");
        VarCharVector tag = (VarCharVector) k.getChild("tag");
        BigIntVector v = (BigIntVector) root.getVector("v");
        for (int i = 0; i < root.getRowCount(); i++) {
          out.add(id.get(i) + "/" + new String(tag.get(i), StandardCharsets.UTF_8) + "/" + v.get(i));
        }
      }
    }
    return out;
  }

  private VectorSchemaRoot nestedBatch(Schema schema, Integer[] ids, String[] tags, long[] values) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    StructVector k = (StructVector) root.getVector("k");
    IntVector id = (IntVector) k.getChild("id");
    VarCharVector tag = (VarCharVector) k.getChild("tag");
    BigIntVector v = (BigIntVector) root.getVector("v");
    for (int i = 0; i < ids.length; i++) {
      k.setIndexDefined(i);
      id.setSafe(i, ids[i]);
      tag.setSafe(i, tags[i].getBytes(StandardCharsets.UTF_8));
      v.setSafe(i, values[i]);
    }
    root.setRowCount(ids.length);
    return root;
  }

  private byte[] streamOf(VectorSchemaRoot root) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
    return bytes.toByteArray();
  }

  // ------------------------------------------------------------------ races (stale handles, deterministic)

  private MergeInsertResult upsert(Dataset ds, List<Row> rows, int attempts) throws Exception {
    try (ArrowReader src = source(allocator, SCHEMA, rows)) {
      return ds.mergeInsert("id").whenMatchedUpdateAll().maxAttempts(attempts).execute(src);
    }
  }

  @Test
  void twoMergesInsertingOneNewKeyNeverBothCommit() throws Exception {
    try (Dataset first = target(); Dataset second = first.checkout(first.version())) {
      MergeInsertResult a = upsert(first, List.of(new Row(100L, "a", 1L), new Row(101L, "a", 1L)), 3);
      assertThat(a.rowsInserted()).isEqualTo(2);
      TreeSet<String> files = keys();
      assertThatExceptionOfType(RetryableConflictException.class)
          .isThrownBy(() -> upsert(second, List.of(new Row(101L, "b", 2L), new Row(102L, "b", 2L)), 1))
          .withMessageContaining("merge-insert committed as version " + a.version());
      assertThat(keys()).as("the failed attempt's files are deleted").isEqualTo(files);
      // With retries, the second merge re-runs on the latest version: 101 is now an update.
      MergeInsertResult b = upsert(second, List.of(new Row(101L, "b", 2L), new Row(102L, "b", 2L)), 3);
      assertThat(b.attempts()).isEqualTo(2);
      assertThat(b.rowsInserted()).isEqualTo(1);
      assertThat(b.rowsUpdated()).isEqualTo(1);
      List<Row> rows = readLatest(first);
      assertThat(rows.stream().filter(r -> r.id() >= 100).toList())
          .containsExactly(new Row(100L, "a", 1L), new Row(101L, "b", 2L), new Row(102L, "b", 2L));
    }
  }

  @Test
  void disjointNewKeysBothCommitWithoutRetry() throws Exception {
    try (Dataset first = target(); Dataset second = first.checkout(first.version())) {
      MergeInsertResult a = upsert(first, List.of(new Row(100L, "a", 1L)), 1);
      MergeInsertResult b = upsert(second, List.of(new Row(200L, "b", 1L)), 1);
      assertThat(a.attempts()).isEqualTo(1);
      assertThat(b.attempts()).isEqualTo(1);
      assertThat(b.version()).isEqualTo(a.version() + 1);
      assertThat(read(second)).hasSize(12);
    }
  }

  @Test
  void aConcurrentDeleteOfAMatchedRowMakesTheMergeRetry() throws Exception {
    try (Dataset first = target(); Dataset second = first.checkout(first.version())) {
      first.delete(Predicate.eq("id", 3L));
      assertThatExceptionOfType(RetryableConflictException.class)
          .isThrownBy(() -> upsert(second, List.of(new Row(3L, "m", 9L)), 1));
      MergeInsertResult r = upsert(second, List.of(new Row(3L, "m", 9L)), 3);
      // Serially after the delete, key 3 is new again.
      assertThat(r.attempts()).isEqualTo(2);
      assertThat(r.rowsInserted()).isEqualTo(1);
      assertThat(read(second)).contains(new Row(3L, "m", 9L)).hasSize(10);
    }
  }

  @Test
  void aConcurrentAppendOfTheKeyMakesTheMergeRetryAndDisjointStatsDoNot() throws Exception {
    try (Dataset first = target(); Dataset second = first.checkout(first.version())) {
      try (VectorSchemaRoot b = batch(allocator, SCHEMA, List.of(new Row(500L, "x", 1L), new Row(600L, "x", 1L)))) {
        first.append(List.of(b));
      }
      // Key 50 is outside the appended fragment's [500, 600]: no retry.
      assertThat(upsert(second, List.of(new Row(50L, "m", 1L)), 1).attempts()).isEqualTo(1);
      try (Dataset third = first.checkout(first.version() - 1)) {
        // Key 550 lies within the appended range: retryable.
        assertThatExceptionOfType(RetryableConflictException.class)
            .isThrownBy(() -> upsert(third, List.of(new Row(550L, "m", 1L)), 1));
      }
    }
  }

  @Test
  void aDeleteBySourceRetriesOnAConcurrentAppendAndThenDeletesTheAppendedRows() throws Exception {
    try (Dataset first = target(); Dataset second = first.checkout(first.version())) {
      try (VectorSchemaRoot b = batch(allocator, SCHEMA, List.of(new Row(50L, "x", 1L)))) {
        first.append(List.of(b));
      }
      List<Row> keep = List.of(new Row(1L, "k", 1L), new Row(2L, "k", 2L));
      try (ArrowReader src = source(allocator, SCHEMA, keep)) {
        assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() ->
            second.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedBySourceDelete().maxAttempts(1).execute(src));
      }
      MergeInsertResult r;
      try (ArrowReader src = source(allocator, SCHEMA, keep)) {
        r = second.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedBySourceDelete().execute(src);
      }
      // Serially after the append: the appended row is not in the source, so it is deleted too.
      assertThat(r).isEqualTo(new MergeInsertResult(4, 0, 2, 9, 2));
      assertThat(readLatest(second)).isEqualTo(keep);
    }
  }

  @Test
  void aConcurrentWriteOfAKeyColumnMakesTheMergeRetryEvenWhereItPrunedByStatistics() throws Exception {
    try (Dataset first = target(); Dataset second = first.checkout(first.version())) {
      // Row 9 now holds key 77: a merge computed before this must not insert 77 again.
      first.update(Predicate.eq("id", 9L), Map.of("id", 77L));
      assertThatExceptionOfType(RetryableConflictException.class)
          .isThrownBy(() -> upsert(second, List.of(new Row(77L, "m", 1L)), 1));
      MergeInsertResult r = upsert(second, List.of(new Row(77L, "m", 1L)), 3);
      assertThat(r.rowsUpdated()).isEqualTo(1);
      assertThat(r.rowsInserted()).isEqualTo(0);
      assertThat(readLatest(second).stream().filter(x -> x.id() == 77L).toList()).containsExactly(new Row(77L, "m", 1L));
    }
  }

  // ------------------------------------------------------------------ model-based: concurrent upserts from stale handles

  @Test
  void concurrentUpsertsFromStaleHandlesMatchTheSerialModel() throws Exception {
    Random random = new Random(18);
    for (int round = 0; round < 6; round++) {
      store = new MemoryObjectStore(OverlayTestSupport.URI_);
      options = OverlayTestSupport.options(allocator, store, 4);
      try (Dataset ds = target()) {
        Map<Long, Row> model = new TreeMap<>();
        read(ds).forEach(r -> model.put(r.id(), r));
        List<Dataset> handles = new ArrayList<>();
        for (int h = 0; h < 3; h++) {
          handles.add(ds.checkout(ds.version()));
        }
        try {
          for (int step = 0; step < 8; step++) {
            Dataset handle = handles.get(random.nextInt(handles.size()));
            List<Row> rows = new ArrayList<>();
            TreeSet<Long> ids = new TreeSet<>();
            while (ids.size() < 1 + random.nextInt(4)) {
              ids.add((long) random.nextInt(20));
            }
            for (long id : ids) {
              rows.add(new Row(id, "r" + round + "s" + step, (long) step));
            }
            MergeInsertResult r = upsert(handle, rows, 10);
            assertThat(r.attempts()).isBetween(1, 10);
            rows.forEach(x -> model.put(x.id(), x));
          }
          List<Row> got = readLatest(ds);
          assertThat(got).as("no key twice, and the serial result").isEqualTo(new ArrayList<>(model.values()));
        } finally {
          handles.forEach(Dataset::close);
        }
      }
    }
  }
}
