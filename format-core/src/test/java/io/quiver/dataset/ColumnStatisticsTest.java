package io.quiver.dataset;

import static io.quiver.dataset.StagedColumnSupport.intField;
import static io.quiver.dataset.StagedColumnSupport.ints;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.internal.read.FragmentBounds;
import io.quiver.manifest.ColumnStats;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.FieldBounds;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.StatValue;
import io.quiver.predicate.Predicate;
import io.quiver.scenario.StagedColumnScenarios;
import io.quiver.store.MemoryObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Column statistics are written by every operation that writes data files (docs/format.md §3.1), read back
 * from the manifest, widened (not tight) by overlays and tight again after compaction.
 */
class ColumnStatisticsTest {
  private BufferAllocator allocator;
  private MemoryObjectStore store;
  private DatasetOptions options;
  private Dataset ds;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(OverlayTestSupport.URI_);
    options = OverlayTestSupport.options(allocator, store, 8);
    ds = OverlayTestSupport.create(allocator, options, 0, 40);
  }

  @AfterEach
  void tearDown() {
    ds.close();
    allocator.close();
  }

  private static int id(Dataset d, String path) {
    return d.schema().findField(path).orElseThrow().id();
  }

  private static ColumnStats stats(Dataset d, int fragment, String path) {
    Fragment f = d.manifest().fragments().get(fragment);
    int id = id(d, path);
    DataFile file = f.files().stream().filter(x -> x.columnOf(id) >= 0).findFirst().orElseThrow();
    return file.statsOf(id).orElseThrow(() -> new AssertionError("no statistics for " + path + " in " + file));
  }

  private static FieldBounds bounds(Dataset d, int fragment, String path) {
    return FragmentBounds.of(d.manifest().fragments().get(fragment), d.manifest().schema(), id(d, path));
  }

  private static StatValue.Bytes utf8(String s) {
    return new StatValue.Bytes(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void createWritesStatisticsOfEveryAtomicField() {
    // ids 0..39: name null where id % 7 == 3; s null where id % 11 == 5; x null where id % 5 == 1, else 3 * id.
    ColumnStats id = stats(ds, 0, "id");
    assertThat(id.nullCount()).isZero();
    assertThat(id.lower()).contains(new StatValue.Int(0));
    assertThat(id.upper()).contains(new StatValue.Int(39));
    assertThat(id.nanCount()).isEmpty();
    assertThat(id.columnBytes()).isPositive();
    ColumnStats name = stats(ds, 0, "name");
    assertThat(name.nullCount()).isEqualTo(6); // 3, 10, 17, 24, 31, 38
    assertThat(name.lower()).contains(utf8("name-0"));
    assertThat(name.upper()).contains(utf8("name-9"));
    ColumnStats x = stats(ds, 0, "s.x");
    // A member is null where its struct is: x is null for id % 5 == 1 (8 ids) or id % 11 == 5 (5, 16, 27, 38).
    long nulls = java.util.stream.LongStream.range(0, 40).filter(i -> i % 5 == 1 || i % 11 == 5).count();
    assertThat(x.nullCount()).isEqualTo(nulls);
    assertThat(x.lower()).contains(new StatValue.Int(0));
    assertThat(x.upper()).contains(new StatValue.Int(117));
    ColumnStats tags = stats(ds, 0, "tags");
    assertThat(tags.nullCount()).isEqualTo(java.util.stream.LongStream.range(0, 40).filter(i -> i % 13 == 2).count());
    assertThat(tags.lower()).isEmpty(); // lists: counts only
    assertThat(ds.manifest().fragments().get(0).files().get(0).stats().orElseThrow().rowCount()).isEqualTo(40);
    assertThat(bounds(ds, 0, "id").tight()).isTrue();
    assertThat(bounds(ds, 0, "id").nullCount()).hasValue(0);
  }

  @Test
  void appendAndOverwriteWriteStatistics() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 1000, 10)) {
      ds.append(List.of(b));
    }
    assertThat(stats(ds, 1, "id").lower()).contains(new StatValue.Int(1000));
    assertThat(stats(ds, 1, "id").upper()).contains(new StatValue.Int(1009));
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 500, 5)) {
      ds.overwrite(SampleTable.SCHEMA, List.of(b));
    }
    assertThat(ds.manifest().fragments()).hasSize(1);
    assertThat(stats(ds, 0, "id").upper()).contains(new StatValue.Int(504));
  }

  @Test
  void addedAndReplacedColumnsAndStagedWritesCarryStatistics() {
    ds.columns().add(List.of(intField("v", true), intField("w", true)), List.of("id"), StagedColumnScenarios::tens);
    assertThat(stats(ds, 0, "v").upper()).contains(new StatValue.Int(390));
    ds.columns().replace(List.of("v"), List.of("id"), (input, alloc) -> {
      VectorSchemaRoot out = VectorSchemaRoot.create(
          new org.apache.arrow.vector.types.pojo.Schema(List.of(intField("v", true))), alloc);
      IntVector v = (IntVector) out.getVector(0);
      org.apache.arrow.vector.BigIntVector ids = (org.apache.arrow.vector.BigIntVector) input.getVector("id");
      v.allocateNew(input.getRowCount());
      for (int i = 0; i < input.getRowCount(); i++) {
        v.set(i, (int) -ids.get(i));
      }
      out.setRowCount(input.getRowCount());
      return out;
    });
    assertThat(stats(ds, 0, "v").lower()).contains(new StatValue.Int(-39));
    assertThat(stats(ds, 0, "v").upper()).contains(new StatValue.Int(0));
    // A nullable column added without values has no file: every row is null, and that is known.
    ds.columns().add(List.of(intField("n", true)));
    FieldBounds n = bounds(ds, 0, "n");
    assertThat(n.mayHaveValues()).isFalse();
    assertThat(n.nullCount()).hasValue(40);
    // A staged column write (the worker-side path) records the statistics of the file it stages.
    ColumnSchema schema = ds.columns().newSchema(List.of(intField("emb", true)), List.of(), List.of());
    Integer[] values = new Integer[40];
    for (int i = 0; i < 40; i++) {
      values[i] = i % 2 == 0 ? null : 100 + i;
    }
    StagedColumnWrite staged;
    try (ArrowReader reader = ints(allocator, schema.arrowSchema(), values)) {
      staged = ds.columns().writeFragment(0, reader, schema);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    StagedColumnWrite decoded = StagedColumnWrite.decode(staged.encode());
    assertThat(decoded.file().stats()).isEqualTo(staged.file().stats()).isPresent();
    try (Dataset latest = ds.checkoutLatest()) {
      latest.columns().commit(List.of(decoded));
    }
    try (Dataset latest = ds.checkoutLatest()) {
      ColumnStats emb = stats(latest, 0, "emb");
      assertThat(emb.nullCount()).isEqualTo(20);
      assertThat(emb.lower()).contains(new StatValue.Int(101));
      assertThat(emb.upper()).contains(new StatValue.Int(139));
    }
  }

  @Test
  void overlaysWidenTheBoundsAndCompactionMakesThemTightAgain() {
    ds.update(Predicate.eq("id", 7L), Map.of("name", "zzz", "s.x", 5000));
    Manifest m = ds.manifest();
    assertThat(m.fragments().get(0).overlays()).hasSize(1);
    DataFile overlay = m.fragments().get(0).overlays().get(0).dataFile();
    assertThat(overlay.statsOf(id(ds, "name")).orElseThrow().lower()).contains(utf8("zzz"));
    FieldBounds name = bounds(ds, 0, "name");
    assertThat(name.tight()).isFalse();
    assertThat(name.nullCount()).isEmpty();
    assertThat(name.lower()).contains(utf8("name-0"));
    assertThat(name.upper()).contains(utf8("zzz"));
    assertThat(bounds(ds, 0, "s.x").upper()).contains(new StatValue.Int(5000));
    // Fields the overlay does not store keep the base file's tight bounds.
    assertThat(bounds(ds, 0, "id").tight()).isTrue();
    ds.delete(Predicate.lt("id", 20L));
    assertThat(bounds(ds, 0, "name").upper()).as("deletes keep bounds valid").contains(utf8("zzz"));
    ds.compact(CompactionOptions.defaults());
    FieldBounds compacted = bounds(ds, 0, "name");
    assertThat(compacted.tight()).isTrue();
    assertThat(compacted.lower()).contains(utf8("name-20"));
    assertThat(compacted.upper()).contains(utf8("name-39"));
    assertThat(bounds(ds, 0, "s.x").upper()).contains(new StatValue.Int(117));
    assertThat(bounds(ds, 0, "id").lower()).contains(new StatValue.Int(20));
  }

  @Test
  void floatStatisticsCountNaNAndBoundZerosConservatively() {
    org.apache.arrow.vector.types.pojo.Schema schema = new org.apache.arrow.vector.types.pojo.Schema(List.of(
        org.apache.arrow.vector.types.pojo.Field.nullable("f",
            new org.apache.arrow.vector.types.pojo.ArrowType.FloatingPoint(
                org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      org.apache.arrow.vector.Float8Vector f = (org.apache.arrow.vector.Float8Vector) root.getVector(0);
      f.allocateNew(5);
      f.set(0, 0.0);
      f.set(1, Double.NaN);
      f.setNull(2);
      f.set(3, 0.0);
      f.set(4, Double.NaN);
      root.setRowCount(5);
      MemoryObjectStore other = new MemoryObjectStore(OverlayTestSupport.URI_);
      try (Dataset t = Dataset.create(OverlayTestSupport.URI_, schema, List.of(root),
          OverlayTestSupport.options(allocator, other, 8))) {
        ColumnStats s = stats(t, 0, "f");
        assertThat(s.nanCount()).isEqualTo(OptionalLong.of(2));
        assertThat(s.nullCount()).isEqualTo(1);
        assertThat(s.lower()).hasValueSatisfying(v -> assertThat(((StatValue.Real) v).value()).isEqualTo(-0.0));
        assertThat(s.upper()).hasValueSatisfying(v -> assertThat(((StatValue.Real) v).value()).isEqualTo(0.0));
        assertThat(bounds(t, 0, "f").mayHaveNan()).isTrue();
        assertThat(rows(t, Predicate.gt("f", 1.0))).as("NaN sorts above every number").isEqualTo(2);
        assertThat(rows(t, Predicate.eq("f", Double.NaN))).isEqualTo(2);
        assertThat(rows(t, Predicate.eq("f", -0.0))).isEqualTo(2);
      }
    }
  }

  private static long rows(Dataset t, Predicate p) {
    try (ArrowReader r = t.newScan().filter(p).open()) {
      long n = 0;
      while (r.loadNextBatch()) {
        n += r.getVectorSchemaRoot().getRowCount();
      }
      return n;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void tablesWithoutStatisticsReadAsUnknown() {
    Fragment f = ds.manifest().fragments().get(0);
    Fragment stripped = new Fragment(f.id(), f.files().stream().map(d -> d.withStats(Optional.empty())).toList(),
        f.deletionFile(), f.physicalRows(), f.overlays());
    assertThat(FragmentBounds.of(stripped, ds.manifest().schema(), id(ds, "id")).isUnknown()).isTrue();
  }
}
