package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.NotFoundException;
import io.quiver.internal.file.TestData;
import io.quiver.internal.read.Projection;
import io.quiver.internal.read.Take;
import io.quiver.manifest.Fragment;
import io.quiver.schema.Schema;
import io.quiver.store.CountingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code take} by point reads ({@link Take#take}) returns exactly what the whole-chunk reference ({@link
 * Take#takeByBatches}) returns, cell for cell, on randomized tables: every supported type and nesting,
 * several fragments and batches, partial-update overlays (covered values and covered nulls, struct members
 * too, newest wins), deletions, a column added after the data was written (no file: nulls), compressed
 * and uncompressed bodies; and it reads only a small part of what the reference reads.
 */
class TakeEqualityTest {
  private RootAllocator allocator;
  private MemoryObjectStore store;
  private CountingObjectStore counting;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new MemoryObjectStore("mem://take");
    counting = new CountingObjectStore(store);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private Dataset table(long seed, String compression, int rowsPerBatch) {
    DatasetOptions options = DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(1 << 20))
        .registry(ObjectStores.empty().register(TestStores.provider("test", () -> counting)))
        .rowsPerBatch(rowsPerBatch)
        .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
        .build();
    org.apache.arrow.vector.types.pojo.Schema schema = TestData.allTypesSchema();
    Map<String, String> config = new HashMap<>(Map.of("write.compression", compression));
    Dataset ds;
    try (VectorSchemaRoot b = TestData.randomBatch(schema, 300, seed, allocator)) {
      ds = Dataset.create(OverlayTestSupport.URI_, schema, List.of(b), options, config);
    }
    try (VectorSchemaRoot b = TestData.randomBatch(schema, 170, seed + 1, allocator);
        VectorSchemaRoot c = TestData.randomBatch(schema, 1, seed + 2, allocator)) {
      ds.append(List.of(b, c));
    }
    SplittableRandom r = new SplittableRandom(seed);
    List<Long> live = liveAddresses(ds);
    ds.update(sample(live, 60, r), Map.of("i32", 7, "utf8", "covered", "s.x", 11));
    ds.update(sample(live, 40, r), mapOfNulls("i32", "utf8", "s.inner.y"));
    ds.update(sample(live, 30, r), Map.of("large_utf8", "newest", "u16", 3, "s.inner.y", "deep"));
    ds.delete(sample(live, 25, r));
    ds.columns().add(List.of(new Field("added", FieldType.nullable(new ArrowType.Int(32, true)), null)));
    return ds;
  }

  private static Map<String, Object> mapOfNulls(String... columns) {
    Map<String, Object> m = new HashMap<>();
    for (String c : columns) {
      m.put(c, null);
    }
    return m;
  }

  private static long[] sample(List<Long> from, int n, SplittableRandom r) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = from.get(r.nextInt(from.size()));
    }
    return out;
  }

  private static List<Long> liveAddresses(Dataset ds) {
    List<Long> out = new ArrayList<>();
    for (Fragment f : ds.manifest().fragments()) {
      org.roaringbitmap.RoaringBitmap deleted = io.quiver.internal.read.Deletions.of(ds.io(), f);
      for (long o = 0; o < f.physicalRows(); o++) {
        if (!deleted.contains((int) o)) {
          out.add(RowAddress.of(f.id(), o));
        }
      }
    }
    return out;
  }

  private static void assertSame(Dataset ds, List<String> columns, long[] addresses, RootAllocator allocator) {
    Schema projected = Projection.project(ds.manifest().schema(), columns.isEmpty() ? null : columns, null);
    try (VectorSchemaRoot expected = Take.takeByBatches(ds.io(), ds.manifest(), projected, addresses, allocator);
        VectorSchemaRoot actual = Take.take(ds.io(), ds.manifest(), projected, addresses, allocator, 1);
        VectorSchemaRoot parallel = Take.take(ds.io(), ds.manifest(), projected, addresses, allocator, 3)) {
      assertThat(actual.getSchema()).isEqualTo(expected.getSchema());
      assertThat(actual.getRowCount()).isEqualTo(addresses.length);
      assertThat(firstDifference(expected, actual)).as("columns %s", columns).isEmpty();
      assertThat(actual.equals(expected)).as("vector equality, columns %s", columns).isTrue();
      assertThat(firstDifference(expected, parallel)).as("3 threads, columns %s", columns).isEmpty();
      assertThat(parallel.equals(expected)).as("3 threads, vector equality, columns %s", columns).isTrue();
    }
  }

  /** "column row: expected vs actual" of the first cell that differs, or "" when none does. */
  private static String firstDifference(VectorSchemaRoot expected, VectorSchemaRoot actual) {
    for (int v = 0; v < expected.getFieldVectors().size(); v++) {
      for (int row = 0; row < expected.getRowCount(); row++) {
        String e = String.valueOf(expected.getVector(v).getObject(row));
        String a = String.valueOf(actual.getVector(v).getObject(row));
        if (expected.getVector(v).getObject(row) instanceof byte[] eb) {
          e = java.util.Arrays.toString(eb);
          Object ao = actual.getVector(v).getObject(row);
          a = ao instanceof byte[] ab ? java.util.Arrays.toString(ab) : String.valueOf(ao);
        }
        if (!e.equals(a)) {
          return expected.getVector(v).getName() + " row " + row + ": " + e + " vs " + a;
        }
      }
    }
    return "";
  }

  @ParameterizedTest(name = "seed {0}, compression {1}, {2} rows per batch")
  @CsvSource({"1, none, 64", "2, zstd, 64", "3, none, 7", "4, zstd, 7", "5, zstd, 1000"})
  void pointTakeEqualsTakeByBatches(long seed, String compression, int rowsPerBatch) {
    try (Dataset ds = table(seed, compression, rowsPerBatch)) {
      List<Long> live = liveAddresses(ds);
      SplittableRandom r = new SplittableRandom(seed * 31);
      for (int round = 0; round < 4; round++) {
        long[] addresses = sample(live, 1 + r.nextInt(80), r); // unsorted, with repeats
        assertSame(ds, List.of(), addresses, allocator);
        assertSame(ds, List.of("s.inner.y", "utf8", "added"), addresses, allocator);
        assertSame(ds, List.of("s", "list_of_struct", "map_utf8_i64", "bool"), addresses, allocator);
      }
      assertSame(ds, List.of("i64"), new long[0], allocator);
      long[] everything = live.stream().mapToLong(Long::longValue).toArray();
      assertSame(ds, List.of(), everything, allocator);
    }
  }

  @ParameterizedTest(name = "compression {0}")
  @CsvSource({"none", "zstd"})
  void deletedAndMissingRowsAreNotFoundLikeBefore(String compression) {
    try (Dataset ds = table(9, compression, 64)) {
      List<Long> live = liveAddresses(ds);
      long deleted = -1;
      for (Fragment f : ds.manifest().fragments()) {
        org.roaringbitmap.RoaringBitmap d = io.quiver.internal.read.Deletions.of(ds.io(), f);
        if (!d.isEmpty()) {
          deleted = RowAddress.of(f.id(), d.first());
        }
      }
      long[] withDeleted = {live.get(0), deleted};
      Schema all = ds.manifest().schema();
      String expected = messageOf(() -> Take.takeByBatches(ds.io(), ds.manifest(), all, withDeleted, allocator));
      assertThatExceptionOfType(NotFoundException.class)
          .isThrownBy(() -> Take.take(ds.io(), ds.manifest(), all, withDeleted, allocator, 2).close())
          .withMessage(expected);
      long[] missing = {live.get(0), RowAddress.of(99, 0)};
      assertThatExceptionOfType(NotFoundException.class)
          .isThrownBy(() -> Take.take(ds.io(), ds.manifest(), all, missing, allocator, 1).close())
          .withMessage(messageOf(() -> Take.takeByBatches(ds.io(), ds.manifest(), all, missing, allocator)));
    }
  }

  private static String messageOf(Runnable call) {
    try {
      call.run();
    } catch (NotFoundException e) {
      return e.getMessage();
    }
    throw new AssertionError("expected a NotFoundException");
  }

  @Test
  void aDamagedFileInAParallelTakeIsACorruptFileAndLeavesNoThreadOrMemoryBehind() throws Exception {
    try (Dataset ds = table(41, "zstd", 64)) {
      List<Long> live = liveAddresses(ds);
      long[] addresses = live.stream().mapToLong(Long::longValue).toArray();
      String victim = ds.manifest().fragments().get(1).files().get(0).path();
      byte[] original = store.read(victim);
      byte[] damaged = original.clone();
      java.util.Arrays.fill(damaged, 8, damaged.length / 2, (byte) 0x5A); // the bodies of the first batches
      store.write(victim, damaged);
      assertThatExceptionOfType(io.quiver.exceptions.CorruptFileException.class)
          .isThrownBy(() -> ds.take(addresses, List.of(), 4).close())
          .withMessageContaining(victim);
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        if (t.getName().startsWith("quiver-take-")) {
          t.join(10_000);
          assertThat(t.isAlive()).as(t.getName() + " still running").isFalse();
        }
      }
      store.write(victim, original);
      assertThatExceptionOfType(io.quiver.exceptions.InvalidArgumentException.class)
          .isThrownBy(() -> ds.take(addresses, List.of(), 0))
          .withMessageContaining("between 1 and 256");
    }
  }

  /** 60,000 rows of (id int64, x float64, s utf8) in 8,192-row batches, like the take benchmark's table. */
  private Dataset benchLikeTable(String compression) {
    DatasetOptions options = DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(1 << 20))
        .registry(ObjectStores.empty().register(TestStores.provider("test", () -> counting)))
        .rowsPerBatch(8192)
        .build();
    org.apache.arrow.vector.types.pojo.Schema schema = new org.apache.arrow.vector.types.pojo.Schema(List.of(
        new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
        new Field("x", FieldType.nullable(new ArrowType.FloatingPoint(
            org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE)), null),
        new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    int rows = 60_000;
    try (VectorSchemaRoot b = VectorSchemaRoot.create(schema, allocator)) {
      b.allocateNew();
      SplittableRandom r = new SplittableRandom(5);
      org.apache.arrow.vector.BigIntVector id = (org.apache.arrow.vector.BigIntVector) b.getVector(0);
      org.apache.arrow.vector.Float8Vector x = (org.apache.arrow.vector.Float8Vector) b.getVector(1);
      org.apache.arrow.vector.VarCharVector s = (org.apache.arrow.vector.VarCharVector) b.getVector(2);
      for (int i = 0; i < rows; i++) {
        id.setSafe(i, i);
        x.setSafe(i, r.nextDouble());
        s.setSafe(i, ("value-" + r.nextInt(1_000_000)).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      b.setRowCount(rows);
      return Dataset.create(OverlayTestSupport.URI_, schema, List.of(b), options, Map.of("write.compression", compression));
    }
  }

  @ParameterizedTest(name = "compression {0}")
  @CsvSource({"none", "zstd"})
  void pointTakeFetchesASmallFractionOfWhatWholeBatchesFetch(String compression) {
    try (Dataset ds = benchLikeTable(compression)) {
      List<Long> live = liveAddresses(ds);
      long[] addresses = sample(live, 12, new SplittableRandom(12));
      Schema projected = Projection.project(ds.manifest().schema(), List.of("id", "x", "s"), null);
      Take.takeByBatches(ds.io(), ds.manifest(), projected, addresses, allocator).close(); // warms metadata
      counting.reset();
      Take.takeByBatches(ds.io(), ds.manifest(), projected, addresses, allocator).close();
      long byBatches = counting.bytesRead();
      counting.reset();
      try (VectorSchemaRoot taken = Take.take(ds.io(), ds.manifest(), projected, addresses, allocator, 1)) {
        assertThat(taken.getRowCount()).isEqualTo(12);
        assertThat(((org.apache.arrow.vector.BigIntVector) taken.getVector("id")).get(3))
            .isEqualTo(RowAddress.offset(addresses[3]));
      }
      long points = counting.bytesRead();
      assertThat(counting.rangesRead()).as("ranges go through readRanges").isPositive();
      if (compression.equals("none")) {
        // 12 rows x 3 columns: a value, two offsets and a string each (no nulls: no validity), coalesced
        // with the default 8 KiB gap (most of the bytes are gap).
        assertThat(points * 20).as("point reads (%s bytes) fetch under 5%% of whole batches (%s)", points, byBatches)
            .isLessThan(byBatches);
        assertThat(counting.readCalls()).as("two rounds: values and offsets, then the strings").isEqualTo(2);
      } else {
        // The sequential ids and the strings compress, so their buffers are fetched whole; the random
        // doubles are stored raw (min-savings) and point-read.
        assertThat(points * 3).as("point reads (%s bytes) fetch under 2/3 of whole batches (%s)", points, byBatches)
            .isLessThan(byBatches * 2);
      }
    }
  }
}
