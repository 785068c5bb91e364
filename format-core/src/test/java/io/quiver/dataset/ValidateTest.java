package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.ValidationReport.Kind;
import io.quiver.dataset.ValidationReport.Problem;
import io.quiver.exceptions.ValidationException;
import io.quiver.internal.codec.MetadataCodec;
import io.quiver.internal.file.DataFileWriter;
import io.quiver.internal.file.WrittenFile;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.Transaction;
import io.quiver.manifest.ColumnStats;
import io.quiver.manifest.Coverage;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.DeletionFile;
import io.quiver.manifest.FileStats;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import io.quiver.manifest.StatValue;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.buffer.MutableRoaringBitmap;

/** Dataset.validate(): clean tables validate clean; each kind of damage is reported with its kind and path. */
class ValidateTest {
  private static final String URI_ = "test://validate";
  private static final List<Integer> ATOMIC_IDS = List.of(1, 2, 4, 5, 6); // id, name, s.x, s.y, tags
  private RootAllocator allocator;
  private CleanupTestClock clock;
  private MemoryObjectStore store;
  private Session session;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    clock = new CleanupTestClock(Instant.parse("2024-01-01T00:00:00Z"));
    store = new MemoryObjectStore(URI_, clock);
    session = new Session(1 << 20);
    ObjectStoreProvider provider =
        TestStores.provider("test", () -> store);
    options =
        DatasetOptions.builder()
            .allocator(allocator)
            .session(session)
            .registry(ObjectStores.empty().register(provider))
            .rowsPerBatch(16)
            .clock(clock)
            .build();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  // ---------------------------------------------------------------- helpers

