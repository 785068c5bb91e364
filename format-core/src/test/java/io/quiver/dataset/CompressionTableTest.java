package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.TableNotFoundException;
import io.quiver.exceptions.UnsupportedFormatException;
import io.quiver.internal.codec.ManifestBytes;
import io.quiver.internal.file.DataFileMetadata;
import io.quiver.internal.file.DataFileReader;
import io.quiver.internal.file.MetadataCache;
import io.quiver.internal.file.ReadOptions;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.TestStores;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Body compression through the table: the configuration keys, the files every writing operation writes
 * (1.1 when compressed), the reader feature that follows them, and reads (scan, take) of compressed files
 * cell for cell.
 */
class CompressionTableTest {
  private static final int ROWS = 3000;
  private static final int DIM = 8;
  static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
      new Field("emb", FieldType.nullable(new ArrowType.FixedSizeList(DIM)),
          List.of(new Field("item", FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null))),
      new Field("val", FieldType.nullable(new ArrowType.Int(32, true)), null)));

  private final RootAllocator allocator = new RootAllocator();
  private final MemoryObjectStore store = new MemoryObjectStore("mem://compressed");
  private final DatasetOptions options = DatasetOptions.builder()
      .allocator(allocator)
      .session(new Session(1 << 20))
      .registry(TestStores.registry("test", TestStores.keepOpen(store)))
      .rowsPerBatch(512)
      .commitOptions(CommitOptions.defaults().withBackoff(java.time.Duration.ZERO, java.time.Duration.ZERO))
      .build();

  @AfterEach
  void close() {
    allocator.close(); // fails the test on a leaked buffer
  }

  // ---------------------------------------------------------------- expected values (functions of id)

  static String name(long id) {
    return id % 11 == 3 ? null : "name-" + (id / 3);
  }

  static Integer val(long id) {
    return id % 13 == 5 ? null : (int) (id / 10);
  }

  static float emb(long id, int k) {
    return (float) Math.sin(id * 31.0 + k); // incompressible-ish floats
  }

  static VectorSchemaRoot batch(BufferAllocator alloc, long from, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    FixedSizeListVector emb = (FixedSizeListVector) root.getVector("emb");
    Float4Vector items = (Float4Vector) emb.getDataVector();
    IntVector val = (IntVector) root.getVector("val");
    for (int i = 0; i < rows; i++) {
      long v = from + i;
      id.setSafe(i, v);
      if (name(v) == null) {
        name.setNull(i);
      } else {
        name.setSafe(i, name(v).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      emb.setNotNull(i);
      for (int k = 0; k < DIM; k++) {
        items.setSafe(i * DIM + k, emb(v, k));
      }
      if (val(v) == null) {
        val.setNull(i);
      } else {
        val.setSafe(i, val(v));
      }
    }
    items.setValueCount(rows * DIM);
    root.setRowCount(rows);
    return root;
  }

  private Dataset create(Map<String, String> config) {
    try (VectorSchemaRoot b = batch(allocator, 0, ROWS)) {
      return Dataset.create("test://t", SCHEMA, List.of(b), options, config);
    }
  }

  /** Every row of the version, checked against the formulas; returns the ids in scan order. */
  static List<Long> checkScan(Dataset ds) {
    List<Long> ids = new ArrayList<>();
    try (var reader = ds.newScan().open()) {
      while (reader.loadNextBatch()) {
        checkRows(reader.getVectorSchemaRoot(), ids);
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return ids;
  }

  static void checkRows(VectorSchemaRoot root, List<Long> ids) {
    BigIntVector id = (BigIntVector) root.getVector("id");
    FixedSizeListVector emb = (FixedSizeListVector) root.getVector("emb");
    for (int i = 0; i < root.getRowCount(); i++) {
      long v = id.get(i);
      ids.add(v);
      Object n = root.getVector("name").getObject(i);
      assertThat(n == null ? null : n.toString()).as("name of " + v).isEqualTo(name(v));
      assertThat(root.getVector("val").getObject(i)).as("val of " + v).isEqualTo(val(v));
      Float4Vector items = (Float4Vector) emb.getDataVector();
      for (int k = 0; k < DIM; k++) {
        assertThat(items.get(i * DIM + k)).as("emb[" + k + "] of " + v).isEqualTo(emb(v, k));
      }
    }
  }

  /** Every data file of the version: base files and overlays. */
  static List<DataFile> allFiles(Manifest m) {
    List<DataFile> files = new ArrayList<>();
    for (Fragment f : m.fragments()) {
      files.addAll(f.files());
      f.overlays().forEach(o -> files.add(o.dataFile()));
    }
    return files;
  }

  private DataFileMetadata metadata(DataFile file) {
    return new DataFileReader(store, new MetadataCache(1 << 20), ReadOptions.defaults()).metadata(file.path());
  }

  // ---------------------------------------------------------------- tests

  @Test
  void aNewTableIsCompressedByDefaultAndReadsCellForCellByScanAndTake() {
    try (Dataset ds = create(Map.of())) {
      assertThat(ds.manifest().readerFeatures()).contains(Manifest.COMPRESSION_FEATURE);
      for (DataFile f : allFiles(ds.manifest())) {
        assertThat(f.formatMinor()).as(f.path()).isEqualTo(1);
        DataFileMetadata md = metadata(f);
        assertThat(md.formatMinor()).isEqualTo(1);
        for (int b = 0; b < md.batchCount(); b++) {
          assertThat(md.compression(b)).isEqualTo("ZSTD");
        }
      }
      List<Long> ids = checkScan(ds);
      assertThat(ids).hasSize(ROWS);
      // take: random rows of compressed batches, in the order asked
      Random random = new Random(17);
      long fragment = ds.manifest().fragments().get(0).id();
      long[] addresses = new long[200];
      List<Long> wanted = new ArrayList<>();
      for (int i = 0; i < addresses.length; i++) {
        int offset = random.nextInt(ROWS);
        addresses[i] = RowAddress.of(fragment, offset);
        wanted.add((long) offset);
      }
      try (VectorSchemaRoot taken = ds.take(addresses, List.of())) {
        List<Long> got = new ArrayList<>();
        checkRows(taken, got);
        assertThat(got).isEqualTo(wanted);
      }
    }
  }

  @Test
  void theReaderFeatureFollowsTheFiles() {
    try (Dataset ds = create(Map.of("write.compression", "none"))) {
      assertThat(allFiles(ds.manifest())).allMatch(f -> f.formatMinor() == 0);
      assertThat(ds.manifest().readerFeatures()).doesNotContain(Manifest.COMPRESSION_FEATURE);
      ds.updateConfig(Map.of("write.compression", "zstd", "write.compression.level", "9"), Set.of());
      assertThat(ds.manifest().readerFeatures()).as("enabling alone commits no compressed file")
          .doesNotContain(Manifest.COMPRESSION_FEATURE);
      try (VectorSchemaRoot b = batch(allocator, ROWS, 500)) {
        ds.append(List.of(b));
      }
      assertThat(ds.manifest().readerFeatures()).contains(Manifest.COMPRESSION_FEATURE);
      assertThat(allFiles(ds.manifest())).extracting(DataFile::formatMinor).containsExactlyInAnyOrder(0, 1);
      assertThat(checkScan(ds)).hasSize(ROWS + 500);
      // An update writes compressed overlays; a computed column is compressed too.
      ds.update(Predicate.lt("id", 100L), Map.of("val", 7));
      ds.columns().add(List.of(new Field("twice", FieldType.nullable(new ArrowType.Int(64, true)), null)),
          List.of("id"), (input, alloc) -> {
            BigIntVector in = (BigIntVector) input.getVector("id");
            BigIntVector out = new BigIntVector("twice", alloc);
            out.allocateNew(input.getRowCount());
            for (int i = 0; i < input.getRowCount(); i++) {
              out.set(i, 2 * in.get(i));
            }
            out.setValueCount(input.getRowCount());
            return new VectorSchemaRoot(List.of(out));
          });
      Fragment first = ds.manifest().fragments().get(0);
      assertThat(first.overlays()).isNotEmpty().allMatch(o -> o.dataFile().formatMinor() == 1);
      assertThat(first.files()).anyMatch(f -> f.formatMinor() == 1 && f.fieldIds().size() == 1);
      try (VectorSchemaRoot t = ds.take(new long[] {RowAddress.of(first.id(), 50), RowAddress.of(first.id(), 200)},
          List.of("val", "twice"))) {
        assertThat(t.getVector("val").getObject(0)).isEqualTo(7);
        assertThat(t.getVector("val").getObject(1)).isEqualTo(val(200));
        assertThat(t.getVector("twice").getObject(1)).isEqualTo(400L);
      }
      // Compaction with compression off rewrites every file as 1.0: older readers can read the table again.
      ds.updateConfig(Map.of("write.compression", "none"), Set.of());
      ds.compact(CompactionOptions.defaults());
      assertThat(allFiles(ds.manifest())).allMatch(f -> f.formatMinor() == 0);
      assertThat(ds.manifest().readerFeatures()).doesNotContain(Manifest.COMPRESSION_FEATURE);
      // Time travel: the compressed versions keep their feature and read back.
      try (Dataset v3 = ds.checkout(3)) { // v1 create, v2 config, v3 the first compressed append
        assertThat(v3.manifest().readerFeatures()).contains(Manifest.COMPRESSION_FEATURE);
        assertThat(checkScan(v3)).hasSize(ROWS + 500);
      }
    }
  }

  @Test
  void aReaderWithoutTheFeatureRefusesACompressedVersionNamingIt() {
    try (Dataset ds = create(Map.of())) {
      // The refusal a reader that predates compression gives: an unknown reader feature in the manifest.
      String key = ObjectStoreCommitStore.manifestKey(ds.version());
      byte[] original = store.read(key);
      store.write(key, ManifestBytes.rewrite(original, b -> b.getManifestBuilder().clearReaderFeatures()
          .addReaderFeatures(Manifest.COMPRESSION_FEATURE + "-v9")));
      UnsupportedFormatException e = assertThatExceptionOfType(UnsupportedFormatException.class)
          .isThrownBy(() -> Dataset.open("test://t", options).close()).actual();
      assertThat(e.getMessage()).contains("requires reader feature '" + Manifest.COMPRESSION_FEATURE + "-v9'")
          .contains("upgrade Quiver");
      store.write(key, original);
      io.quiver.internal.proto.ManifestFile file = ManifestBytes.decode(original);
      assertThat(file.getManifest().getReaderFeaturesList())
          .containsExactly(Manifest.COMPRESSION_FEATURE, Manifest.SEGMENTED_FEATURE);
    }
  }

  @Test
  void excludedColumnsAreStoredPlainById() {
    int valId;
    try (Dataset plain = create(Map.of("write.compression", "none"))) {
      valId = plain.manifest().schema().findField("val").orElseThrow().id();
    }
    MemoryObjectStore other = new MemoryObjectStore("mem://excluded");
    DatasetOptions otherOptions = DatasetOptions.builder().allocator(allocator).session(new Session(1 << 20))
        .registry(TestStores.registry("test", TestStores.keepOpen(other))).rowsPerBatch(512).build();
    try (VectorSchemaRoot b = batch(allocator, 0, ROWS);
        Dataset ds = Dataset.create("test://t", SCHEMA, List.of(b), otherOptions,
            Map.of("write.compression.exclude", "emb, " + valId))) {
      DataFile compressed = allFiles(ds.manifest()).get(0);
      DataFileMetadata md = new DataFileReader(other, new MetadataCache(1 << 20), ReadOptions.defaults())
          .metadata(compressed.path());
      try (Dataset plain = Dataset.open("test://t", options)) {
        DataFileMetadata p = metadata(allFiles(plain.manifest()).get(0));
        int batches = p.batchCount();
        // emb (validity, then the items' validity and values) and val (validity, values): raw, plus markers
        assertThat(md.projectedBodyBytes(new int[] {2})).isEqualTo(p.projectedBodyBytes(new int[] {2}) + batches * 3 * 8);
        assertThat(md.projectedBodyBytes(new int[] {3})).isEqualTo(p.projectedBodyBytes(new int[] {3}) + batches * 2 * 8);
        assertThat(md.projectedBodyBytes(new int[] {0})).isLessThan(p.projectedBodyBytes(new int[] {0}) / 2);
      }
      assertThat(checkScan(ds)).hasSize(ROWS);
    }
  }

  @Test
  void invalidCompressionSettingsAreRefusedNamingTheKey() {
    try (Dataset ds = create(Map.of())) {
      for (Map<String, String> bad : List.of(Map.of("write.compression", "lz4"),
          Map.of("write.compression.level", "99"), Map.of("write.compression.level", "fast"),
          Map.of("write.compression.min-savings", "1.5"), Map.of("write.compression.min-savings", "a lot"),
          Map.of("write.compression.exclude", "emb,,val"))) {
        String key = bad.keySet().iterator().next();
        assertThatExceptionOfType(InvalidArgumentException.class).as(bad.toString())
            .isThrownBy(() -> ds.updateConfig(bad, Set.of())).withMessageContaining(key)
            .withMessageContaining("expected");
      }
      assertThat(ds.config()).isEmpty();
    }
    MemoryObjectStore other = new MemoryObjectStore("mem://never");
    DatasetOptions otherOptions = DatasetOptions.builder().allocator(allocator)
        .registry(TestStores.registry("test", TestStores.keepOpen(other))).build();
    try (VectorSchemaRoot b = batch(allocator, 0, 10)) {
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() ->
          Dataset.create("test://t", SCHEMA, List.of(b), otherOptions, Map.of("write.compression", "gzip")))
          .withMessageContaining("zstd or none");
    }
    assertThatExceptionOfType(TableNotFoundException.class).isThrownBy(() -> Dataset.open("test://t", otherOptions));
  }
}
