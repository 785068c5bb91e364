package io.quiver.scenario;

import static io.quiver.dataset.StagedColumnSupport.intField;
import static io.quiver.dataset.StagedColumnSupport.ints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.ColumnSchema;
import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.OverlayTestSupport;
import io.quiver.dataset.SampleTable;
import io.quiver.dataset.StagedColumnSupport;
import io.quiver.dataset.StagedColumnWrite;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.InvalidSchemaException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.exceptions.StaleColumnWriteException;
import io.quiver.internal.txn.Operation;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.roaringbitmap.buffer.MutableRoaringBitmap;

/**
 * Catalogue section A (staged column writes: writeFragmentColumn / commitColumnWrites), written once
 * against a {@link ScenarioTable}. Every scenario starts from the sample table with ids [0, 4) in one
 * fragment plus int columns {@code v = id * 10} and {@code w = id * 100} in their own file, interleaves its
 * handles explicitly, checks the typed outcome and the values scanned back, and ends by validating the
 * table and scanning every sample field of the latest version.
 */
public final class StagedColumnScenarios implements AutoCloseable {
  private final ScenarioTable t;
  private final BufferAllocator allocator;
  private final DatasetOptions options;
  private final Dataset ds;

  private StagedColumnScenarios(ScenarioTable t) {
    this.t = t;
    this.allocator = t.allocator();
    // Small batches, so chunks and file batches interleave.
    this.options = t.options().toBuilder().rowsPerBatch(2).build();
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 4)) {
      this.ds = Dataset.create(t.uri(), SampleTable.SCHEMA, List.of(b), options);
    }
    // v = id * 10, stored in its own file: the existing field most scenarios rewrite.
    ds.columns().add(List.of(intField("v", true), intField("w", true)), List.of("id"), StagedColumnScenarios::tens);
  }

  private static void run(ScenarioTable t, Consumer<StagedColumnScenarios> body) {
    try (StagedColumnScenarios s = new StagedColumnScenarios(t)) {
      body.accept(s);
    }
    List<Long> ids = t.validateAndScanLatest();
    assertThat(ids.stream().allMatch(id -> id >= 0 && id < 6) && ids.size() == Set.copyOf(ids).size()).as(() -> "sample rows after the scenario: " + ids).isTrue();
  }

  @Override
  public void close() {
    ds.close();
  }

  /** {@code v = id * 10} and {@code w = id * 100} for the rows of {@code input}. */
  public static VectorSchemaRoot tens(VectorSchemaRoot input, BufferAllocator allocator) {
    BigIntVector id = (BigIntVector) input.getVector("id");
    VectorSchemaRoot out = VectorSchemaRoot.create(new org.apache.arrow.vector.types.pojo.Schema(
        List.of(intField("v", true), intField("w", true))), allocator);
    IntVector v = (IntVector) out.getVector(0);
    IntVector w = (IntVector) out.getVector(1);
    v.allocateNew(input.getRowCount());
    w.allocateNew(input.getRowCount());
    for (int i = 0; i < input.getRowCount(); i++) {
      v.set(i, (int) id.get(i) * 10);
      w.set(i, (int) id.get(i) * 100);
    }
    v.setValueCount(input.getRowCount());
    w.setValueCount(input.getRowCount());
    out.setRowCount(input.getRowCount());
    return out;
  }

  private StagedColumnWrite stage(Dataset handle, ColumnSchema schema, Integer... values) {
    try (ArrowReader reader = ints(allocator, schema.arrowSchema(), values)) {
      return handle.columns().writeFragment(0, reader, schema);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private void assertValid(Dataset handle) {
    try (Dataset latest = handle.checkoutLatest()) {
      assertThat(latest.validate().isValid()).as(() -> latest.validate().toString()).isTrue();
    }
  }

  private List<Integer> latest(String column) {
    try (Dataset latest = ds.checkoutLatest()) {
      return StagedColumnSupport.column(latest, column);
    }
  }

  private long dataFiles() {
    return t.store().listAll("data/").size();
  }

  /** Commits the latest state with fragment 0 changed by {@code change}, through a restore (keeps paths). */
  /**
   * Commits a version whose fragment 0 is changed in place (same file paths), as a foreign or future
   * writer could: no public Quiver operation remaps a column or an overlay's coverage in place. The
   * transaction is a harmless configuration change, so the conflict matrix lets the stale write through
   * to the manifest builder, and only the witness can catch the change.
   */
  private void rewriteFragmentInPlace(java.util.function.UnaryOperator<Fragment> change) {
    Manifest latest;
    try (Dataset handle = ds.checkoutLatest()) {
      latest = handle.manifest();
    }
    String uuid = java.util.UUID.randomUUID().toString();
    io.quiver.internal.txn.Transaction txn = new io.quiver.internal.txn.Transaction(uuid, latest.version(),
        new Operation.UpdateConfig(Map.of("test.rewritten-in-place", uuid), java.util.Set.of()), Map.of());
    Manifest built = new io.quiver.internal.txn.ManifestBuilder("quiver-test").build(
        java.util.Optional.of(latest), txn, java.time.Instant.now());
    List<Fragment> fragments = new ArrayList<>(built.fragments());
    fragments.set(0, change.apply(fragments.get(0)));
    Manifest edited = new Manifest(built.version(), built.schema(), fragments, built.maxFragmentId(),
        built.maxFieldId(), built.timestamp(), built.writerVersion(), built.config(), built.transactionUuid(),
        built.transactionPath(), built.readerFeatures(), built.writerFeatures());
    t.store().write(txn.path(), io.quiver.internal.codec.MetadataCodec.encodeTransaction(txn));
    assertThat(new io.quiver.store.ObjectStoreCommitStore(t.store())
        .claim(edited.version(), io.quiver.internal.codec.MetadataCodec.encodeManifest(edited, txn))).isEqualTo(io.quiver.store.CommitStore.ClaimResult.CLAIMED);
  }

  public static void a1_shortStreamIsRejectedAtWriteTimeAndItsFileDeleted(ScenarioTable t) {
    run(t, s -> s.a1_shortStreamIsRejectedAtWriteTimeAndItsFileDeletedBody());
  }

  private void a1_shortStreamIsRejectedAtWriteTimeAndItsFileDeletedBody() {
    ColumnSchema schema = ds.columns().newSchema(List.of(intField("n", true)), List.of(), List.of());
    long before = dataFiles();
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> stage(ds, schema, 1, 2, 3)).actual();
    assertThat(e.getMessage()).contains("expected exactly 4 rows").contains("fragment 0");
    assertThat(dataFiles()).isEqualTo(before);
    assertValid(ds);
  }

  public static void a2_longStreamIsRejectedAtWriteTimeAndItsFileDeleted(ScenarioTable t) {
    run(t, s -> s.a2_longStreamIsRejectedAtWriteTimeAndItsFileDeletedBody());
  }

  private void a2_longStreamIsRejectedAtWriteTimeAndItsFileDeletedBody() {
    ColumnSchema schema = ds.columns().newSchema(List.of(intField("n", true)), List.of(), List.of());
    long before = dataFiles();
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> stage(ds, schema, 1, 2, 3, 4, 5)).actual();
    assertThat(e.getMessage()).contains("more than");
    assertThat(dataFiles()).isEqualTo(before);
    assertThat(latest("v")).isEqualTo(List.of(0, 10, 20, 30));
  }

  public static void a3_twoStaleHandlesAllocateTheSameIdForDifferentFields(ScenarioTable t) {
    run(t, s -> s.a3_twoStaleHandlesAllocateTheSameIdForDifferentFieldsBody());
  }

  private void a3_twoStaleHandlesAllocateTheSameIdForDifferentFieldsBody() {
    try (Dataset other = ds.checkout(ds.version())) {
      ColumnSchema first = ds.columns().newSchema(List.of(intField("first", true)), List.of(), List.of());
      ColumnSchema second = other.columns().newSchema(List.of(intField("second", true)), List.of(), List.of());
      assertThat(second.newFieldIds()).isEqualTo(first.newFieldIds());
      StagedColumnWrite w1 = stage(ds, first, 10, 20, 30, 40);
      StagedColumnWrite w2 = stage(other, second, 50, 60, 70, 80);
      ds.columns().commit(List.of(w1));
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> other.columns().commit(List.of(w2))).actual();
      assertThat(e.getMessage()).contains("second").contains("is now 'first'");
      assertThat(latest("first")).isEqualTo(List.of(10, 20, 30, 40));
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(latest.schema().findTopLevel("second").isEmpty()).isTrue();
      }
      assertValid(ds);
    }
  }

  public static void a4_twoResultsForOneFragmentWithDifferentColumnsAreBothApplied(ScenarioTable t) {
    run(t, s -> s.a4_twoResultsForOneFragmentWithDifferentColumnsAreBothAppliedBody());
  }

  private void a4_twoResultsForOneFragmentWithDifferentColumnsAreBothAppliedBody() {
    ColumnSchema both = ds.columns().newSchema(List.of(intField("first", true), intField("second", true)), List.of(), List.of());
    StagedColumnWrite w1 = stage(ds, both.select("first"), 10, 20, 30, 40);
    StagedColumnWrite w2 = stage(ds, both.select("second"), 50, 60, 70, 80);
    ds.columns().commit(List.of(w1, w2));
    assertThat(StagedColumnSupport.column(ds, "first")).isEqualTo(List.of(10, 20, 30, 40));
    assertThat(StagedColumnSupport.column(ds, "second")).isEqualTo(List.of(50, 60, 70, 80));
    assertValid(ds);
  }

  public static void a5_declaredFieldIdsNotInTheStagedFileAreRejectedBeforeCommit(ScenarioTable t) {
    run(t, s -> s.a5_declaredFieldIdsNotInTheStagedFileAreRejectedBeforeCommitBody());
  }

  private void a5_declaredFieldIdsNotInTheStagedFileAreRejectedBeforeCommitBody() {
    ColumnSchema schema = ds.columns().newSchema(List.of(intField("n", true)), List.of(), List.of());
    StagedColumnWrite w = stage(ds, schema, 1, 2, 3, 4);
    int id = w.contract().fields().get(0).id();
    Schema declared = new Schema(List.of(w.contract().fields().get(0).withChildren(List.of())
        .withName("declared")).stream().map(f -> new io.quiver.schema.Field(id + 1, -1, f.name(), f.type(),
            f.nullable(), Map.of(), List.of())).toList());
    StagedColumnWrite forged = StagedColumnSupport.forge(w, declared, Set.of(id + 1));
    long version = ds.version();
    assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(() -> ds.columns().commit(List.of(forged)));
    assertThat(ds.latestVersion()).isEqualTo(version);
    assertValid(ds);
  }

  public static void a6_sameIdDeclaredWithAnotherPhysicalTypeIsRejected(ScenarioTable t) {
    run(t, s -> s.a6_sameIdDeclaredWithAnotherPhysicalTypeIsRejectedBody());
  }

  private void a6_sameIdDeclaredWithAnotherPhysicalTypeIsRejectedBody() {
    ColumnSchema schema = ds.columns().newSchema(List.of(intField("n", true)), List.of(), List.of());
    StagedColumnWrite w = stage(ds, schema, 10, 20, 30, 40);
    io.quiver.schema.Field staged = w.contract().fields().get(0);
    Schema declared = new Schema(List.of(new io.quiver.schema.Field(staged.id(), -1, "n",
        new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), true, Map.of(), List.of())));
    SchemaMismatchException e = assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(() -> ds.columns().commit(List.of(StagedColumnSupport.forge(w, declared, w.newFieldIds())))).actual();
    assertThat(e.getMessage()).contains("never reinterpreted");
    assertThat(ds.schema().findTopLevel("n").isEmpty()).isTrue();
    assertValid(ds);
  }

  public static void a7_nestedStructStagedByItsWriterCommitsAndRoundTrips(ScenarioTable t) {
    run(t, s -> s.a7_nestedStructStagedByItsWriterCommitsAndRoundTripsBody());
  }

  private void a7_nestedStructStagedByItsWriterCommitsAndRoundTripsBody() {
    org.apache.arrow.vector.types.pojo.Field st = new org.apache.arrow.vector.types.pojo.Field("st",
        FieldType.nullable(new ArrowType.Struct()), List.of(intField("x", true)));
    ColumnSchema schema = ds.columns().newSchema(List.of(st), List.of(), List.of());
    io.quiver.schema.Field parent = schema.contract().fields().get(0);
    StagedColumnWrite w = StagedColumnWrite.decode(stage(ds, schema, 1, 2, 3, 4).encode());
    assertThat(w.file().fieldIds()).isEqualTo(List.of(parent.children().get(0).id()));
    ds.columns().commit(List.of(w));
    assertThat(StagedColumnSupport.column(ds, "st.x")).isEqualTo(List.of(1, 2, 3, 4));
    assertValid(ds);
  }

  public static void a8_staleNonNullableColumnIsRejectedAfterAConcurrentAppend(ScenarioTable t) {
    run(t, s -> s.a8_staleNonNullableColumnIsRejectedAfterAConcurrentAppendBody());
  }

  private void a8_staleNonNullableColumnIsRejectedAfterAConcurrentAppendBody() {
    try (Dataset appender = ds.checkout(ds.version())) {
      ColumnSchema schema = ds.columns().newSchema(List.of(intField("c", false)), List.of(), List.of());
      StagedColumnWrite w = stage(ds, schema, 1, 2, 3, 4);
      VectorSchemaRoot sample = SampleTable.batch(allocator, 4, 2);
      List<org.apache.arrow.vector.FieldVector> vectors = new ArrayList<>(sample.getFieldVectors());
      for (String name : List.of("v", "w")) {
        IntVector x = new IntVector(intField(name, true), allocator);
        x.allocateNew(2);
        x.set(0, 4);
        x.set(1, 5);
        x.setValueCount(2);
        vectors.add(x);
      }
      List<org.apache.arrow.vector.types.pojo.Field> fields = new ArrayList<>(sample.getSchema().getFields());
      fields.add(intField("v", true));
      fields.add(intField("w", true));
      try (VectorSchemaRoot more = new VectorSchemaRoot(fields, vectors, 2)) {
        appender.append(List.of(more));
      }
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> ds.columns().commit(List.of(w))).actual();
      assertThat(e.fragmentId()).isEqualTo(1);
      assertThat(e.getMessage()).contains("non-nullable").contains("fragment 1");
      assertThat(ds.checkoutLatest().countRows()).isEqualTo(6);
      assertValid(ds);
    }
  }

  public static void a9_staleReplacementFailsAfterAConcurrentOverlayOnTheField(ScenarioTable t) {
    run(t, s -> s.a9_staleReplacementFailsAfterAConcurrentOverlayOnTheFieldBody());
  }

  private void a9_staleReplacementFailsAfterAConcurrentOverlayOnTheFieldBody() {
    try (Dataset updater = ds.checkout(ds.version())) {
      StagedColumnWrite w = stage(ds, ds.columns().newSchema(List.of(), List.of("v"), List.of()), 5, 5, 5, 5);
      updater.update(new long[] {1}, Map.of("v", 111));
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> ds.columns().commit(List.of(w))).actual();
      assertThat(e.getMessage()).contains("'v'").contains("overlays changed");
      assertThat(latest("v")).isEqualTo(List.of(0, 111, 20, 30));
      assertValid(ds);
    }
  }

  public static void a10_replacementAfterAnOlderOverlayIsAuthoritative(ScenarioTable t) {
    run(t, s -> s.a10_replacementAfterAnOlderOverlayIsAuthoritativeBody());
  }

  private void a10_replacementAfterAnOlderOverlayIsAuthoritativeBody() {
    ds.update(new long[] {0, 2}, Map.of("v", 111));
    assertThat(StagedColumnSupport.column(ds, "v")).isEqualTo(List.of(111, 10, 111, 30));
    StagedColumnWrite w = stage(ds, ds.columns().newSchema(List.of(), List.of("v"), List.of()), 1, 2, 3, 4);
    ds.columns().commit(List.of(w));
    assertThat(StagedColumnSupport.column(ds, "v")).isEqualTo(List.of(1, 2, 3, 4));
    assertThat(ds.manifest().fragments().get(0).overlays().isEmpty()).isTrue();
    assertValid(ds);
  }

  public static void a11_twoRewritesOfAPresentFieldFromOneSnapshot(ScenarioTable t) {
    run(t, s -> s.a11_twoRewritesOfAPresentFieldFromOneSnapshotBody());
  }

  private void a11_twoRewritesOfAPresentFieldFromOneSnapshotBody() {
    try (Dataset other = ds.checkout(ds.version())) {
      StagedColumnWrite w1 = stage(ds, ds.columns().newSchema(List.of(), List.of("v"), List.of()), 30, 40, 30, 40);
      StagedColumnWrite w2 = stage(other, other.columns().newSchema(List.of(), List.of("v"), List.of()), 50, 60, 50, 60);
      ds.columns().commit(List.of(w1));
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> other.columns().commit(List.of(w2))).actual();
      assertThat(e.getMessage()).contains("base data file changed");
      assertThat(latest("v")).isEqualTo(List.of(30, 40, 30, 40));
      assertValid(ds);
    }
  }

  public static void a12_absenceIsPartOfTheWitness(ScenarioTable t) {
    run(t, s -> s.a12_absenceIsPartOfTheWitnessBody());
  }

  private void a12_absenceIsPartOfTheWitnessBody() {
    ds.columns().add(List.of(intField("n", true)));
    try (Dataset other = ds.checkout(ds.version())) {
      StagedColumnWrite w1 = stage(ds, ds.columns().newSchema(List.of(), List.of("n"), List.of()), 10, 30, null, 7);
      StagedColumnWrite w2 = stage(other, other.columns().newSchema(List.of(), List.of("n"), List.of()), 10, 50, 1, 1);
      assertThat(io.quiver.internal.codec.StagedWriteCodec.decode(w2.encode()).write().witness().get(0).base().isEmpty()).isTrue();
      ds.columns().commit(List.of(w1));
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> other.columns().commit(List.of(w2))).actual();
      assertThat(e.getMessage()).contains("had no base data file");
      assertThat(latest("n")).isEqualTo(Arrays.asList(10, 30, null, 7));
      assertValid(ds);
    }
  }

  public static void a13_overlayCoverageChangedUnderTheSamePathMakesTheReplacementStale(ScenarioTable t) {
    run(t, s -> s.a13_overlayCoverageChangedUnderTheSamePathMakesTheReplacementStaleBody());
  }

  private void a13_overlayCoverageChangedUnderTheSamePathMakesTheReplacementStaleBody() {
    ds.update(new long[] {0}, Map.of("v", 777));
    try (Dataset stale = ds.checkout(ds.version())) {
      StagedColumnWrite w = stage(stale, stale.columns().newSchema(List.of(), List.of("v"), List.of()), 5, 5, 5, 5);
      rewriteFragmentInPlace(f -> {
        Overlay o = f.overlays().get(0);
        Overlay moved = new Overlay(o.dataFile(),
            new io.quiver.manifest.Coverage.Shared(MutableRoaringBitmap.bitmapOf(1).toImmutableRoaringBitmap()),
            o.committedVersion());
        return f.with(f.files(), f.deletionFile(), List.of(moved));
      });
      assertThat(latest("v")).isEqualTo(List.of(0, 777, 20, 30));
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> stale.columns().commit(List.of(w))).actual();
      assertThat(e.getMessage()).contains("overlays changed");
      assertThat(latest("v")).isEqualTo(List.of(0, 777, 20, 30));
      assertValid(ds);
    }
  }

  public static void a14_baseColumnMappingChangedUnderTheSamePathMakesTheReplacementStale(ScenarioTable t) {
    run(t, s -> s.a14_baseColumnMappingChangedUnderTheSamePathMakesTheReplacementStaleBody());
  }

  private void a14_baseColumnMappingChangedUnderTheSamePathMakesTheReplacementStaleBody() {
    try (Dataset stale = ds.checkout(ds.version())) {
      StagedColumnWrite w = stage(stale, stale.columns().newSchema(List.of(), List.of("v"), List.of()), 5, 5, 5, 5);
      rewriteFragmentInPlace(f -> {
        List<DataFile> files = new ArrayList<>();
        for (DataFile d : f.files()) {
          if (d.fieldIds().size() == 2) { // the file holding v and w: swap their columns
            List<Integer> swapped = List.of(d.columnIndices().get(1), d.columnIndices().get(0));
            d = new DataFile(d.path(), d.fieldIds(), swapped, d.formatMajor(), d.formatMinor(), d.sizeBytes(),
                d.baseId());
          }
          files.add(d);
        }
        return f.with(files, f.deletionFile(), f.overlays());
      });
      assertThat(latest("v")).isEqualTo(List.of(0, 100, 200, 300));
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> stale.columns().commit(List.of(w))).actual();
      assertThat(e.getMessage()).contains("base data file changed").contains("column 1");
      assertThat(latest("v")).isEqualTo(List.of(0, 100, 200, 300));
      assertValid(ds);
    }
  }

  public static void a15_compactionOfTheTargetFragmentMakesTheReplacementStale(ScenarioTable t) {
    run(t, s -> s.a15_compactionOfTheTargetFragmentMakesTheReplacementStaleBody());
  }

  private void a15_compactionOfTheTargetFragmentMakesTheReplacementStaleBody() {
    try (Dataset compactor = ds.checkout(ds.version())) {
      StagedColumnWrite w = stage(ds, ds.columns().newSchema(List.of(), List.of("v"), List.of()), 5, 5, 5, 5);
      compactor.delete(new long[] {3});
      compactor.compact(CompactionOptions.defaults());
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> ds.columns().commit(List.of(w))).actual();
      assertThat(e.fragmentId()).isEqualTo(0);
      assertThat(e.getMessage()).contains("fragment 0").contains("is gone");
      assertThat(latest("v")).isEqualTo(List.of(0, 10, 20));
      assertValid(ds);
    }
  }

  public static void a16_sameFreshFieldStagedByTwoStaleHandlesWithDifferentValuesOrNullability(ScenarioTable t) {
    run(t, s -> s.a16_sameFreshFieldStagedByTwoStaleHandlesWithDifferentValuesOrNullabilityBody());
  }

  private void a16_sameFreshFieldStagedByTwoStaleHandlesWithDifferentValuesOrNullabilityBody() {
    try (Dataset other = ds.checkout(ds.version()); Dataset third = ds.checkout(ds.version())) {
      StagedColumnWrite w1 = stage(ds, ds.columns().newSchema(List.of(intField("value", false)), List.of(), List.of()), 10, 20, 30, 40);
      StagedColumnWrite w2 = stage(other, other.columns().newSchema(List.of(intField("value", false)), List.of(), List.of()), 30, 40, 30, 40);
      StagedColumnWrite w3 = stage(third, third.columns().newSchema(List.of(intField("value", true)), List.of(), List.of()), 30, null, 1, 1);
      ds.columns().commit(List.of(w1));
      assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> other.columns().commit(List.of(w2)));
      assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> third.columns().commit(List.of(w3)));
      assertThat(latest("value")).isEqualTo(List.of(10, 20, 30, 40));
      assertValid(ds);
    }
  }

  public static void a17_reservedSystemNamesAreRejectedAtSchemaCreationAndAtCommit(ScenarioTable t) {
    run(t, s -> s.a17_reservedSystemNamesAreRejectedAtSchemaCreationAndAtCommitBody());
  }

  private void a17_reservedSystemNamesAreRejectedAtSchemaCreationAndAtCommitBody() {
    assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> ds.columns().newSchema(List.of(intField("_rowid", true)), List.of(), List.of()));
    assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> ds.columns().newSchema(List.of(intField("_rowaddr", true)), List.of(), List.of()));
    // A hand-built contract cannot even exist: the schema type refuses reserved names, so neither a forged
    // ColumnSchema nor decoded bytes can carry one; the commit (manifest builder) checks again regardless.
    int id = ds.manifest().maxFieldId() + 1;
    assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> new Schema(List.of(io.quiver.schema.Field.of(id, -1, "_rowid", StagedColumnSupport.INT32, true))));
    long version = ds.version();
    assertThat(ds.latestVersion()).isEqualTo(version);
    assertValid(ds);
  }

  public static void a18_fragmentWithDeletedRowsNeedsEveryPhysicalRowAndDeletedRowsStayDeleted(ScenarioTable t) {
    run(t, s -> s.a18_fragmentWithDeletedRowsNeedsEveryPhysicalRowAndDeletedRowsStayDeletedBody());
  }

  private void a18_fragmentWithDeletedRowsNeedsEveryPhysicalRowAndDeletedRowsStayDeletedBody() {
    ds.delete(new long[] {1});
    ColumnSchema schema = ds.columns().newSchema(List.of(intField("n", true)), List.of(), List.of());
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> stage(ds, schema, 1, 3, 4));
    StagedColumnWrite w = stage(ds, schema, 1, 2, 3, 4);
    ds.columns().commit(List.of(w));
    assertThat(StagedColumnSupport.column(ds, "n")).isEqualTo(List.of(1, 3, 4));
    assertThat(ds.countRows()).isEqualTo(3);
    assertValid(ds);
  }
}
