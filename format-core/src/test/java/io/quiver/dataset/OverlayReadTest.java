package io.quiver.dataset;

import static io.quiver.dataset.OverlayTestSupport.expected;
import static io.quiver.dataset.OverlayTestSupport.names;
import static io.quiver.dataset.OverlayTestSupport.rows;
import static io.quiver.dataset.OverlayTestSupport.scanRows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.OverlayTestSupport.Row;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.NotFoundException;
import io.quiver.internal.txn.Operation;
import io.quiver.manifest.Coverage;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import io.quiver.schema.Schema;
import io.quiver.store.MemoryObjectStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.buffer.MutableRoaringBitmap;

/** Reads merge hand-built overlays: precedence, nulls, per-field coverage, struct validity, tombstones. */
class OverlayReadTest {
  private static final int NAME = 2;
  private static final int X = 4;
  private static final int ROWS = 40;

  private RootAllocator allocator;
  private MemoryObjectStore store;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(OverlayTestSupport.URI_);
    options = OverlayTestSupport.options(allocator, store, 16);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** Commits an overlay of "name" on fragment 0 with Shared coverage of the given offsets. */
  private Manifest nameOverlay(Manifest base, int[] offsets, List<String> values) {
    DataFile file;
    try (VectorSchemaRoot batch = names(allocator, values)) {
      file = OverlayTestSupport.writeOverlayFile(store, allocator, batch, List.of(NAME), 2);
    }
    Overlay overlay = new Overlay(file, new Coverage.Shared(MutableRoaringBitmap.bitmapOf(offsets)), 0);
    return OverlayTestSupport.commit(store, base,
        new Operation.Update(List.of(new Operation.FragmentOverlays(0, List.of(overlay))), Set.of()));
  }