  /** A table whose latest version has fragments 0 (40 rows), 1 (10 rows) and 2 (10 rows). */
  private void threeFragments() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 40);
        Dataset ds = Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options)) {
      append(ds, 40, 10);
      append(ds, 50, 10);
    }
  }

  private void append(Dataset ds, long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      ds.append(List.of(b));
    }
  }

  private Manifest latest() {
    try (Dataset ds = Dataset.open(URI_, options)) {
      return ds.manifest();
    }
  }

  /**
   * Commits, as the next version, the latest manifest with its fragments edited: the way a buggy or
   * hostile writer would, bypassing every check of the commit path.
   */
  private void commitEdited(UnaryOperator<List<Fragment>> edit) {
    Manifest base = latest();
    Transaction txn =
        new Transaction(UUID.randomUUID().toString(), base.version(), new Operation.Append(List.of()), Map.of());
    store.write(txn.path(), MetadataCodec.encodeTransaction(txn));
    Manifest edited =
        new Manifest(
            base.version() + 1, base.schema(), edit.apply(new ArrayList<>(base.fragments())), base.maxFragmentId(),
            base.maxFieldId(), clock.instant(), "test", base.config(), txn.uuid(), txn.path(), Set.of(), Set.of());
    assertThat(store.putIfAbsent(ObjectStoreCommitStore.manifestKey(edited.version()), MetadataCodec.encodeManifest(edited, txn))).isEqualTo(ObjectStore.PutResult.CREATED);
  }

  /** Replaces fragment {@code index}'s only data file. */
  private void commitWithFile(int index, UnaryOperator<DataFile> edit) {
    commitEdited(fragments -> {
      Fragment f = fragments.get(index);
      fragments.set(index, f.with(List.of(edit.apply(f.files().get(0))), f.deletionFile(), f.overlays()));
      return fragments;
    });
  }

  private static DataFile withColumns(DataFile d, List<Integer> fieldIds, List<Integer> columns) {
    return new DataFile(d.path(), fieldIds, columns, d.formatMajor(), d.formatMinor(), d.sizeBytes(), OptionalInt.empty());
  }

  private ValidationReport validate() {
    try (Dataset ds = Dataset.open(URI_, options)) {
      return ds.validate();
    }
  }

  private static void assertOnlyProblem(ValidationReport report, Kind kind, String location) {
    assertThat(report.problems().size()).as(() -> report.toString()).isEqualTo(1);
    Problem p = report.problems().get(0);
    assertThat(p.kind()).as(p::toString).isEqualTo(kind);
    assertThat(p.location()).as(p::toString).isEqualTo(location);
    assertThat(report.isValid()).isFalse();
  }

  private String bitmapFile(int... offsets) {
    RoaringBitmap bitmap = RoaringBitmap.bitmapOf(offsets);
    ByteBuffer buffer = ByteBuffer.allocate(bitmap.serializedSizeInBytes());
    bitmap.serialize(buffer);
    return writeDeletionBytes(buffer.array());
  }

  private String writeDeletionBytes(byte[] bytes) {
    String path = DeletionFile.DELETIONS_PREFIX + UUID.randomUUID() + ".bin";
    store.write(path, bytes);
    return path;
  }

  private long size(String key) {
    return store.head(key).orElseThrow().size();
  }

  // ---------------------------------------------------------------- valid tables

  @Test
  void everyVersionOfATableBuiltThroughTheApiValidatesClean() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 40);
        Dataset ds = Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options)) {
      append(ds, 40, 25);
      try (VectorSchemaRoot o = SampleTable.batch(allocator, 100, 33)) {
        ds.overwrite(SampleTable.SCHEMA, List.of(o));
      }
      append(ds, 133, 1);
      CleanupTest.commitDelete(store, session, clock, ds.manifest(), 2, 0, 5, 32); // v5: deletes in fragment 2
      for (long v = 1; v <= 5; v++) {
        try (Dataset at = ds.checkout(v)) {
          ValidationReport report = at.validate();
          assertThat(report.isValid()).as(report::toString).isTrue();
          assertThat(report.version()).isEqualTo(v);
          assertThat(report.orThrow()).isSameAs(report);
          assertThat(report.filesChecked()).isGreaterThanOrEqualTo(at.manifest().fragments().size() + 1L);
        }
      }
      try (Dataset v5 = ds.checkout(5)) {
        assertThat(v5.validate().filesChecked()).isEqualTo(1 + 1 + 1 + 1); // 2 data files, 1 deletion file, 1 txn file
      }
    }
  }

  @Test
  void aTombstonedColumnIsValid() {
    threeFragments();
    commitWithFile(0, d -> withColumns(d, List.of(1, DataFile.TOMBSTONE, 4, 5, 6), List.of(0, 1, 2, 3, 4)));
    ValidationReport report = validate();
    assertThat(report.isValid()).as(report::toString).isTrue();
  }

  // ---------------------------------------------------------------- damaged files

  @Test
  void aMissingDataFileIsReported() {
    threeFragments();
    String path = latest().fragments().get(1).files().get(0).path();
    store.delete(path);
    assertOnlyProblem(validate(), Kind.MISSING_FILE, path);
  }

  @Test
  void aTruncatedDataFileIsReported() {
    threeFragments();
    String path = latest().fragments().get(2).files().get(0).path();
    byte[] bytes = store.read(path);
    store.write(path, Arrays.copyOf(bytes, bytes.length / 2));
    ValidationReport report = validate();
    assertOnlyProblem(report, Kind.SIZE_MISMATCH, path);
    assertThat(report.problems().get(0).message()).contains(String.valueOf(bytes.length / 2))
        .contains(String.valueOf(bytes.length));
  }

  @Test
  void aDataFileWithAnUnreadableFooterIsReported() {
    threeFragments();
    String path = latest().fragments().get(0).files().get(0).path();
    store.write(path, new byte[(int) size(path)]); // same size, all zeros
    assertOnlyProblem(validate(), Kind.CORRUPT_FILE, path);
  }

  @Test
  void aMissingTransactionFileIsReported() {
    threeFragments();
    String path = latest().transactionPath();
    store.delete(path);
    assertOnlyProblem(validate(), Kind.MISSING_FILE, path);
  }

  // ---------------------------------------------------------------- hand-crafted manifests

  @Test
  void aWrongSizeInTheManifestIsReported() {
    threeFragments();
    String path = latest().fragments().get(1).files().get(0).path();
    commitWithFile(1, d -> new DataFile(d.path(), d.fieldIds(), d.columnIndices(), 1, 0, d.sizeBytes() + 8,
        OptionalInt.empty()));
    assertOnlyProblem(validate(), Kind.SIZE_MISMATCH, path);
  }

  @Test
  void swappedColumnIndicesAreReported() {
    threeFragments();
    String path = latest().fragments().get(0).files().get(0).path();
    // id (int64) and name (utf8) point at each other's columns.
    commitWithFile(0, d -> withColumns(d, ATOMIC_IDS, List.of(1, 0, 2, 3, 4)));
    ValidationReport report = validate();
    assertThat(report.problems().size()).as(report::toString).isEqualTo(2);
    for (Problem p : report.problems()) {
      assertThat(p.kind()).isEqualTo(Kind.COLUMN_MISMATCH);
      assertThat(p.location()).isEqualTo(path);
    }
    assertThat(report.problems().get(0).message()).contains("'id'").contains("Int(64, true)").contains("Utf8");
  }

  @Test
  void aColumnIndexBeyondTheFileIsReported() {
    threeFragments();
    String path = latest().fragments().get(2).files().get(0).path();
    commitWithFile(2, d -> withColumns(d, ATOMIC_IDS, List.of(0, 1, 2, 3, 7)));
    ValidationReport report = validate();
    assertOnlyProblem(report, Kind.COLUMN_MISMATCH, path);
    assertThat(report.problems().get(0).message()).contains("atomic column 7").contains("5 atomic columns");
  }

  @Test
  void aFieldIdThatIsNotAnAtomicFieldIsReported() {
    threeFragments();
    String path = latest().fragments().get(0).files().get(0).path();
    // 3 is the struct 's' (not atomic), 99 does not exist.
    commitWithFile(0, d -> withColumns(d, List.of(1, 3, 4, 5, 99), List.of(0, 1, 2, 3, 4)));
    ValidationReport report = validate();
    assertThat(report.problems().stream().map(Problem::kind).toList()).as(report::toString).isEqualTo(List.of(Kind.UNKNOWN_FIELD, Kind.UNKNOWN_FIELD));
    assertThat(report.problems()).allMatch(p -> p.location().equals(path));
  }

  @Test
  void physicalRowsThatDisagreeWithTheFileAreReported() {
    threeFragments();
    String path = latest().fragments().get(1).files().get(0).path();
    commitEdited(fragments -> {
      Fragment f = fragments.get(1);
      fragments.set(1, new Fragment(f.id(), f.files(), Optional.empty(), 11, List.of()));
      return fragments;
    });
    assertOnlyProblem(validate(), Kind.ROW_COUNT_MISMATCH, path);
  }

  @Test
  void aFragmentWithoutItsNonNullableFieldIsReported() {
    threeFragments();
    commitEdited(fragments -> {
      Fragment f = fragments.get(2);
      // Keep every field but "id" (non-nullable): the file is re-listed without it.
      DataFile d = f.files().get(0);
      fragments.set(2, f.with(List.of(withColumns(d, List.of(2, 4, 5, 6), List.of(1, 2, 3, 4))), Optional.empty(),
          List.of()));
      return fragments;
    });
    assertOnlyProblem(validate(), Kind.MISSING_REQUIRED_FIELD, "fragment 2");
  }

  @Test
  void damagedDeletionFilesAreReportedEachWithItsKindAndPath() {
    threeFragments();
    String outOfRange = bitmapFile(3, 45); // fragment 0 has 40 rows
    String countMismatch = bitmapFile(1, 2); // recorded as 3
    String notABitmap = writeDeletionBytes("definitely not a bitmap".getBytes(StandardCharsets.UTF_8));
    commitEdited(fragments -> {
      fragments.set(0, withDeletion(fragments.get(0), new DeletionFile(outOfRange, 2, size(outOfRange))));
      fragments.set(1, withDeletion(fragments.get(1), new DeletionFile(countMismatch, 3, size(countMismatch))));
      fragments.set(2, withDeletion(fragments.get(2), new DeletionFile(notABitmap, 1, size(notABitmap))));
      return fragments;
    });
    ValidationReport report = validate();
    assertThat(report.problems().size()).as(report::toString).isEqualTo(3);
    assertThat(report.problems().get(0)).isEqualTo(new Problem(Kind.DELETION_OUT_OF_RANGE, outOfRange, report.problems().get(0).message()));
    assertThat(report.problems().get(0).message()).contains("offset 45").contains("40 physical rows");
    assertThat(report.problems().get(1).kind()).isEqualTo(Kind.DELETION_COUNT_MISMATCH);
    assertThat(report.problems().get(1).location()).isEqualTo(countMismatch);
    assertThat(report.problems().get(2).kind()).isEqualTo(Kind.CORRUPT_FILE);
    assertThat(report.problems().get(2).location()).isEqualTo(notABitmap);
  }

  @Test
  void missingAndResizedDeletionFilesAreReported() {
    threeFragments();
    String gone = bitmapFile(1);
    String resized = bitmapFile(2);
    store.delete(gone);
    commitEdited(fragments -> {
      fragments.set(0, withDeletion(fragments.get(0), new DeletionFile(gone, 1, 20)));
      fragments.set(1, withDeletion(fragments.get(1), new DeletionFile(resized, 1, size(resized) + 1)));
      return fragments;
    });
    ValidationReport report = validate();
    assertThat(report.problems()).isEqualTo(List.of(new Problem(Kind.MISSING_FILE, gone, report.problems().get(0).message()),
        new Problem(Kind.SIZE_MISMATCH, resized, report.problems().get(1).message())));
  }

  private static Fragment withDeletion(Fragment f, DeletionFile d) {
    return f.with(f.files(), Optional.of(d), f.overlays());
  }

  @Test
  void overlaysOutOfOrderOrWithTheWrongRowCountAreReported() {
    threeFragments();
    long version = latest().version() + 1;
    String threeRows = overlayFile(3);
    String twoRows = overlayFile(2);
    Coverage twoOffsets = new Coverage.Shared(MutableRoaringBitmap.bitmapOf(1, 2));
    commitEdited(fragments -> {
      Fragment f = fragments.get(0);
      List<Overlay> overlays = List.of(
          new Overlay(overlayDataFile(threeRows), twoOffsets, version - 1), // 3 rows for 2 offsets
          new Overlay(overlayDataFile(twoRows), twoOffsets, version - 2)); // older after newer
      fragments.set(0, f.with(f.files(), Optional.empty(), overlays));
      Fragment g = fragments.get(1);
      fragments.set(1, g.with(g.files(), Optional.empty(),
          List.of(new Overlay(overlayDataFile(twoRows), twoOffsets, version + 1)))); // from the future
      return fragments;
    });
    ValidationReport report = validate();
    assertThat(report.problems().size()).as(report::toString).isEqualTo(3);
    assertThat(report.problems().get(0).kind()).isEqualTo(Kind.ROW_COUNT_MISMATCH);
    assertThat(report.problems().get(0).location()).isEqualTo(threeRows);
    assertThat(report.problems().get(1).kind()).isEqualTo(Kind.OVERLAY_ORDER);
    assertThat(report.problems().get(1).location()).isEqualTo(twoRows);
    assertThat(report.problems().get(2).kind()).isEqualTo(Kind.OVERLAY_ORDER);
    assertThat(report.problems().get(2).message()).contains("newer than version " + version);
  }

  /** An overlay file holding {@code rows} values of "name" (field id 2). */
  private String overlayFile(int rows) {
    Schema schema = new Schema(List.of(new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    String path = "data/" + UUID.randomUUID() + ".arrow";
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        DataFileWriter writer = new DataFileWriter(store, path, schema, allocator, 16)) {
      VarCharVector name = (VarCharVector) root.getVector("name");
      for (int i = 0; i < rows; i++) {
        name.setSafe(i, ("new-" + i).getBytes(StandardCharsets.UTF_8));
      }
      root.setRowCount(rows);
      writer.write(root);
      WrittenFile written = writer.finish();
      assertThat(written.rowCount()).isEqualTo(rows);
    }
    return path;
  }

  private DataFile overlayDataFile(String path) {
    return DataFile.of(path, List.of(2), size(path));
  }

  // ---------------------------------------------------------------- reporting

  @Test
  void orThrowRaisesATypedErrorListingEveryProblem() {
    threeFragments();
    String first = latest().fragments().get(0).files().get(0).path();
    String second = latest().fragments().get(1).files().get(0).path();
    store.delete(first);
    store.delete(second);
    ValidationReport report = validate();
    assertThat(report.problemsOf(Kind.MISSING_FILE).size()).isEqualTo(2);
    ValidationException e = assertThatExceptionOfType(ValidationException.class).isThrownBy(report::orThrow).actual();
    assertThat(e.getMessage()).contains("version 3").contains("2 problems").contains(first).contains(second);
    assertThat(e.problems().size()).isEqualTo(2);
    assertThat(e.problems().get(0)).startsWith("MISSING_FILE " + first);
  }

  // ---------------------------------------------------------------- column statistics

  /** Fragment 0's data file with the statistics of {@code fieldId} replaced by {@code edit}'s. */
  private static DataFile withColumnStats(DataFile d, int fieldId, UnaryOperator<ColumnStats> edit) {
    FileStats stats = d.stats().orElseThrow();
    List<ColumnStats> columns =
        stats.columns().stream().map(c -> c.fieldId() == fieldId ? edit.apply(c) : c).toList();
    return d.withStats(Optional.of(new FileStats(stats.rowCount(), columns)));
  }

  private static ColumnStats bounds(ColumnStats c, StatValue lower, StatValue upper) {
    return new ColumnStats(c.fieldId(), c.nullCount(), c.nanCount(), Optional.ofNullable(lower),
        Optional.ofNullable(upper), c.columnBytes());
  }

  private static StatValue utf8(String s) {
    return new StatValue.Bytes(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void boundsThatAValueFallsOutsideAreReportedNamingFragmentFileFieldAndBound() throws java.io.IOException {
    threeFragments(); // fragment 0: ids 0..39, names name-0..name-39 (every 7th from 3 null)
    String path = latest().fragments().get(0).files().get(0).path();
    commitWithFile(0, d -> withColumnStats(d, 1, c -> bounds(c, new StatValue.Int(0), new StatValue.Int(10))));
    ValidationReport report = validate();
    assertOnlyProblem(report, Kind.STATS_MISMATCH, path);
    assertThat(report.problems().get(0).message())
        .contains("fragment 0").contains("field 'id' (id 1)").contains("upper bound 10").contains("holds 39");

    commitWithFile(0, d -> withColumnStats(d, 2, c -> bounds(c, utf8("name-5"), c.upper().orElseThrow())));
    report = validate(); // the damaged id bounds of the version before are still there
    assertThat(report.problems()).hasSize(2).allSatisfy(p -> assertThat(p.location()).isEqualTo(path));
    assertThat(report.problems().get(1).kind()).isEqualTo(Kind.STATS_MISMATCH);
    assertThat(report.problems().get(1).message())
        .contains("fragment 0").contains("field 'name' (id 2)").contains("lower bound 'name-5'").contains("'name-0'");
    // Scans trust the bounds: the damage validate() reports is rows a filter misses.
    try (Dataset ds = Dataset.open(URI_, options)) {
      try (org.apache.arrow.vector.ipc.ArrowReader r = ds.newScan().filter(Predicate.eq("name", "name-1")).open()) {
        long rows = 0;
        while (r.loadNextBatch()) {
          rows += r.getVectorSchemaRoot().getRowCount();
        }
        assertThat(rows).isZero();
      }
    }
  }

  @Test
  void nullAndNaNCountsThatDifferFromTheValuesAreReported() {
    threeFragments();
    String path = latest().fragments().get(0).files().get(0).path();
    commitWithFile(0, d -> withColumnStats(d, 2, c -> new ColumnStats(c.fieldId(), 0, c.nanCount(), c.lower(),
        c.upper(), c.columnBytes())));
    ValidationReport report = validate();
    assertOnlyProblem(report, Kind.STATS_MISMATCH, path);
    assertThat(report.problems().get(0).message()).contains("field 'name' (id 2)").contains("count 0 nulls")
        .contains("holds 6");
  }

  @Test
  void statisticsThatContradictThemselvesOrTheFileAreReported() {
    threeFragments();
    String path = latest().fragments().get(0).files().get(0).path();
    commitWithFile(0, d -> {
      DataFile edited = withColumnStats(d, 1, c -> bounds(c, new StatValue.Int(50), new StatValue.Int(40)));
      edited = withColumnStats(edited, 4, c -> new ColumnStats(c.fieldId(), c.nullCount(), OptionalLong.of(0),
          c.lower(), c.upper(), 0));
      edited = withColumnStats(edited, 5, c -> bounds(c, new StatValue.Int(1), null));
      FileStats st = edited.stats().orElseThrow();
      List<ColumnStats> columns = new ArrayList<>(st.columns());
      columns.add(new ColumnStats(99, 0, OptionalLong.empty(), Optional.empty(), Optional.empty(), 0));
      return edited.withStats(Optional.of(new FileStats(41, columns)));
    });
    ValidationReport report = validate();
    List<String> messages = report.problemsOf(Kind.STATS_INCONSISTENT).stream().map(Problem::message).toList();
    assertThat(report.problems()).allSatisfy(p -> assertThat(p.location()).isEqualTo(path));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("count 41 rows but the file holds 40"));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("field id 99, which the file does not store"));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("field 's.x' (id 4)").contains("only floating-point"));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("'id' (id 1)").contains("lower bound 50 above upper bound 40"));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("'s.y' (id 5)").contains("Int bound"));
    // The inverted bounds are not valid either: 0 is below 50.
    assertThat(report.problemsOf(Kind.STATS_MISMATCH)).singleElement()
        .satisfies(p -> assertThat(p.message()).contains("'id' (id 1)").contains("lower bound 50"));
  }

  @Test
  void damagedStatisticsOfAnOverlayFileAreReportedAsTheOverlays() {
    threeFragments();
    try (Dataset ds = Dataset.open(URI_, options)) {
      ds.update(Predicate.eq("id", 7L), Map.of("name", "zzz"));
    }
    String path = latest().fragments().get(0).overlays().get(0).dataFile().path();
    commitEdited(fragments -> {
      Fragment f = fragments.get(0);
      Overlay o = f.overlays().get(0);
      DataFile damaged = withColumnStats(o.dataFile(), 2, c -> bounds(c, utf8("a"), utf8("b")));
      fragments.set(0, f.with(f.files(), f.deletionFile(),
          List.of(new Overlay(damaged, o.coverage(), o.committedVersion()))));
      return fragments;
    });
    ValidationReport report = validate();
    assertOnlyProblem(report, Kind.STATS_MISMATCH, path);
    assertThat(report.problems().get(0).message()).contains("overlay file of fragment 0")
        .contains("upper bound 'b'").contains("'zzz'");
  }

  /** A table of ids, strings longer than 16 code points (some supplementary) and doubles with NaN and nulls. */
  private static VectorSchemaRoot wideValues(RootAllocator allocator, Schema schema, long from, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector text = (VarCharVector) root.getVector("text");
    Float8Vector f = (Float8Vector) root.getVector("f");
    for (int i = 0; i < rows; i++) {
      long v = from + i;
      id.setSafe(i, v);
      if (v % 5 == 0) {
        text.setNull(i);
      } else {
        String prefix = v % 3 == 0 ? "\uD83D\uDE00\uD83D\uDE00" : "\uFFFF\u00e9";
        text.setSafe(i, (prefix + "-a-rather-long-string-" + v).getBytes(StandardCharsets.UTF_8));
      }
      if (v % 7 == 0) {
        f.setNull(i);
      } else {
        f.setSafe(i, v % 4 == 0 ? Double.NaN : v % 6 == 0 ? -0.0 : v * 0.5 - 10);
      }
    }
    root.setRowCount(rows);
    return root;
  }

  @Test
  void healthyTablesWithOverlaysDeletesLongStringsNaNAndNullsValidateClean() {
    Schema schema = new Schema(List.of(
        new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
        new Field("text", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
        new Field("f", FieldType.nullable(new ArrowType.FloatingPoint(
            org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE)), null)));
    try (VectorSchemaRoot b = wideValues(allocator, schema, 0, 45);
        Dataset ds = Dataset.create(URI_, schema, List.of(b), options)) {
      try (VectorSchemaRoot more = wideValues(allocator, schema, 45, 20)) {
        ds.append(List.of(more));
      }
      ds.update(Predicate.eq("id", 8L), Map.of("text", "\uDBFF\uDFFF".repeat(20), "f", Double.NaN));
      ds.update(Predicate.lt("id", 3L), Map.of("f", 1e300));
      ds.update(Predicate.eq("id", 50L), Map.of("text", "short"));
      ds.delete(Predicate.gt("id", 60L));
      assertThat(ds.manifest().fragments().get(0).overlays()).isNotEmpty();
      ds.compact(CompactionOptions.defaults());
      for (long v = 1; v <= ds.version(); v++) {
        try (Dataset at = ds.checkout(v)) {
          assertThat(at.manifest().fragments()).allSatisfy(f -> assertThat(f.files().get(0).stats()).isPresent());
          ValidationReport report = at.validate();
          assertThat(report.isValid()).as(report::toString).isTrue();
        }
      }
    }
  }

  @Test
  void validationReadsEachDataFileOnceAndItsCompressedBuffersAgain() {
    io.quiver.store.CountingObjectStore counting = new io.quiver.store.CountingObjectStore(store);
    ObjectStoreProvider provider =
        TestStores.provider("test", () -> counting);
    DatasetOptions countingOptions =
        options.toBuilder().registry(ObjectStores.empty().register(provider)).rowsPerBatch(4096).build();
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 50_000);
        Dataset ds = Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), countingOptions)) {
      String path = ds.manifest().fragments().get(0).files().get(0).path();
      long fileBytes = ds.manifest().fragments().get(0).files().get(0).sizeBytes();
      long compressed = compressedBufferBytes(path);
      assertThat(compressed).as("the file has compressed buffers").isPositive();
      counting.reset();
      assertThat(ds.validate().isValid()).isTrue();
      // Footers, the body once to check the column statistics against the values, and the compressed
      // buffers once more to check the frame table (each frame decoded on its own).
      assertThat(counting.bytesRead()).isGreaterThanOrEqualTo(fileBytes / 2 + compressed)
          .isLessThan(fileBytes + fileBytes / 4 + compressed);
    }
  }

  /** Bytes of the buffers of a data file stored ZSTD-compressed (a positive declared length). */
  private long compressedBufferBytes(String path) {
    io.quiver.internal.file.DataFileMetadata md = new io.quiver.internal.file.DataFileReader(store,
        new io.quiver.internal.file.MetadataCache(1 << 20), io.quiver.internal.file.ReadOptions.defaults())
        .loadAllBatches(path);
    long total = 0;
    for (int b = 0; b < md.batchCount(); b++) {
      for (int k = 0; md.isCompressed(b) && k < md.bufferCount(); k++) {
        long[] range = md.bufferRange(b, k);
        if (range[1] >= 8 && ByteBuffer.wrap(store.readRange(path, range[0], 8)).order(java.nio.ByteOrder.LITTLE_ENDIAN)
            .getLong() > 0) {
          total += range[1];
        }
      }
    }
    return total;
  }
}
