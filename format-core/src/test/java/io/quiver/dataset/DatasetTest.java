package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.InvalidSchemaException;
import io.quiver.exceptions.NotFoundException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.exceptions.TableAlreadyExistsException;
import io.quiver.exceptions.TableNotFoundException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.manifest.DataFile;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
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

class DatasetTest {
  private RootAllocator allocator;
  private MemoryObjectStore store;
  private DatasetOptions options;
  private static final String URI_ = "test://table";

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(URI_);
    options = optionsFor(store).build();
  }

  private DatasetOptions.Builder optionsFor(ObjectStore s) {
    ObjectStoreProvider provider =
        TestStores.provider("test", () -> s);
    return DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(1 << 20))
        .registry(ObjectStores.empty().register(provider))
        .rowsPerBatch(16);
  }

  @AfterEach
  void tearDown() {
    allocator.close(); // fails the test if any Arrow buffer leaked
  }

  private Dataset create(long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  private long append(Dataset ds, long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return ds.append(List.of(b));
    }
  }

  @Test
  void createAppendScanAndTravelBackInTime() {
    try (Dataset ds = create(0, 40)) {
      assertEquals(1, ds.version());
      assertEquals(2, append(ds, 40, 25));
      assertEquals(3, append(ds, 65, 1));
      assertEquals(range(0, 66), scanIds(ds.newScan().open()));
      assertEquals(66, ds.countRows());
      for (long v = 1; v <= 3; v++) {
        try (Dataset old = ds.checkout(v)) {
          long expected = v == 1 ? 40 : v == 2 ? 65 : 66;
          assertEquals(range(0, expected), scanIds(old.newScan().open()), "version " + v);
          assertEquals(expected, old.countRows());
        }
      }
      List<VersionInfo> versions = ds.versions();
      assertEquals(List.of(3L, 2L, 1L), versions.stream().map(VersionInfo::version).toList());
      assertEquals(List.of("append", "append", "overwrite"), versions.stream().map(VersionInfo::operation).toList());
      assertEquals(List.of(66L, 65L, 40L), versions.stream().map(VersionInfo::rows).toList());
    }
    try (Dataset reopened = Dataset.open(URI_, options)) {
      assertEquals(3, reopened.version());
      assertEquals(range(0, 66), scanIds(reopened.newScan().open()));
    }
  }

  @Test
  void emptyTableScansToNothing() {
    try (Dataset ds = Dataset.create(URI_, SampleTable.SCHEMA, List.of(), options)) {
      assertEquals(List.of(), scanIds(ds.newScan().open()));
      assertEquals(0, ds.countRows());
      append(ds, 0, 3);
      assertEquals(range(0, 3), scanIds(ds.newScan().open()));
    }
  }

  @Test
  void fieldIdsAreAssignedDepthFirstFromOne() {
    try (Dataset ds = create(0, 1)) {
      io.quiver.schema.Schema s = ds.schema();
      assertEquals(List.of("id", "name", "s", "s.x", "s.y", "tags", "tags.item"),
          s.allFields().stream().map(f -> s.pathOf(f.id())).toList());
      assertEquals(List.of(1, 2, 3, 4, 5, 6, 7), s.allFields().stream().map(io.quiver.schema.Field::id).toList());
      DataFile file = ds.manifest().fragments().get(0).files().get(0);
      assertEquals(List.of(1, 2, 4, 5, 6), file.fieldIds());
      assertEquals(List.of(0, 1, 2, 3, 4), file.columnIndices());
    }
  }

  @Test
  void projectionByNameByIdAndNestedPathInRequestedOrder() throws Exception {
    try (Dataset ds = create(0, 50)) {
      try (ArrowReader r = ds.newScan().columns("s.x", "id").batchSize(7).open()) {
        List<Long> ids = new ArrayList<>();
        while (r.loadNextBatch()) {
          VectorSchemaRoot root = r.getVectorSchemaRoot();
          assertThat(root.getRowCount()).isBetween(1, 7);
          assertEquals(List.of("s", "id"), root.getSchema().getFields().stream().map(Field::getName).toList());
          StructVector s = (StructVector) root.getVector("s");
          assertEquals(List.of("x"), s.getField().getChildren().stream().map(Field::getName).toList());
          for (int i = 0; i < root.getRowCount(); i++) {
            long id = ((BigIntVector) root.getVector("id")).get(i);
            ids.add(id);
            assertEquals(SampleTable.structIsNull(id), s.isNull(i));
            if (!SampleTable.structIsNull(id)) {
              assertEquals(SampleTable.expectedX(id), ((IntVector) s.getChild("x")).getObject(i));
            }
          }
        }
        assertEquals(range(0, 50), ids);
      }
      try (ArrowReader r = ds.newScan().fieldIds(List.of(1)).open()) {
        long rows = 0;
        while (r.loadNextBatch()) {
          assertEquals(List.of("id"), r.getVectorSchemaRoot().getSchema().getFields().stream().map(Field::getName).toList());
          rows += r.getVectorSchemaRoot().getRowCount();
        }
        assertEquals(50, rows);
      }
      InvalidArgumentException e =
          assertThrows(InvalidArgumentException.class, () -> ds.newScan().columns("nope").open());
      assertThat(e.getMessage()).contains("nope").contains("id");
    }
  }

  @Test
  void rowAddressesNameRowsThatTakeReturnsInTheOrderAsked() throws Exception {
    try (Dataset ds = create(0, 30)) {
      append(ds, 30, 30);
      List<Long> addresses = new ArrayList<>();
      List<Long> ids = new ArrayList<>();
      try (ArrowReader r = ds.newScan().columns("id").withRowAddress(true).open()) {
        while (r.loadNextBatch()) {
          VectorSchemaRoot root = r.getVectorSchemaRoot();
          assertEquals(RowAddress.COLUMN, root.getSchema().getFields().get(1).getName());
          for (int i = 0; i < root.getRowCount(); i++) {
            ids.add(((BigIntVector) root.getVector("id")).get(i));
            addresses.add(((UInt8Vector) root.getVector(RowAddress.COLUMN)).get(i));
          }
        }
      }
      assertEquals(RowAddress.of(1, 4), addresses.get(34));
      long[] wanted = {addresses.get(59), addresses.get(0), addresses.get(33), addresses.get(33), addresses.get(17)};
      try (VectorSchemaRoot rows = ds.take(wanted, List.of())) {
        assertEquals(List.of(59L, 0L, 33L, 33L, 17L), SampleTable.checkRows(rows));
      }
      try (VectorSchemaRoot rows = ds.take(wanted, List.of("name"))) {
        assertEquals(1, rows.getFieldVectors().size());
        assertEquals(List.of("name-0", "name-33", "name-33"),
            List.of(1, 2, 3).stream().map(i -> rows.getVector("name").getObject(i).toString()).toList());
        assertThat(rows.getVector("name").isNull(0)).isTrue(); // row 59 has a null name
      }
      NotFoundException e =
          assertThrows(NotFoundException.class, () -> ds.take(new long[] {RowAddress.of(1, 30)}, List.of()));
      assertThat(e.getMessage()).contains("fragment 1, offset 30");
      assertThrows(NotFoundException.class, () -> ds.take(new long[] {RowAddress.of(9, 0)}, List.of()));
    }
  }

  @Test
  void largeAppendsSplitIntoFragmentsAndBatches() {
    options = options.toBuilder().maxRowsPerFragment(100).rowsPerBatch(32).build();
    try (Dataset ds = create(0, 250)) {
      assertEquals(List.of(100L, 100L, 50L),
          ds.manifest().fragments().stream().map(io.quiver.manifest.Fragment::physicalRows).toList());
      assertEquals(range(0, 250), scanIds(ds.newScan().batchSize(1000).open()));
      assertEquals(range(0, 250), scanIds(ds.newScan().batchSize(3).open()));
    }
  }

  @Test
  void batchesThatDoNotMatchTheSchemaCommitNothing() {
    try (Dataset ds = create(0, 5)) {
      Schema wrongType =
          new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null)));
      try (VectorSchemaRoot bad = VectorSchemaRoot.create(wrongType, allocator)) {
        bad.setRowCount(0);
        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, () -> ds.append(List.of(bad)));
        assertThat(e.getMessage()).contains("1 columns [id] but the table has 4");
      }
      Schema renamed = new Schema(SampleTable.SCHEMA.getFields().stream()
          .map(f -> f.getName().equals("name") ? new Field("nom", f.getFieldType(), f.getChildren()) : f).toList());
      try (VectorSchemaRoot bad = VectorSchemaRoot.create(renamed, allocator)) {
        bad.setRowCount(0);
        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, () -> ds.append(List.of(bad)));
        assertThat(e.getMessage()).contains("expected name 'name', found 'nom'");
      }
      try (VectorSchemaRoot nullIds = SampleTable.batch(allocator, 100, 3)) {
        ((BigIntVector) nullIds.getVector("id")).setNull(1);
        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, () -> ds.append(List.of(nullIds)));
        assertThat(e.getMessage()).contains("non-nullable");
      }
      assertEquals(1, ds.latestVersion());
      assertEquals(range(0, 5), scanIds(ds.newScan().open()));
      assertEquals(List.of(), store.listAll("data/").stream()
          .filter(o -> !ds.manifest().fragments().get(0).files().get(0).path().equals(o.key())).toList());
    }
  }

  @Test
  void reservedColumnNamesAreRejectedAtCreate() {
    Schema bad = new Schema(List.of(new Field("_rowid", FieldType.nullable(new ArrowType.Int(64, true)), null)));
    InvalidSchemaException e = assertThrows(InvalidSchemaException.class, () -> Dataset.create(URI_, bad, List.of(), options));
    assertThat(e.getMessage()).contains("_rowid");
    assertEquals(List.of(), store.listAll(""));
  }

  @Test
  void missingTablesVersionsAndDuplicatesAreTypedErrors() {
    assertThrows(TableNotFoundException.class, () -> Dataset.open(URI_, options));
    try (Dataset ds = create(0, 1)) {
      TableAlreadyExistsException e = assertThrows(TableAlreadyExistsException.class, () -> create(0, 1));
      assertThat(e.getMessage()).contains("latest version 1");
      VersionNotFoundException v = assertThrows(VersionNotFoundException.class, () -> ds.checkout(99));
      assertThat(v.getMessage()).contains("version 99").contains("latest version is 1");
    }
  }

  @Test
  void overwriteReplacesRowsAndOldVersionsStillScan() {
    try (Dataset ds = create(0, 10)) {
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 500, 4)) {
        assertEquals(2, ds.overwrite(SampleTable.SCHEMA, List.of(b)));
      }
      assertEquals(range(500, 504), scanIds(ds.newScan().open()));
      assertEquals(1, ds.manifest().fragments().get(0).id(), "fragment ids are never reused");
      try (Dataset v1 = ds.checkout(1)) {
        assertEquals(range(0, 10), scanIds(v1.newScan().open()));
      }
    }
  }

  @Test
  void corruptManifestIsATypedErrorNamingThePath() {
    try (Dataset ds = create(0, 3)) {
      String key = ObjectStoreCommitStore.manifestKey(1);
      byte[] bytes = store.read(key);
      store.write(key, java.util.Arrays.copyOf(bytes, bytes.length / 2));
      CorruptFileException e =
          assertThrows(CorruptFileException.class, () -> Dataset.open(URI_, optionsFor(store).session(new Session(1 << 20)).build()));
      assertThat(e.getMessage()).contains(store.locationOf(key));
    }
  }

  @Test
  void truncatedDataFileIsATypedErrorNamingThePath() {
    try (Dataset ds = create(0, 3)) {
      String key = ds.manifest().fragments().get(0).files().get(0).path();
      byte[] bytes = store.read(key);
      store.write(key, java.util.Arrays.copyOf(bytes, bytes.length - 20));
      try (Dataset fresh = Dataset.open(URI_, optionsFor(store).session(new Session(1 << 20)).build())) {
        CorruptFileException e = assertThrows(CorruptFileException.class, () -> scanIds(fresh.newScan().open()));
        assertThat(e.getMessage()).contains(store.locationOf(key));
      }
    }
  }
}