  @Test
  void overlayPrecedence_threeOverlaysOneNullOverrideOneDeletedRow() {
    Manifest m;
    try (Dataset ds = OverlayTestSupport.create(allocator, options, 0, ROWS)) {
      m = ds.manifest();
    }
    // Oldest to newest; coverage overlaps; B overrides offset 10 with a null; 17 is then deleted.
    m = nameOverlay(m, new int[] {1, 2, 3, 10, 20, 30}, List.of("a1", "a2", "a3", "a10", "a20", "a30"));
    m = nameOverlay(m, new int[] {2, 10, 17, 30}, Arrays.asList("b2", null, "b17", "b30"));
    m = nameOverlay(m, new int[] {3, 20, 30, 33}, List.of("c3", "c20", "c30", "c33"));
    m = OverlayTestSupport.delete(store, m, 0, 17);
    assertThat(m.version()).isEqualTo(5);

    Map<Long, String> names = new HashMap<>();
    for (long id = 0; id < ROWS; id++) {
      names.put(id, SampleTable.expectedName(id));
    }
    names.putAll(Map.of(1L, "a1", 2L, "b2", 3L, "c3", 20L, "c20", 30L, "c30", 33L, "c33"));
    names.put(10L, null);
    names.remove(17L);

    try (Dataset ds = Dataset.open(OverlayTestSupport.URI_, options)) {
      for (int batchSize : new int[] {7, 16, 8192}) {
        Map<Long, Row> scanned = scanRows(ds.newScan().batchSize(batchSize).open());
        assertThat(scanned.keySet()).as("row 17 is deleted, batch size " + batchSize).isEqualTo(names.keySet());
        for (long id : names.keySet()) {
          Row want = expected(id);
          assertThat(scanned.get(id)).as("row " + id + ", batch size " + batchSize).isEqualTo(new Row(names.get(id), want.structNull(), want.x(), want.y(), want.tags()));
        }
      }
      // Take: any order, overlaid and plain rows mixed.
      long[] addresses = {33, 0, 10, 3, 2, 1, 30, 20, 5};
      try (VectorSchemaRoot taken = ds.take(addresses, List.of("id", "name"))) {
        VarCharVector name = (VarCharVector) taken.getVector("name");
        for (int i = 0; i < addresses.length; i++) {
          Object v = name.getObject(i);
          assertThat(v == null ? null : v.toString()).as("take of offset " + addresses[i]).isEqualTo(names.get(addresses[i]));
        }
      }
      assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> ds.take(new long[]{17}, List.of("name")).close());
      // Each older version sees exactly its overlays.
      try (Dataset v2 = ds.checkout(2)) {
        Map<Long, Row> scanned = scanRows(v2.newScan().open());
        assertThat(scanned.get(10L).name()).isEqualTo("a10");
        assertThat(scanned.get(2L).name()).isEqualTo("a2");
        assertThat(scanned.get(17L).name()).isEqualTo(SampleTable.expectedName(17));
      }
      try (Dataset v4 = ds.checkout(4)) {
        assertThat(scanRows(v4.newScan().open()).get(17L).name()).isEqualTo("b17");
      }
    }
  }

  @Test
  void perFieldCoverageOverlaysReadCorrectlyAndSetStructValidity() {
    Manifest m;
    try (Dataset ds = OverlayTestSupport.create(allocator, options, 0, ROWS)) {
      m = ds.manifest();
    }
    // Fields [name, s.x]: name covers {0, 5}, s.x covers {5, 6, 7}. Three rows; name's third row is padding.
    Schema projected = m.schema().project(List.of(NAME, X));
    DataFile file;
    try (VectorSchemaRoot batch = VectorSchemaRoot.create(projected.toArrow(), allocator)) {
      batch.allocateNew();
      VarCharVector name = (VarCharVector) batch.getVector("name");
      StructVector s = (StructVector) batch.getVector("s");
      IntVector x = (IntVector) s.getChild("x");
      name.setSafe(0, "n0".getBytes());
      name.setSafe(1, "n5".getBytes());
      name.setNull(2);
      x.setSafe(0, 500);
      x.setSafe(1, 600);
      x.setNull(2);
      for (int i = 0; i < 3; i++) {
        s.setIndexDefined(i);
      }
      batch.setRowCount(3);
      file = OverlayTestSupport.writeOverlayFile(store, allocator, batch, List.of(NAME, X), 2);
    }
    Overlay overlay = new Overlay(file, new Coverage.PerField(List.of(
        MutableRoaringBitmap.bitmapOf(0, 5), MutableRoaringBitmap.bitmapOf(5, 6, 7))), 0);
    OverlayTestSupport.commit(store, m,
        new Operation.Update(List.of(new Operation.FragmentOverlays(0, List.of(overlay))), Set.of()));

    try (Dataset ds = Dataset.open(OverlayTestSupport.URI_, options)) {
      Map<Long, Row> scanned = scanRows(ds.newScan().batchSize(6).open());
      assertThat(scanned.size()).isEqualTo(ROWS);
      for (long id = 0; id < ROWS; id++) {
        Row want = expected(id);
        if (id == 0) {
          want = new Row("n0", want.structNull(), want.x(), want.y(), want.tags());
        } else if (id == 5) {
          // s was null at 5; the overlay's struct is valid there, so s appears with the new x.
          assertThat(want.structNull()).isTrue();
          want = new Row("n5", false, 500, null, want.tags());
        } else if (id == 6) {
          want = new Row(want.name(), false, 600, "y6", want.tags());
        } else if (id == 7) {
          want = new Row(want.name(), false, null, "y7", want.tags()); // a covered null is a null
        }
        assertThat(scanned.get(id)).as("row " + id).isEqualTo(want);
      }
      // Projecting only s.y: the struct's validity still comes from the overlay on its member s.x.
      try (ArrowReader reader = ds.newScan().columns("s.y").open()) {
        List<Boolean> structNull = new ArrayList<>();
        while (reader.loadNextBatch()) {
          StructVector s = (StructVector) reader.getVectorSchemaRoot().getVector("s");
          for (int i = 0; i < reader.getVectorSchemaRoot().getRowCount(); i++) {
            structNull.add(s.isNull(i));
          }
        }
        for (int id = 0; id < ROWS; id++) {
          assertThat(structNull.get(id)).as("s null at " + id).isEqualTo(id != 5 && SampleTable.structIsNull(id));
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      try (VectorSchemaRoot taken = ds.take(new long[] {7, 5, 0}, List.of())) {
        Map<Long, Row> byId = rows(taken);
        assertThat(byId.get(5L)).isEqualTo(new Row("n5", false, 500, null, expected(5).tags()));
        assertThat(byId.get(7L).x()).isNull();
        assertThat(byId.get(0L).name()).isEqualTo("n0");
      }
    }
  }

  @Test
  void tombstonedOverlayColumnsAreIgnored() {
    Manifest m;
    try (Dataset ds = OverlayTestSupport.create(allocator, options, 0, ROWS)) {
      m = ds.manifest();
    }
    Schema projected = m.schema().project(List.of(NAME, X));
    DataFile file;
    try (VectorSchemaRoot batch = VectorSchemaRoot.create(projected.toArrow(), allocator)) {
      batch.allocateNew();
      ((VarCharVector) batch.getVector("name")).setSafe(0, "new".getBytes());
      StructVector s = (StructVector) batch.getVector("s");
      ((IntVector) s.getChild("x")).setSafe(0, -1);
      s.setIndexDefined(0);
      batch.setRowCount(1);
      DataFile written = OverlayTestSupport.writeOverlayFile(store, allocator, batch, List.of(NAME, X), 16);
      // s.x was superseded in place: its column is tombstoned.
      file = new DataFile(written.path(), List.of(NAME, DataFile.TOMBSTONE), List.of(0, 1), 1, 0,
          written.sizeBytes(), java.util.OptionalInt.empty());
    }
    Overlay overlay = new Overlay(file, new Coverage.Shared(MutableRoaringBitmap.bitmapOf(4)), 0);
    OverlayTestSupport.commit(store, m,
        new Operation.Update(List.of(new Operation.FragmentOverlays(0, List.of(overlay))), Set.of()));
    try (Dataset ds = Dataset.open(OverlayTestSupport.URI_, options)) {
      Row want = expected(4);
      assertThat(scanRows(ds.newScan().open()).get(4L)).isEqualTo(new Row("new", want.structNull(), want.x(), want.y(), want.tags()));
    }
  }

  @Test
  void anOverlayFileWithTheWrongRowCountIsReportedAsCorrupt() {
    Manifest m;
    try (Dataset ds = OverlayTestSupport.create(allocator, options, 0, ROWS)) {
      m = ds.manifest();
    }
    m = nameOverlay(m, new int[] {1, 2}, List.of("one", "two", "three")); // three rows for two offsets
    try (Dataset ds = Dataset.open(OverlayTestSupport.URI_, options)) {
      CorruptFileException e = assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> scanRows(ds.newScan().open())).actual();
      assertThat(e.getMessage().contains("holds 3 rows")).as(e.getMessage()).isTrue();
    }
  }
}
