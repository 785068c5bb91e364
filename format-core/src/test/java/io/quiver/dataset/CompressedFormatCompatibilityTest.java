package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.manifest.DataFile;
import io.quiver.manifest.Manifest;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.TestStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The compressed table under {@code compat/compressed-1.1/} (data-file format 1.1, ZSTD bodies with a plain
 * column, compressed overlays, a 1.0 file beside them; written once, never regenerated) reads cell for cell
 * at every version, by scan and by take, and takes commits on top. Expected values come from the formulas
 * of the fixture's README, not from the files.
 */
class CompressedFormatCompatibilityTest {
  private static final String URI_ = "memory://quiver-compat-compressed/table";
  private final RootAllocator allocator = new RootAllocator();

  @AfterEach
  void tearDown() {
    allocator.close(); // fails the test if any Arrow buffer leaked
  }

  private MemoryObjectStore copy() {
    try {
      return TestStores.loadDirectory(new MemoryObjectStore(URI_),
          Path.of(getClass().getResource("/compat/compressed-1.1/table").toURI()));
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private DatasetOptions options(MemoryObjectStore store) {
    return DatasetOptions.builder().allocator(allocator).session(new Session(4 << 20))
        .registry(TestStores.registry("memory", TestStores.keepOpen(store))).rowsPerBatch(16).build();
  }

  /** The expected cells of row {@code id} at {@code version}: name, emb (null or 8 floats), val, s.x, s.y, s null. */
  static List<Object> expected(long id, long version) {
    List<Object> row = new ArrayList<>();
    row.add(id % 11 == 3 ? null : "name-" + id / 3);
    if (id % 17 == 9) {
      row.add(null);
    } else {
      List<Float> emb = new ArrayList<>();
      for (int k = 0; k < 8; k++) {
        emb.add((float) Math.sin(id * 31.0 + k));
      }
      row.add(emb);
    }
    boolean updated = version >= 3 && (id == 5 || id == 65);
    row.add(updated ? Integer.valueOf(-1) : id % 13 == 5 ? null : Integer.valueOf((int) (id / 10)));
    boolean sNull = id % 19 == 7;
    row.add(sNull || id % 4 == 1 ? null : Integer.valueOf((int) (id * id % 1000)));
    row.add(sNull ? null : updated ? "upd" : "y" + id % 5);
    row.add(sNull);
    return row;
  }

  static List<Long> idsAt(long version) {
    List<Long> ids = new ArrayList<>();
    long end = version >= 6 ? 100 : version >= 2 ? 90 : 60;
    for (long i = 0; i < end; i++) {
      if (version >= 4 && (i == 7 || i == 70)) {
        continue;
      }
      ids.add(i);
    }
    return ids;
  }

  static Map<Long, List<Object>> cells(VectorSchemaRoot root, Map<Long, List<Object>> into) {
    BigIntVector id = (BigIntVector) root.getVector("id");
    FixedSizeListVector emb = (FixedSizeListVector) root.getVector("emb");
    StructVector s = (StructVector) root.getVector("s");
    for (int i = 0; i < root.getRowCount(); i++) {
      List<Object> row = new ArrayList<>();
      Object name = root.getVector("name").getObject(i);
      row.add(name == null ? null : name.toString());
      if (emb.isNull(i)) {
        row.add(null);
      } else {
        List<Float> values = new ArrayList<>();
        Float4Vector items = (Float4Vector) emb.getDataVector();
        for (int k = 0; k < 8; k++) {
          values.add(items.get(i * 8 + k));
        }
        row.add(values);
      }
      row.add(root.getVector("val").getObject(i));
      row.add(s.getChild("x").getObject(i));
      Object y = s.getChild("y").getObject(i);
      row.add(y == null ? null : y.toString());
      row.add(s.isNull(i));
      into.put(id.get(i), row);
    }
    return into;
  }

  private static Map<Long, List<Object>> scan(Dataset ds) {
    Map<Long, List<Object>> rows = new TreeMap<>();
    try (ArrowReader reader = ds.newScan().open()) {
      while (reader.loadNextBatch()) {
        cells(reader.getVectorSchemaRoot(), rows);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  private static void assertVersion(Dataset ds, long version) {
    Map<Long, List<Object>> rows = scan(ds);
    assertThat(rows.keySet()).as("ids at v" + version).containsExactlyElementsOf(idsAt(version));
    rows.forEach((id, row) -> assertThat(row).as("row " + id + " at v" + version).isEqualTo(expected(id, version)));
  }

  private static List<DataFile> files(Manifest m) {
    return CompressionTableTest.allFiles(m);
  }

  @Test
  void everyVersionReadsCellForCellAndCarriesTheReaderFeature() {
    MemoryObjectStore store = copy();
    try (Dataset latest = Dataset.open(URI_, options(store))) {
      assertThat(latest.version()).isEqualTo(6);
      for (long v = 1; v <= 6; v++) {
        try (Dataset ds = latest.checkout(v)) {
          assertThat(ds.manifest().readerFeatures()).as("v" + v).isEqualTo(Set.of(Manifest.COMPRESSION_FEATURE));
          assertVersion(ds, v);
        }
      }
      assertThat(files(latest.manifest())).extracting(DataFile::formatMinor).containsExactlyInAnyOrder(1, 1, 1, 1, 1, 0);
      assertThat(latest.config()).containsEntry("write.compression", "none").containsEntry("write.compression.level", "5");
      try (Dataset tagged = latest.checkout("mixed")) {
        assertThat(tagged.version()).isEqualTo(6);
      }
    }
  }

  @Test
  void takeReadsRandomRowsOfCompressedBatches() {
    MemoryObjectStore store = copy();
    try (Dataset ds = Dataset.open(URI_, options(store))) {
      Map<Long, Long> addressOf = new TreeMap<>();
      try (ArrowReader reader = ds.newScan().columns("id").withRowAddress(true).open()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot r = reader.getVectorSchemaRoot();
          for (int i = 0; i < r.getRowCount(); i++) {
            addressOf.put(((BigIntVector) r.getVector("id")).get(i), ((org.apache.arrow.vector.UInt8Vector) r.getVector(RowAddress.COLUMN)).get(i));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      List<Long> ids = idsAt(6);
      Random random = new Random(3);
      long[] addresses = new long[50];
      List<Long> wanted = new ArrayList<>();
      for (int i = 0; i < addresses.length; i++) {
        long id = ids.get(random.nextInt(ids.size()));
        wanted.add(id);
        addresses[i] = addressOf.get(id);
      }
      try (VectorSchemaRoot taken = ds.take(addresses, List.of())) {
        for (int i = 0; i < wanted.size(); i++) {
          assertThat(((BigIntVector) taken.getVector("id")).get(i)).isEqualTo(wanted.get(i));
        }
        cells(taken, new TreeMap<>()).forEach((id, row) -> assertThat(row).as("row " + id).isEqualTo(expected(id, 6)));
      }
    }
  }

  @Test
  void commitsOnTopWorkAndCompactionRecompresses() {
    MemoryObjectStore store = copy();
    try (Dataset ds = Dataset.open(URI_, options(store))) {
      ds.updateConfig(Map.of("write.compression", "zstd"), Set.of());
      ds.compact(CompactionOptions.defaults());
      assertThat(files(ds.manifest())).isNotEmpty().allMatch(f -> f.formatMinor() == 1);
      assertThat(ds.manifest().readerFeatures()).isEqualTo(Set.of(Manifest.COMPRESSION_FEATURE));
      assertVersion(ds, 6); // same rows and values as the fixture's last version
    }
  }
}
