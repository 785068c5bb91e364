package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.InvalidSchemaException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ColumnEvolutionTest {
  private static final String URI_ = "test://table";
  private RootAllocator allocator;
  private MemoryObjectStore store;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(URI_);
    ObjectStoreProvider provider =
        TestStores.provider("test", () -> store);
    options =
        DatasetOptions.builder()
            .allocator(allocator)
            .registry(ObjectStores.empty().register(provider))
            .session(new Session(1 << 20))
            .rowsPerBatch(8)
            .maxRowsPerFragment(20)
            .build();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** A table of 50 rows in fragments of 20, 20 and 10. */
  private Dataset create() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 50)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  private static Field int64(String name, boolean nullable) {
    return new Field(name, nullable ? FieldType.nullable(new ArrowType.Int(64, true))
        : FieldType.notNullable(new ArrowType.Int(64, true)), null);
  }

  /** id * 2 as column "doubled". */
  private static final ColumnFunction DOUBLED = (input, alloc) -> {
    BigIntVector id = (BigIntVector) input.getVector("id");
    VectorSchemaRoot out = VectorSchemaRoot.create(new Schema(List.of(int64("doubled", false))), alloc);
    BigIntVector d = (BigIntVector) out.getVector(0);
    d.allocateNew(input.getRowCount());
    for (int i = 0; i < input.getRowCount(); i++) {
      d.set(i, id.get(i) * 2);
    }
    out.setRowCount(input.getRowCount());
    return out;
  };

  /** Column values by id: scans id plus {@code column} and returns id → value. */
  private static Map<Long, Object> column(Dataset ds, String column) throws Exception {
    Map<Long, Object> values = new HashMap<>();
    try (ArrowReader r = ds.newScan().columns("id", column).open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        FieldVector v = root.getFieldVectors().get(1);
        for (int i = 0; i < root.getRowCount(); i++) {
          Object value = v.getObject(i);
          values.put(((BigIntVector) root.getVector("id")).get(i), value == null ? null : value.toString());
        }
      }
    }
    return values;
  }

  @Test
  void addedNullableColumnReadsNullAndGetsTheNextFieldId() throws Exception {
    try (Dataset ds = create()) {
      int before = ds.manifest().maxFieldId();
      assertEquals(2, ds.columns().add(List.of(int64("extra", true))));
      assertEquals(before + 1, ds.schema().findTopLevel("extra").orElseThrow().id());
      Map<Long, Object> extra = column(ds, "extra");
      assertEquals(50, extra.size());
      assertThat(extra.values()).containsOnlyNulls();
      assertEquals(range(0, 50), scanIds(ds.newScan().columns("id", "name", "s", "tags").open()));
      InvalidArgumentException e =
          assertThrows(InvalidArgumentException.class, () -> ds.columns().add(List.of(int64("strict", false))));
      assertThat(e.getMessage()).contains("non-nullable").contains("strict");
      assertThat(assertThrows(InvalidSchemaException.class, () -> ds.columns().add(List.of(int64("_rowid", true))))
          .getMessage()).contains("_rowid");
      assertThat(assertThrows(InvalidSchemaException.class, () -> ds.columns().add(List.of(int64("name", true))))
          .getMessage()).contains("exists");
      assertEquals(2, ds.latestVersion());
    }
  }

  @Test
  void computedColumnIsWrittenPerFragmentWithoutTouchingExistingFiles() throws Exception {
    try (Dataset ds = create()) {
      List<List<DataFile>> filesBefore = ds.manifest().fragments().stream().map(Fragment::files).toList();
      ds.columns().add(List.of(int64("doubled", false)), List.of("id"), DOUBLED);
      Map<Long, Object> doubled = column(ds, "doubled");
      for (long id = 0; id < 50; id++) {
        assertEquals(String.valueOf(id * 2), doubled.get(id));
      }
      for (int i = 0; i < filesBefore.size(); i++) {
        List<DataFile> now = ds.manifest().fragments().get(i).files();
        assertEquals(filesBefore.get(i).get(0), now.get(0), "existing file untouched");
        assertEquals(2, now.size());
        assertEquals(List.of(ds.schema().findTopLevel("doubled").orElseThrow().id()), now.get(1).fieldIds());
      }
      try (VectorSchemaRoot rows = ds.take(new long[] {RowAddress.of(2, 3)}, List.of("doubled"))) {
        assertEquals(86L, ((BigIntVector) rows.getVector(0)).get(0));
      }
      try (Dataset v1 = ds.checkout(1)) {
        assertThat(v1.schema().findTopLevel("doubled")).isEmpty();
      }
    }
  }

  @Test
  void aFunctionReturningTheWrongRowCountCommitsNothingAndLeavesNoFile() {
    try (Dataset ds = create()) {
      int dataFiles = store.listAll("data/").size();
      ColumnFunction short_ = (input, alloc) -> {
        VectorSchemaRoot out = DOUBLED.apply(input, alloc);
        out.setRowCount(input.getRowCount() - 1);
        return out;
      };
      SchemaMismatchException e = assertThrows(SchemaMismatchException.class,
          () -> ds.columns().add(List.of(int64("doubled", false)), List.of("id"), short_));
      assertThat(e.getMessage()).contains("one output row per input row");
      assertEquals(1, ds.latestVersion());
      assertEquals(dataFiles, store.listAll("data/").size());
    }
  }

  @Test
  void droppedColumnsDisappearOnlyFromNewVersionsAndTheirIdsAreNeverReused() throws Exception {
    try (Dataset ds = create()) {
      int nameId = ds.schema().findTopLevel("name").orElseThrow().id();
      int yId = ds.schema().findField("s.y").orElseThrow().id();
      ds.columns().drop("name", "s.y");
      assertThat(ds.schema().findTopLevel("name")).isEmpty();
      assertEquals(List.of("x"), ds.schema().findTopLevel("s").orElseThrow().children().stream()
          .map(io.quiver.schema.Field::name).toList());
      for (Fragment f : ds.manifest().fragments()) {
        assertThat(f.files().get(0).fieldIds()).doesNotContain(nameId, yId).contains(DataFile.TOMBSTONE);
      }
      try (ArrowReader r = ds.newScan().open()) {
        r.loadNextBatch();
        assertEquals(List.of("id", "s", "tags"),
            r.getVectorSchemaRoot().getSchema().getFields().stream().map(Field::getName).toList());
      }
      try (Dataset v1 = ds.checkout(1)) {
        assertEquals(range(0, 50), scanIds(v1.newScan().open()));
      }
      ds.columns().add(List.of(int64("name", true)));
      assertThat(ds.schema().findTopLevel("name").orElseThrow().id()).isGreaterThan(7);
      assertThrows(InvalidArgumentException.class, () -> ds.columns().drop("nope"));
      assertThat(assertThrows(InvalidArgumentException.class, () -> ds.columns().drop("s.x")).getMessage())
          .contains("every member of struct 's'");
      assertThat(assertThrows(InvalidArgumentException.class, () -> ds.columns().drop("tags.item")).getMessage())
          .contains("list or map");
    }
  }

  @Test
  void renamesAreMetadataOnly() throws Exception {
    try (Dataset ds = create()) {
      List<Fragment> before = ds.manifest().fragments();
      ds.columns().rename("name", "label");
      ds.columns().rename("s.x", "ex");
      assertEquals(before, ds.manifest().fragments(), "no file changed");
      Map<Long, Object> labels = column(ds, "label");
      assertEquals(SampleTable.expectedName(12), labels.get(12L));
      try (ArrowReader r = ds.newScan().columns("id", "s.ex").open()) {
        r.loadNextBatch();
        StructVector s = (StructVector) r.getVectorSchemaRoot().getVector("s");
        assertEquals(SampleTable.expectedX(0), ((IntVector) s.getChild("ex")).getObject(0));
      }
      assertThrows(InvalidArgumentException.class, () -> ds.newScan().columns("name").open());
      assertThrows(InvalidSchemaException.class, () -> ds.columns().rename("label", "id"));
      assertThrows(InvalidSchemaException.class, () -> ds.columns().rename("label", "_rowaddr"));
      try (Dataset v1 = ds.checkout(1)) {
        assertEquals(SampleTable.expectedName(12), column(v1, "name").get(12L));
      }
    }
  }

  @Test
  void makingAColumnNonNullableChecksItsData() throws Exception {
    try (Dataset ds = create()) {
      SchemaMismatchException e = assertThrows(SchemaMismatchException.class, () -> ds.columns().setNullable("name", false));
      assertThat(e.getMessage()).contains("7 null values");
      assertEquals(1, ds.latestVersion());
      ds.columns().setNullable("s.y", false); // y is null only where the whole struct is null
      assertThat(ds.schema().findField("s.y").orElseThrow().nullable()).isFalse();
      ds.columns().setNullable("id", true);
      assertThat(ds.schema().findTopLevel("id").orElseThrow().nullable()).isTrue();
    }
  }

  @Test
  void replacedColumnsAreAuthoritativeAndOldVersionsKeepTheirValues() throws Exception {
    try (Dataset ds = create()) {
      ColumnFunction upper = (input, alloc) -> {
        VarCharVector name = (VarCharVector) input.getVector("name");
        VectorSchemaRoot out = VectorSchemaRoot.create(
            new Schema(List.of(new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))), alloc);
        VarCharVector o = (VarCharVector) out.getVector(0);
        o.allocateNew();
        for (int i = 0; i < input.getRowCount(); i++) {
          if (name.isNull(i)) {
            o.setNull(i);
          } else {
            o.setSafe(i, name.getObject(i).toString().toUpperCase().getBytes(StandardCharsets.UTF_8));
          }
        }
        out.setRowCount(input.getRowCount());
        return out;
      };
      ds.columns().replace(List.of("name"), List.of("name"), upper);
      Map<Long, Object> names = column(ds, "name");
      assertEquals("NAME-12", names.get(12L));
      assertEquals(null, names.get(3L));
      int nameId = ds.schema().findTopLevel("name").orElseThrow().id();
      for (Fragment f : ds.manifest().fragments()) {
        assertThat(f.files().get(0).fieldIds()).doesNotContain(nameId);
        assertEquals(List.of(nameId), f.files().get(1).fieldIds());
      }
      try (Dataset v1 = ds.checkout(1)) {
        assertEquals("name-12", column(v1, "name").get(12L));
      }
      // Only some fragments, and a nested member.
      ColumnFunction negX = (input, alloc) -> {
        VectorSchemaRoot out = VectorSchemaRoot.create(ds.schema().project(
            List.of(ds.schema().findField("s.x").orElseThrow().id())).toArrow(), alloc);
        StructVector s = (StructVector) out.getVector(0);
        IntVector x = (IntVector) s.getChild("x");
        s.allocateNew();
        BigIntVector id = (BigIntVector) input.getVector("id");
        for (int i = 0; i < input.getRowCount(); i++) {
          s.setIndexDefined(i);
          x.setSafe(i, -(int) id.get(i));
        }
        s.setValueCount(input.getRowCount());
        out.setRowCount(input.getRowCount());
        return out;
      };
      ds.columns().replace(List.of("s.x"), List.of("id"), negX, List.of(2L));
      try (ArrowReader r = ds.newScan().columns("id", "s").withRowAddress(true).open()) {
        while (r.loadNextBatch()) {
          VectorSchemaRoot root = r.getVectorSchemaRoot();
          StructVector s = (StructVector) root.getVector("s");
          for (int i = 0; i < root.getRowCount(); i++) {
            long id = ((BigIntVector) root.getVector("id")).get(i);
            long address = ((org.apache.arrow.vector.UInt8Vector) root.getVector(RowAddress.COLUMN)).get(i);
            if (RowAddress.fragmentId(address) == 2) {
              // Replacing a member keeps the struct's validity (docs/format.md §5), whatever fn's output says.
              assertEquals(SampleTable.structIsNull(id), s.isNull(i), "s keeps its nulls in fragment 2");
              assertEquals(-(int) id, ((IntVector) s.getChild("x")).get(i));
            } else if (!SampleTable.structIsNull(id)) {
              assertEquals(SampleTable.expectedX(id), ((IntVector) s.getChild("x")).getObject(i));
              assertEquals("y" + id, s.getChild("y").getObject(i).toString());
            }
          }
        }
      }
      assertThrows(InvalidArgumentException.class, () -> ds.columns().replace(List.of("name"), List.of(), upper, List.of(9L)));
    }
  }

  @Test
  void a10_fullReplacementAfterAnOlderOverlayIsAuthoritative() throws Exception {
    try (Dataset ds = create()) {
      ds.update(new long[] {RowAddress.of(0, 1), RowAddress.of(1, 2)}, Map.of("name", "from-overlay"));
      assertEquals("from-overlay", column(ds, "name").get(1L));
      ds.columns().replace(List.of("name"), List.of("id"), (input, alloc) -> {
        BigIntVector id = (BigIntVector) input.getVector("id");
        VectorSchemaRoot out = VectorSchemaRoot.create(
            new Schema(List.of(new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))), alloc);
        VarCharVector o = (VarCharVector) out.getVector(0);
        o.allocateNew();
        for (int i = 0; i < input.getRowCount(); i++) {
          o.setSafe(i, ("new-" + id.get(i)).getBytes(StandardCharsets.UTF_8));
        }
        out.setRowCount(input.getRowCount());
        return out;
      });
      Map<Long, Object> names = column(ds, "name");
      assertEquals("new-1", names.get(1L), "the older overlay no longer shadows the replacement");
      assertEquals("new-22", names.get(22L));
      assertThat(ds.manifest().fragments()).allMatch(f -> f.overlays().isEmpty());
      assertThat(ds.validate().isValid()).isTrue();
    }
  }

  @Test
  void addColumnsConcurrentWithAnAppendIsRetryable() {
    try (Dataset a = create(); Dataset b = Dataset.open(URI_, options)) {
      try (VectorSchemaRoot rows = SampleTable.batch(allocator, 50, 5)) {
        a.append(List.of(rows));
      }
      RetryableConflictException e = assertThrows(RetryableConflictException.class,
          () -> b.columns().add(List.of(int64("doubled", false)), List.of("id"), DOUBLED));
      assertThat(e.getMessage()).contains("append committed as version 2");
      assertEquals(2, b.latestVersion());
    }
  }

  @Test
  void twoStaleHandlesAddingColumnsFromTheSameSnapshot_secondFailsAndFirstKeepsItsValues() throws Exception {
    try (Dataset a = create(); Dataset b = Dataset.open(URI_, options)) {
      a.columns().add(List.of(int64("doubled", false)), List.of("id"), DOUBLED);
      assertThrows(RetryableConflictException.class, () -> b.columns().add(List.of(int64("other", true))));
      try (Dataset latest = b.checkoutLatest()) {
        assertEquals("84", column(latest, "doubled").get(42L));
        assertThat(latest.schema().findTopLevel("other")).isEmpty();
      }
    }
  }

  @Test
  void replacementsOfDifferentColumnsBothLandButOfTheSameColumnTheSecondIsRetryable() throws Exception {
    try (Dataset a = create()) {
      assertThat(assertThrows(InvalidArgumentException.class,
              () -> a.columns().replace(List.of("not_there"), List.of(), constantLong("x", 0))).getMessage())
          .contains("not_there");
      a.columns().add(List.of(int64("p", true), int64("q", true)));
      try (Dataset a2 = Dataset.open(URI_, options); Dataset b2 = Dataset.open(URI_, options);
          Dataset c2 = Dataset.open(URI_, options)) {
        a2.columns().replace(List.of("p"), List.of(), constantLong("p", 1));
        b2.columns().replace(List.of("q"), List.of(), constantLong("q", 2)); // different field: rebased
        RetryableConflictException e = assertThrows(RetryableConflictException.class,
            () -> c2.columns().replace(List.of("p"), List.of(), constantLong("p", 3)));
        assertThat(e.getMessage()).contains("replace-data");
        try (Dataset latest = c2.checkoutLatest()) {
          assertThat(column(latest, "p").values()).containsOnly("1");
          assertThat(column(latest, "q").values()).containsOnly("2");
        }
      }
    }
  }

  private static ColumnFunction constantLong(String name, long value) {
    return (input, alloc) -> {
      VectorSchemaRoot out = VectorSchemaRoot.create(new Schema(List.of(int64(name, true))), alloc);
      BigIntVector v = (BigIntVector) out.getVector(0);
      v.allocateNew(input.getRowCount());
      for (int i = 0; i < input.getRowCount(); i++) {
        v.set(i, value);
      }
      out.setRowCount(input.getRowCount());
      return out;
    };
  }
}
