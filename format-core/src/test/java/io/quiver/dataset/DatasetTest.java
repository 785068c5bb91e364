package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
      assertThat(ds.version()).isEqualTo(1);
      assertThat(append(ds, 40, 25)).isEqualTo(2);
      assertThat(append(ds, 65, 1)).isEqualTo(3);
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(0, 66));
      assertThat(ds.countRows()).isEqualTo(66);
      for (long v = 1; v <= 3; v++) {
        try (Dataset old = ds.checkout(v)) {
          long expected = v == 1 ? 40 : v == 2 ? 65 : 66;
          assertThat(scanIds(old.newScan().open())).as("version " + v).isEqualTo(range(0, expected));
          assertThat(old.countRows()).isEqualTo(expected);
        }
      }
      List<VersionInfo> versions = ds.versions();
      assertThat(versions.stream().map(VersionInfo::version).toList()).isEqualTo(List.of(3L, 2L, 1L));
      assertThat(versions.stream().map(VersionInfo::operation).toList()).isEqualTo(List.of("append", "append", "overwrite"));
      assertThat(versions.stream().map(VersionInfo::rows).toList()).isEqualTo(List.of(66L, 65L, 40L));
    }
    try (Dataset reopened = Dataset.open(URI_, options)) {
      assertThat(reopened.version()).isEqualTo(3);
      assertThat(scanIds(reopened.newScan().open())).isEqualTo(range(0, 66));
    }
  }

  @Test
  void emptyTableScansToNothing() {
    try (Dataset ds = Dataset.create(URI_, SampleTable.SCHEMA, List.of(), options)) {
      assertThat(scanIds(ds.newScan().open())).isEqualTo(List.of());
      assertThat(ds.countRows()).isEqualTo(0);
      append(ds, 0, 3);
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(0, 3));
    }
  }

  @Test
  void fieldIdsAreAssignedDepthFirstFromOne() {
    try (Dataset ds = create(0, 1)) {
      io.quiver.schema.Schema s = ds.schema();
      assertThat(s.allFields().stream().map(f -> s.pathOf(f.id())).toList()).isEqualTo(List.of("id", "name", "s", "s.x", "s.y", "tags", "tags.item"));
      assertThat(s.allFields().stream().map(io.quiver.schema.Field::id).toList()).isEqualTo(List.of(1, 2, 3, 4, 5, 6, 7));
      DataFile file = ds.manifest().fragments().get(0).files().get(0);
      assertThat(file.fieldIds()).isEqualTo(List.of(1, 2, 4, 5, 6));
      assertThat(file.columnIndices()).isEqualTo(List.of(0, 1, 2, 3, 4));
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
          assertThat(root.getSchema().getFields().stream().map(Field::getName).toList()).isEqualTo(List.of("s", "id"));
          StructVector s = (StructVector) root.getVector("s");
          assertThat(s.getField().getChildren().stream().map(Field::getName).toList()).isEqualTo(List.of("x"));
          for (int i = 0; i < root.getRowCount(); i++) {
            long id = ((BigIntVector) root.getVector("id")).get(i);
            ids.add(id);
            assertThat(s.isNull(i)).isEqualTo(SampleTable.structIsNull(id));
            if (!SampleTable.structIsNull(id)) {
              assertThat(((IntVector) s.getChild("x")).getObject(i)).isEqualTo(SampleTable.expectedX(id));
            }
          }
        }
        assertThat(ids).isEqualTo(range(0, 50));
      }
      try (ArrowReader r = ds.newScan().fieldIds(List.of(1)).open()) {
        long rows = 0;
        while (r.loadNextBatch()) {
          assertThat(r.getVectorSchemaRoot().getSchema().getFields().stream().map(Field::getName).toList()).isEqualTo(List.of("id"));
          rows += r.getVectorSchemaRoot().getRowCount();
        }
        assertThat(rows).isEqualTo(50);
      }
      InvalidArgumentException e =
          assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.newScan().columns("nope").open()).actual();
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
          assertThat(root.getSchema().getFields().get(1).getName()).isEqualTo(RowAddress.COLUMN);
          for (int i = 0; i < root.getRowCount(); i++) {
            ids.add(((BigIntVector) root.getVector("id")).get(i));
            addresses.add(((UInt8Vector) root.getVector(RowAddress.COLUMN)).get(i));
          }
        }
      }
      assertThat(addresses.get(34)).isEqualTo(RowAddress.of(1, 4));
      long[] wanted = {addresses.get(59), addresses.get(0), addresses.get(33), addresses.get(33), addresses.get(17)};
      try (VectorSchemaRoot rows = ds.take(wanted, List.of())) {
        assertThat(SampleTable.checkRows(rows)).isEqualTo(List.of(59L, 0L, 33L, 33L, 17L));
      }
      try (VectorSchemaRoot rows = ds.take(wanted, List.of("name"))) {
        assertThat(rows.getFieldVectors().size()).isEqualTo(1);
        assertThat(List.of(1, 2, 3).stream().map(i -> rows.getVector("name").getObject(i).toString()).toList()).isEqualTo(List.of("name-0", "name-33", "name-33"));
        assertThat(rows.getVector("name").isNull(0)).isTrue(); // row 59 has a null name
      }
      NotFoundException e =
          assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> ds.take(new long[]{RowAddress.of(1, 30)}, List.of())).actual();
      assertThat(e.getMessage()).contains("fragment 1, offset 30");
      assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> ds.take(new long[]{RowAddress.of(9, 0)}, List.of()));
    }
  }

  @Test
  void largeAppendsSplitIntoFragmentsAndBatches() {
    options = options.toBuilder().maxRowsPerFragment(100).rowsPerBatch(32).build();
    try (Dataset ds = create(0, 250)) {
      assertThat(ds.manifest().fragments().stream().map(io.quiver.manifest.Fragment::physicalRows).toList()).isEqualTo(List.of(100L, 100L, 50L));
      assertThat(scanIds(ds.newScan().batchSize(1000).open())).isEqualTo(range(0, 250));
      assertThat(scanIds(ds.newScan().batchSize(3).open())).isEqualTo(range(0, 250));
    }
  }

  @Test
  void batchesThatDoNotMatchTheSchemaCommitNothing() {
    try (Dataset ds = create(0, 5)) {
      Schema wrongType =
          new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null)));
      try (VectorSchemaRoot bad = VectorSchemaRoot.create(wrongType, allocator)) {
        bad.setRowCount(0);
        SchemaMismatchException e = assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(() -> ds.append(List.of(bad))).actual();
        assertThat(e.getMessage()).contains("1 columns [id] but the table has 4");
      }
      Schema renamed = new Schema(SampleTable.SCHEMA.getFields().stream()
          .map(f -> f.getName().equals("name") ? new Field("nom", f.getFieldType(), f.getChildren()) : f).toList());
      try (VectorSchemaRoot bad = VectorSchemaRoot.create(renamed, allocator)) {
        bad.setRowCount(0);
        SchemaMismatchException e = assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(() -> ds.append(List.of(bad))).actual();
        assertThat(e.getMessage()).contains("expected name 'name', found 'nom'");
      }
      try (VectorSchemaRoot nullIds = SampleTable.batch(allocator, 100, 3)) {
        ((BigIntVector) nullIds.getVector("id")).setNull(1);
        SchemaMismatchException e = assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(() -> ds.append(List.of(nullIds))).actual();
        assertThat(e.getMessage()).contains("non-nullable");
      }
      assertThat(ds.latestVersion()).isEqualTo(1);
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(0, 5));
      assertThat(store.listAll("data/").stream()
          .filter(o -> !ds.manifest().fragments().get(0).files().get(0).path().equals(o.key())).toList()).isEqualTo(List.of());
    }
  }

  @Test
  void reservedColumnNamesAreRejectedAtCreate() {
    Schema bad = new Schema(List.of(new Field("_rowid", FieldType.nullable(new ArrowType.Int(64, true)), null)));
    InvalidSchemaException e = assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> Dataset.create(URI_, bad, List.of(), options)).actual();
    assertThat(e.getMessage()).contains("_rowid");
    assertThat(store.listAll("")).isEqualTo(List.of());
  }

  @Test
  void versionInfoDescribesOneVersionAsVersionsListsIt() {
    try (Dataset ds = create(0, 40)) {
      append(ds, 40, 25);
      ds.updateConfig(java.util.Map.of("k", "v"), java.util.Set.of());
      List<VersionInfo> listed = ds.versions();
      for (VersionInfo expected : listed) {
        assertThat(ds.versionInfo(expected.version())).isEqualTo(expected);
      }
      assertThat(ds.versionInfo(2).operation()).isEqualTo("append");
      assertThat(ds.versionInfo(3).operation()).isEqualTo("update-config");
      try (Dataset old = ds.checkout(1)) {
        assertThat(old.versionInfo(3).rows()).as("any version, whatever the handle's").isEqualTo(65);
      }
      VersionNotFoundException v = assertThatExceptionOfType(VersionNotFoundException.class)
          .isThrownBy(() -> ds.versionInfo(9)).actual();
      assertThat(v.version()).isEqualTo(9);
      assertThat(v.getMessage()).contains("version 9").contains("latest version is 3");
    }
  }

  @Test
  void missingTablesVersionsAndDuplicatesAreTypedErrors() {
    assertThatExceptionOfType(TableNotFoundException.class).isThrownBy(() -> Dataset.open(URI_, options));
    try (Dataset ds = create(0, 1)) {
      TableAlreadyExistsException e = assertThatExceptionOfType(TableAlreadyExistsException.class).isThrownBy(() -> create(0, 1)).actual();
      assertThat(e.getMessage()).contains("latest version 1");
      VersionNotFoundException v = assertThatExceptionOfType(VersionNotFoundException.class).isThrownBy(() -> ds.checkout(99)).actual();
      assertThat(v.getMessage()).contains("version 99").contains("latest version is 1");
    }
  }

  @Test
  void overwriteReplacesRowsAndOldVersionsStillScan() {
    try (Dataset ds = create(0, 10)) {
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 500, 4)) {
        assertThat(ds.overwrite(SampleTable.SCHEMA, List.of(b))).isEqualTo(2);
      }
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(500, 504));
      assertThat(ds.manifest().fragments().get(0).id()).as("fragment ids are never reused").isEqualTo(1);
      try (Dataset v1 = ds.checkout(1)) {
        assertThat(scanIds(v1.newScan().open())).isEqualTo(range(0, 10));
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
          assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> Dataset.open(URI_, optionsFor(store).session(new Session(1 << 20)).build())).actual();
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
        CorruptFileException e = assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> scanIds(fresh.newScan().open())).actual();
        assertThat(e.getMessage()).contains(store.locationOf(key));
      }
    }
  }
}
