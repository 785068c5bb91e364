package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
import org.assertj.core.api.Assertions;
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
      assertThat(ds.columns().add(List.of(int64("extra", true)))).isEqualTo(2);
      assertThat(ds.schema().findTopLevel("extra").orElseThrow().id()).isEqualTo(before + 1);
      Map<Long, Object> extra = column(ds, "extra");
      assertThat(extra.size()).isEqualTo(50);
      assertThat(extra.values()).containsOnlyNulls();
      assertThat(scanIds(ds.newScan().columns("id", "name", "s", "tags").open())).isEqualTo(range(0, 50));
      InvalidArgumentException e =
          assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.columns().add(List.of(int64("strict", false)))).actual();
      assertThat(e.getMessage()).contains("non-nullable").contains("strict");
      assertThatThrownBy(() -> ds.columns().add(List.of(int64("_rowid", true)))).isInstanceOf(InvalidSchemaException.class)
          .message().contains("_rowid");
      assertThatThrownBy(() -> ds.columns().add(List.of(int64("name", true)))).isInstanceOf(InvalidSchemaException.class)
          .message().contains("exists");
      assertThat(ds.latestVersion()).isEqualTo(2);
    }
  }

  @Test
  void computedColumnIsWrittenPerFragmentWithoutTouchingExistingFiles() throws Exception {
    try (Dataset ds = create()) {
      List<List<DataFile>> filesBefore = ds.manifest().fragments().stream().map(Fragment::files).toList();
      ds.columns().add(List.of(int64("doubled", false)), List.of("id"), DOUBLED);
      Map<Long, Object> doubled = column(ds, "doubled");
      for (long id = 0; id < 50; id++) {
        assertThat(doubled.get(id)).isEqualTo(String.valueOf(id * 2));
      }
      for (int i = 0; i < filesBefore.size(); i++) {
        List<DataFile> now = ds.manifest().fragments().get(i).files();
        assertThat(now.get(0)).as("existing file untouched").isEqualTo(filesBefore.get(i).get(0));
        assertThat(now.size()).isEqualTo(2);
        assertThat(now.get(1).fieldIds()).isEqualTo(List.of(ds.schema().findTopLevel("doubled").orElseThrow().id()));
      }
      try (VectorSchemaRoot rows = ds.take(new long[] {RowAddress.of(2, 3)}, List.of("doubled"))) {
        assertThat(((BigIntVector) rows.getVector(0)).get(0)).isEqualTo(86L);
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
      SchemaMismatchException e = assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(() -> ds.columns().add(List.of(int64("doubled", false)), List.of("id"), short_)).actual();
      assertThat(e.getMessage()).contains("one output row per input row");
      assertThat(ds.latestVersion()).isEqualTo(1);
      assertThat(store.listAll("data/").size()).isEqualTo(dataFiles);
    }
  }

  @Test
  void droppedColumnsDisappearOnlyFromNewVersionsAndTheirIdsAreNeverReused() throws Exception {
    try (Dataset ds = create()) {
      int nameId = ds.schema().findTopLevel("name").orElseThrow().id();
      int yId = ds.schema().findField("s.y").orElseThrow().id();
      ds.columns().drop("name", "s.y");
      assertThat(ds.schema().findTopLevel("name")).isEmpty();
      assertThat(ds.schema().findTopLevel("s").orElseThrow().children().stream()
          .map(io.quiver.schema.Field::name).toList()).isEqualTo(List.of("x"));
      for (Fragment f : ds.manifest().fragments()) {
        assertThat(f.files().get(0).fieldIds()).doesNotContain(nameId, yId).contains(DataFile.TOMBSTONE);
      }
      try (ArrowReader r = ds.newScan().open()) {
        r.loadNextBatch();
        assertThat(r.getVectorSchemaRoot().getSchema().getFields().stream().map(Field::getName).toList()).isEqualTo(List.of("id", "s", "tags"));
      }
      try (Dataset v1 = ds.checkout(1)) {
        assertThat(scanIds(v1.newScan().open())).isEqualTo(range(0, 50));
      }
      ds.columns().add(List.of(int64("name", true)));
      assertThat(ds.schema().findTopLevel("name").orElseThrow().id()).isGreaterThan(7);
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.columns().drop("nope"));
      assertThatThrownBy(() -> ds.columns().drop("s.x")).isInstanceOf(InvalidArgumentException.class).message()
          .contains("every member of struct 's'");
      assertThatThrownBy(() -> ds.columns().drop("tags.item")).isInstanceOf(InvalidArgumentException.class).message()
          .contains("list or map");
    }
  }

  @Test
  void renamesAreMetadataOnly() throws Exception {
    try (Dataset ds = create()) {
      List<Fragment> before = ds.manifest().fragments();
      ds.columns().rename("name", "label");
      ds.columns().rename("s.x", "ex");
      assertThat(ds.manifest().fragments()).as("no file changed").isEqualTo(before);
      Map<Long, Object> labels = column(ds, "label");
      assertThat(labels.get(12L)).isEqualTo(SampleTable.expectedName(12));
      try (ArrowReader r = ds.newScan().columns("id", "s.ex").open()) {
        r.loadNextBatch();
        StructVector s = (StructVector) r.getVectorSchemaRoot().getVector("s");
        assertThat(((IntVector) s.getChild("ex")).getObject(0)).isEqualTo(SampleTable.expectedX(0));
      }
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.newScan().columns("name").open());
      assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> ds.columns().rename("label", "id"));
      assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> ds.columns().rename("label", "_rowaddr"));
      try (Dataset v1 = ds.checkout(1)) {
        assertThat(column(v1, "name").get(12L)).isEqualTo(SampleTable.expectedName(12));
      }
    }
  }

  @Test
  void makingAColumnNonNullableChecksItsData() throws Exception {
    try (Dataset ds = create()) {
      SchemaMismatchException e = assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(() -> ds.columns().setNullable("name", false)).actual();
      assertThat(e.getMessage()).contains("7 null values");
      assertThat(ds.latestVersion()).isEqualTo(1);
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
      assertThat(names.get(12L)).isEqualTo("NAME-12");
      assertThat(names.get(3L)).isNull();
      int nameId = ds.schema().findTopLevel("name").orElseThrow().id();
      for (Fragment f : ds.manifest().fragments()) {
        assertThat(f.files().get(0).fieldIds()).doesNotContain(nameId);
        assertThat(f.files().get(1).fieldIds()).isEqualTo(List.of(nameId));
      }
      try (Dataset v1 = ds.checkout(1)) {
        assertThat(column(v1, "name").get(12L)).isEqualTo("name-12");
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
              assertThat(s.isNull(i)).as("s keeps its nulls in fragment 2").isEqualTo(SampleTable.structIsNull(id));
              assertThat(((IntVector) s.getChild("x")).get(i)).isEqualTo(-(int) id);
            } else if (!SampleTable.structIsNull(id)) {
              assertThat(((IntVector) s.getChild("x")).getObject(i)).isEqualTo(SampleTable.expectedX(id));
              assertThat(s.getChild("y").getObject(i).toString()).isEqualTo("y" + id);
            }
          }
        }
      }
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.columns().replace(List.of("name"), List.of(), upper, List.of(9L)));
    }
  }

  @Test
  void a10_fullReplacementAfterAnOlderOverlayIsAuthoritative() throws Exception {
    try (Dataset ds = create()) {
      ds.update(new long[] {RowAddress.of(0, 1), RowAddress.of(1, 2)}, Map.of("name", "from-overlay"));
      assertThat(column(ds, "name").get(1L)).isEqualTo("from-overlay");
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
      assertThat(names.get(1L)).as("the older overlay no longer shadows the replacement").isEqualTo("new-1");
      assertThat(names.get(22L)).isEqualTo("new-22");
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
      RetryableConflictException e = assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> b.columns().add(List.of(int64("doubled", false)), List.of("id"), DOUBLED)).actual();
      assertThat(e.getMessage()).contains("append committed as version 2");
      assertThat(b.latestVersion()).isEqualTo(2);
    }
  }

  @Test
  void twoStaleHandlesAddingColumnsFromTheSameSnapshot_secondFailsAndFirstKeepsItsValues() throws Exception {
    try (Dataset a = create(); Dataset b = Dataset.open(URI_, options)) {
      a.columns().add(List.of(int64("doubled", false)), List.of("id"), DOUBLED);
      assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> b.columns().add(List.of(int64("other", true))));
      try (Dataset latest = b.checkoutLatest()) {
        assertThat(column(latest, "doubled").get(42L)).isEqualTo("84");
        assertThat(latest.schema().findTopLevel("other")).isEmpty();
      }
    }
  }

  @Test
  void replacementsOfDifferentColumnsBothLandButOfTheSameColumnTheSecondIsRetryable() throws Exception {
    try (Dataset a = create()) {
      assertThatThrownBy(() -> a.columns().replace(List.of("not_there"), List.of(), constantLong("x", 0))).isInstanceOf(InvalidArgumentException.class).message()
          .contains("not_there");
      a.columns().add(List.of(int64("p", true), int64("q", true)));
      try (Dataset a2 = Dataset.open(URI_, options); Dataset b2 = Dataset.open(URI_, options);
          Dataset c2 = Dataset.open(URI_, options)) {
        a2.columns().replace(List.of("p"), List.of(), constantLong("p", 1));
        b2.columns().replace(List.of("q"), List.of(), constantLong("q", 2)); // different field: rebased
        RetryableConflictException e = assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> c2.columns().replace(List.of("p"), List.of(), constantLong("p", 3))).actual();
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
