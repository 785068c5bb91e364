package io.quiver.bench;

import io.quiver.bench.data.BenchData;
import io.quiver.bench.lance.LanceTable;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.MergeInsertResult;
import io.quiver.dataset.ScanMetrics;
import io.quiver.manifest.ScalarIndex;
import io.quiver.predicate.Predicate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.index.IndexType;
import org.lance.merge.MergeInsertParams;
import org.lance.merge.MergeInsertStats;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Benchmark 13 (issue 42): scalar indices, Quiver's ({@code dataset.indices().create(name, BTREE|BITMAP,
 * column)}) beside Lance 7.0.0's ({@code Dataset.createIndex(columns, IndexType.BTREE|BITMAP, name, params,
 * false)}), on the same generated table: {@code id} int64 (the row number), {@code key} int64 (a seeded random
 * permutation of the row numbers, so unclustered: every fragment's and batch's min/max span nearly the whole
 * range and statistics prune nothing), {@code pct} int32 in [0, 100) by a hash of the row (about 1% of the rows
 * per value, spread over every fragment), {@code x} float64 and {@code s} utf8. Both indexed tables carry a btree
 * on {@code key} and a bitmap on {@code pct}.
 *
 * <ul>
 *   <li>{@code point*}: {@code key = ?} projecting id, key, x; a different probe key (of 1,024 seeded ones) each
 *       call; sampled, so the report has p50 and p99. {@code pointUnindexed*} is the same filter with the
 *       indices off ({@code Scanner.useIndices(false)}, Lance's {@code ScanOptions.useScalarIndex(false)}).
 *   <li>{@code bitmap*}: {@code pct = 0} (about 1% of the rows) projecting id and x; {@code bitmapUnindexed*}
 *       with the indices off.
 *   <li>{@code merge*}: an upsert of 1% of the rows by {@code key} (half the source's keys exist, spread over
 *       every fragment by the permutation, half are new), when matched update all, when not matched insert; on a
 *       fresh copy of the indexed table, and ({@code mergeUnindexed*}) of the same table without indices.
 *   <li>{@code build*}: building the btree on {@code key} or the bitmap on {@code pct} on a fresh copy of the
 *       table without indices; each build records the bytes of its index files ({@code _indices/}).
 * </ul>
 *
 * <p>Correctness is checked inside the run: the setup probes every probe key on both systems (one row, the
 * right id) and the indexed scans report that the index answered; every call checks its row count and id sum;
 * every merge checks its counts and, after the iteration, the merged table (row count, the rows holding the
 * merged value, lookups of merged and inserted keys through the indices).
 *
 * <p>Rows: {@code -Dquiver.bench.indexRows} if given, else 1M in the quick profile and 10M in the full one.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class IndexBench {
  static final String KEY_INDEX = "key_btree";
  static final String PCT_INDEX = "pct_bitmap";
  static final int PROBES = 1024;
  static final List<String> POINT_COLUMNS = List.of("id", "key", "x");
  static final List<String> BITMAP_COLUMNS = List.of("id", "x");
  static final double MERGED_X = -2.0;

  long rows;
  long sourceRows;
  Permutation permutation;
  long[] probeKeys;
  long[] probeIds;
  int probe;
  long bitmapRows;
  long bitmapIdSum;
  Path source;
  BufferAllocator allocator;
  Dataset quiver;
  LanceTable lance;

  /** The table's schema: id, key (the permuted row number), pct, x, s. */
  static Schema schema() {
    return new Schema(List.of(
        new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
        new Field("key", FieldType.notNullable(new ArrowType.Int(64, true)), null),
        new Field("pct", FieldType.notNullable(new ArrowType.Int(32, true)), null),
        new Field("x", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
        new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
  }

  static long rows() {
    String override = System.getProperty("quiver.bench.indexRows");
    return override != null ? Long.parseLong(override) : Bench.size(1_000_000, 10_000_000);
  }

  @Setup(Level.Trial)
  public void setup() throws Exception {
    rows = rows();
    sourceRows = rows / 100;
    permutation = new Permutation(rows);
    allocator = new RootAllocator();
    quiver = Dataset.open(quiverIndexed().toString(), Bench.quiverOptions(allocator));
    lance = LanceTable.open(allocator, lanceIndexed());
    for (String name : List.of(KEY_INDEX, PCT_INDEX)) {
      if (quiver.indices().get(name).isEmpty() || !lance.indexNames().contains(name)) {
        throw new IllegalStateException("index " + name + " missing: quiver " + quiver.indices().list() + ", lance "
            + lance.indexNames());
      }
    }
    long[] probeRows = BenchData.randomRows(rows, PROBES, 42);
    probeKeys = new long[PROBES];
    probeIds = probeRows;
    for (int i = 0; i < PROBES; i++) {
      probeKeys[i] = permutation.apply(probeRows[i]);
    }
    for (long r = 0; r < rows; r++) {
      if (BenchData.pctValue(r) == 0) {
        bitmapRows++;
        bitmapIdSum += r;
      }
    }
    checkProbes();
    source = Bench.cached("index-merge-source-" + rows, dir -> {
      Files.createDirectories(dir);
      writeSource(dir.resolve("source.arrow"));
    }).resolve("source.arrow");
    Bench.record("IndexBench", "rows", "table", rows, "rows");
    Bench.record("IndexBench", "rows selected by pct = 0", "table", bitmapRows, "rows");
  }

  /** Every probe on both systems through the indices, a few without; and that the indices answered. */
  private void checkProbes() {
    ScanMetrics metrics = new ScanMetrics();
    for (int i = 0; i < PROBES; i++) {
      checkPoint("quiver", pointScan(quiver, probeKeys[i], true, i == 0 ? metrics : null), probeIds[i]);
      checkPoint("lance", lance.scanReader(POINT_COLUMNS, 0, "key = " + probeKeys[i]), probeIds[i]);
    }
    if (metrics.fragmentsAnsweredByIndex() == 0 || metrics.fragmentsScannedWithoutIndex() != 0) {
      throw new IllegalStateException("quiver's point lookup did not use the btree: " + metrics);
    }
    for (int i = 0; i < 3; i++) {
      checkPoint("quiver unindexed", pointScan(quiver, probeKeys[i], false, null), probeIds[i]);
      checkPoint("lance unindexed", lance.scanReader(POINT_COLUMNS, 0, "key = " + probeKeys[i], false), probeIds[i]);
    }
    ScanMetrics bitmap = new ScanMetrics();
    checkBitmap("quiver", quiver.newScan().columns(BITMAP_COLUMNS).filter(Predicate.eq("pct", 0)).metrics(bitmap)
        .batchSize(Bench.BATCH_ROWS).open());
    if (bitmap.fragmentsAnsweredByIndex() == 0 || bitmap.fragmentsScannedWithoutIndex() != 0) {
      throw new IllegalStateException("quiver's pct = 0 did not use the bitmap: " + bitmap);
    }
    checkBitmap("lance", lance.scanReader(BITMAP_COLUMNS, Bench.BATCH_ROWS, "pct = 0"));
    Bench.record("IndexBench", "point lookup: fragments answered by the btree / all", "quiver",
        (double) metrics.fragmentsAnsweredByIndex() / Math.max(1, metrics.fragmentsConsidered()), "ratio");
    Bench.record("IndexBench", "point lookup: bytes fetched", "quiver", metrics.bytesFetched(), "bytes");
    Bench.record("IndexBench", "pct = 0: bytes fetched", "quiver", bitmap.bytesFetched(), "bytes");
  }

  // ---------------------------------------------------------------------------------------------
  // Tables

  /** The table without indices (the build and unindexed-merge benchmarks start from copies of it). */
  Path quiverPlain() {
    return Bench.cached("quiver-index-plain-" + rows, dir -> {
      long start = System.nanoTime();
      try (BufferAllocator a = new RootAllocator();
          ArrowReader reader = reader(a);
          Dataset ds = Dataset.create(dir.toString(), schema(), BenchData.batches(reader), Bench.quiverOptions(a))) {
        if (ds.countRows() != rows) {
          throw new IllegalStateException("quiver: created " + ds.countRows() + " rows, expected " + rows);
        }
      }
      Bench.record("IndexBench", "create time (not an index build)", "quiver", (System.nanoTime() - start) / 1e6, "ms");
    });
  }

  Path lancePlain() {
    return Bench.cached("lance-index-plain-" + rows, dir -> {
      long start = System.nanoTime();
      try (BufferAllocator a = new RootAllocator();
          LanceTable t = LanceTable.create(a, dir, reader(a), Bench.ROWS_PER_FRAGMENT, 0)) {
        if (t.countRows() != rows) {
          throw new IllegalStateException("lance: created " + t.countRows() + " rows, expected " + rows);
        }
      }
      Bench.record("IndexBench", "create time (not an index build)", "lance", (System.nanoTime() - start) / 1e6, "ms");
    });
  }

  /** The table with the btree on key and the bitmap on pct (data files hard-linked from the plain one). */
  Path quiverIndexed() {
    Path plain = quiverPlain();
    return Bench.cached("quiver-index-indexed-" + rows, dir -> {
      Path copy = Bench.copyOf(plain, "quiver-indexed");
      try (BufferAllocator a = new RootAllocator(); Dataset ds = Dataset.open(copy.toString(), Bench.quiverOptions(a))) {
        ds.indices().create(KEY_INDEX, ScalarIndex.Kind.BTREE, "key");
        ds.indices().create(PCT_INDEX, ScalarIndex.Kind.BITMAP, "pct");
      }
      Files.move(copy, dir);
    });
  }

  Path lanceIndexed() {
    Path plain = lancePlain();
    return Bench.cached("lance-index-indexed-" + rows, dir -> {
      Path copy = Bench.copyOf(plain, "lance-indexed");
      try (BufferAllocator a = new RootAllocator(); LanceTable t = LanceTable.open(a, copy)) {
        t.createScalarIndex("key", IndexType.BTREE, KEY_INDEX);
        t.createScalarIndex("pct", IndexType.BITMAP, PCT_INDEX);
      }
      Files.move(copy, dir);
    });
  }

  /** The generated rows: BenchData's columns, with {@code key} replaced by the permuted row number. */
  ArrowReader reader(BufferAllocator a) {
    ArrowReader generated = BenchData.reader(a, schema(), 0, rows, Bench.BATCH_ROWS);
    Permutation p = new Permutation(rows);
    return new ArrowReader(a) {
      @Override
      public boolean loadNextBatch() throws IOException {
        if (!generated.loadNextBatch()) {
          return false;
        }
        VectorSchemaRoot root = generated.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        BigIntVector key = (BigIntVector) root.getVector("key");
        for (int i = 0; i < root.getRowCount(); i++) {
          key.set(i, p.apply(id.get(i)));
        }
        return true;
      }

      @Override
      public VectorSchemaRoot getVectorSchemaRoot() throws IOException {
        return generated.getVectorSchemaRoot();
      }

      @Override
      public long bytesRead() {
        return 0;
      }

      @Override
      protected void closeReadSource() throws IOException {
        generated.close();
      }

      @Override
      protected Schema readSchema() {
        return schema();
      }
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Point lookups and the bitmap filter

  static ArrowReader pointScan(Dataset ds, long key, boolean useIndices, ScanMetrics metrics) {
    return ds.newScan().columns(POINT_COLUMNS).filter(Predicate.eq("key", key)).useIndices(useIndices)
        .metrics(metrics).open();
  }

  /** One row, with the expected id; returns the id. */
  static long checkPoint(String system, ArrowReader reader, long expectedId) {
    long n = 0;
    long id = -1;
    try (reader) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          id = ((BigIntVector) root.getVector("id")).get(i);
          n++;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (n != 1 || id != expectedId) {
      throw new IllegalStateException(system + ": point lookup returned " + n + " rows (last id " + id
          + "), expected 1 row with id " + expectedId);
    }
    return id;
  }

  /** The rows with pct = 0: their number and id sum. */
  long checkBitmap(String system, ArrowReader reader) {
    long n = 0;
    long sum = 0;
    try (reader) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        n += root.getRowCount();
        sum += LanceTable.int64Sum(root, "id");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (n != bitmapRows || sum != bitmapIdSum) {
      throw new IllegalStateException(system + ": pct = 0 returned " + n + " rows (id sum " + sum + "), expected "
          + bitmapRows + " (id sum " + bitmapIdSum + ")");
    }
    return sum;
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  @Warmup(iterations = 2, time = 3)
  @Measurement(iterations = 5, time = 5)
  public long pointQuiver() {
    int i = probe++ & (PROBES - 1);
    return checkPoint("quiver", pointScan(quiver, probeKeys[i], true, null), probeIds[i]);
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  @Warmup(iterations = 2, time = 3)
  @Measurement(iterations = 5, time = 5)
  public long pointLance() {
    int i = probe++ & (PROBES - 1);
    return checkPoint("lance", lance.scanReader(POINT_COLUMNS, 0, "key = " + probeKeys[i]), probeIds[i]);
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  @Warmup(iterations = 2, time = 3)
  @Measurement(iterations = 5, time = 5)
  public long pointUnindexedQuiver() {
    int i = probe++ & (PROBES - 1);
    return checkPoint("quiver unindexed", pointScan(quiver, probeKeys[i], false, null), probeIds[i]);
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  @Warmup(iterations = 2, time = 3)
  @Measurement(iterations = 5, time = 5)
  public long pointUnindexedLance() {
    int i = probe++ & (PROBES - 1);
    return checkPoint("lance unindexed", lance.scanReader(POINT_COLUMNS, 0, "key = " + probeKeys[i], false),
        probeIds[i]);
  }

  @Benchmark
  public long bitmapQuiver() {
    return checkBitmap("quiver", quiver.newScan().columns(BITMAP_COLUMNS).filter(Predicate.eq("pct", 0))
        .batchSize(Bench.BATCH_ROWS).open());
  }

  @Benchmark
  public long bitmapLance() {
    return checkBitmap("lance", lance.scanReader(BITMAP_COLUMNS, Bench.BATCH_ROWS, "pct = 0"));
  }

  @Benchmark
  public long bitmapUnindexedQuiver() {
    return checkBitmap("quiver unindexed", quiver.newScan().columns(BITMAP_COLUMNS).filter(Predicate.eq("pct", 0))
        .useIndices(false).batchSize(Bench.BATCH_ROWS).open());
  }

  @Benchmark
  public long bitmapUnindexedLance() {
    return checkBitmap("lance unindexed", lance.scanReader(BITMAP_COLUMNS, Bench.BATCH_ROWS, "pct = 0", false));
  }

  // ---------------------------------------------------------------------------------------------
  // Merge-insert by the indexed key

  /** Key of source row {@code i}: an existing key (0, 200, 400, ...: rows spread by the permutation), then new. */
  long sourceKey(long i) {
    return i < sourceRows / 2 ? i * 200 : rows + (i - sourceRows / 2);
  }

  /** The id of the row holding {@code key} once merged: the existing row's, or the key itself for new rows. */
  long sourceId(long key) {
    return key < rows ? permutation.invert(key) : key;
  }

  private void writeSource(Path file) throws IOException {
    try (BufferAllocator a = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(schema(), a);
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        ArrowFileWriter w = new ArrowFileWriter(root, null, ch)) {
      w.start();
      BigIntVector id = (BigIntVector) root.getVector("id");
      BigIntVector key = (BigIntVector) root.getVector("key");
      IntVector pct = (IntVector) root.getVector("pct");
      Float8Vector x = (Float8Vector) root.getVector("x");
      VarCharVector s = (VarCharVector) root.getVector("s");
      for (long from = 0; from < sourceRows; from += Bench.BATCH_ROWS) {
        int n = (int) Math.min(Bench.BATCH_ROWS, sourceRows - from);
        root.allocateNew();
        for (int r = 0; r < n; r++) {
          long k = sourceKey(from + r);
          long rowId = sourceId(k);
          id.setSafe(r, rowId);
          key.setSafe(r, k);
          pct.setSafe(r, BenchData.pctValue(rowId));
          x.setSafe(r, MERGED_X);
          s.setSafe(r, ("merged-" + k).getBytes(StandardCharsets.UTF_8));
        }
        root.setRowCount(n);
        w.writeBatch();
      }
      w.end();
    }
  }

  ArrowReader openSource(BufferAllocator a) {
    try {
      return new ArrowFileReader(FileChannel.open(source, StandardOpenOption.READ), a);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  long mergeQuiver(Dataset ds) {
    try (ArrowReader in = openSource(allocator)) {
      MergeInsertResult r = ds.mergeInsert("key").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(in);
      checkCounts("quiver", r.rowsUpdated(), r.rowsInserted());
      return r.version();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  long mergeLance(LanceTable table) {
    try (ArrowReader in = openSource(allocator); ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, in, stream);
      MergeInsertParams params = new MergeInsertParams(List.of("key")).withMatchedUpdateAll()
          .withNotMatched(MergeInsertParams.WhenNotMatched.InsertAll);
      MergeInsertStats stats = table.dataset().mergeInsert(params, stream).stats();
      checkCounts("lance", stats.numUpdatedRows(), stats.numInsertedRows());
      return stats.numUpdatedRows() + stats.numInsertedRows();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void checkCounts(String system, long updated, long inserted) {
    long half = sourceRows / 2;
    if (updated != half || inserted != sourceRows - half) {
      throw new IllegalStateException(system + ": " + updated + " updated and " + inserted + " inserted; expected "
          + half + " and " + (sourceRows - half));
    }
  }

  /** The merged table: its row count, the rows with the merged x, and merged and new keys found by lookup. */
  void checkMerged(String system, long count, ArrowReader mergedX, java.util.function.LongFunction<ArrowReader> lookup) {
    long expectedRows = rows + (sourceRows - sourceRows / 2);
    if (count != expectedRows) {
      throw new IllegalStateException(system + ": " + count + " rows after the merge, expected " + expectedRows);
    }
    long n = 0;
    long idSum = 0;
    long expectedSum = 0;
    for (long i = 0; i < sourceRows; i++) {
      expectedSum += sourceId(sourceKey(i));
    }
    try (mergedX) {
      while (mergedX.loadNextBatch()) {
        VectorSchemaRoot root = mergedX.getVectorSchemaRoot();
        n += root.getRowCount();
        idSum += LanceTable.int64Sum(root, "id");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (n != sourceRows || idSum != expectedSum) {
      throw new IllegalStateException(system + ": " + n + " rows with x = " + MERGED_X + " (id sum " + idSum
          + "), expected " + sourceRows + " (id sum " + expectedSum + ")");
    }
    for (long i : new long[] {0, sourceRows / 4, sourceRows / 2 - 1, sourceRows / 2, sourceRows - 1}) {
      long k = sourceKey(i);
      checkPoint(system + " after the merge, key " + k, lookup.apply(k), sourceId(k));
    }
  }

  /** A fresh copy of the indexed (or, {@link #indexed()} false, the plain) Quiver table per merge. */
  @State(Scope.Benchmark)
  public static class QuiverCopy {
    Path dir;
    Dataset ds;

    boolean indexed() {
      return true;
    }

    @Setup(Level.Iteration)
    public void copy(IndexBench shared) {
      dir = Bench.copyOf(indexed() ? shared.quiverIndexed() : shared.quiverPlain(), "index-merge-quiver");
      ds = Dataset.open(dir.toString(), Bench.quiverOptions(shared.allocator));
    }

    @TearDown(Level.Iteration)
    public void check(IndexBench shared) {
      try (Dataset merged = Dataset.open(dir.toString(), Bench.quiverOptions(shared.allocator))) {
        shared.checkMerged("quiver" + (indexed() ? "" : " unindexed"), merged.countRows(),
            merged.newScan().columns("id").filter(Predicate.eq("x", MERGED_X)).open(),
            k -> pointScan(merged, k, true, null));
      }
      ds.close();
      Bench.deleteTree(dir);
    }
  }

  /** The table without indices. */
  public static class QuiverPlainCopy extends QuiverCopy {
    @Override
    boolean indexed() {
      return false;
    }
  }

  /** A fresh copy of the indexed (or plain) Lance table per merge. */
  @State(Scope.Benchmark)
  public static class LanceCopy {
    Path dir;
    LanceTable table;

    boolean indexed() {
      return true;
    }

    @Setup(Level.Iteration)
    public void copy(IndexBench shared) {
      dir = Bench.copyOf(indexed() ? shared.lanceIndexed() : shared.lancePlain(), "index-merge-lance");
      table = LanceTable.open(shared.allocator, dir);
    }

    @TearDown(Level.Iteration)
    public void check(IndexBench shared) {
      table.close();
      try (LanceTable merged = LanceTable.open(shared.allocator, dir)) {
        shared.checkMerged("lance" + (indexed() ? "" : " unindexed"), merged.countRows(),
            merged.scanReader(List.of("id"), Bench.BATCH_ROWS, "x = " + MERGED_X),
            k -> merged.scanReader(POINT_COLUMNS, 0, "key = " + k));
      }
      Bench.deleteTree(dir);
    }
  }

  /** The table without indices. */
  public static class LancePlainCopy extends LanceCopy {
    @Override
    boolean indexed() {
      return false;
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 2)
  @Measurement(iterations = 6)
  public long mergeQuiver(QuiverCopy copy) {
    return mergeQuiver(copy.ds);
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 2)
  @Measurement(iterations = 6)
  public long mergeLance(LanceCopy copy) {
    return mergeLance(copy.table);
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 2)
  @Measurement(iterations = 6)
  public long mergeUnindexedQuiver(QuiverPlainCopy copy) {
    return mergeQuiver(copy.ds);
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 2)
  @Measurement(iterations = 6)
  public long mergeUnindexedLance(LancePlainCopy copy) {
    return mergeLance(copy.table);
  }

  // ---------------------------------------------------------------------------------------------
  // Index builds

  /** A fresh copy of the plain Quiver table per build; records the index's bytes on disk. */
  @State(Scope.Benchmark)
  public static class QuiverBuild {
    Path dir;
    Dataset ds;

    @Setup(Level.Iteration)
    public void copy(IndexBench shared) {
      dir = Bench.copyOf(shared.quiverPlain(), "index-build-quiver");
      ds = Dataset.open(dir.toString(), Bench.quiverOptions(shared.allocator));
    }

    @TearDown(Level.Iteration)
    public void record() {
      for (ScalarIndex index : ds.indices().list()) {
        String what = index.kind() == ScalarIndex.Kind.BTREE ? "btree on key" : "bitmap on pct";
        Bench.record("IndexBench", "index size on disk (_indices/), " + what, "quiver",
            Bench.sizeOf(dir.resolve("_indices")), "bytes");
      }
      ds.close();
      Bench.deleteTree(dir);
    }
  }

  /** A fresh copy of the plain Lance table per build; records the index's bytes on disk. */
  @State(Scope.Benchmark)
  public static class LanceBuild {
    Path dir;
    LanceTable table;

    @Setup(Level.Iteration)
    public void copy(IndexBench shared) {
      dir = Bench.copyOf(shared.lancePlain(), "index-build-lance");
      table = LanceTable.open(shared.allocator, dir);
    }

    @TearDown(Level.Iteration)
    public void record() {
      for (String name : table.indexNames()) {
        String what = name.equals(KEY_INDEX) ? "btree on key" : "bitmap on pct";
        Bench.record("IndexBench", "index size on disk (_indices/), " + what, "lance",
            Bench.sizeOf(dir.resolve("_indices")), "bytes");
      }
      table.close();
      Bench.deleteTree(dir);
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 1)
  @Measurement(iterations = 5)
  public long buildBtreeQuiver(QuiverBuild build) {
    return build.ds.indices().create(KEY_INDEX, ScalarIndex.Kind.BTREE, "key").sizeBytes();
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 1)
  @Measurement(iterations = 5)
  public long buildBtreeLance(LanceBuild build) {
    return build.table.createScalarIndex("key", IndexType.BTREE, KEY_INDEX).datasetVersion();
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 1)
  @Measurement(iterations = 5)
  public long buildBitmapQuiver(QuiverBuild build) {
    return build.ds.indices().create(PCT_INDEX, ScalarIndex.Kind.BITMAP, "pct").sizeBytes();
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 1)
  @Measurement(iterations = 5)
  public long buildBitmapLance(LanceBuild build) {
    return build.table.createScalarIndex("pct", IndexType.BITMAP, PCT_INDEX).datasetVersion();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    quiver.close();
    lance.close();
    allocator.close();
  }

  /**
   * A seeded bijection of [0, n): a 4-round Feistel network on the smallest even-bit power of two at least n,
   * cycle-walked back into [0, n) (at most 4× the domain, so about 1.5 rounds of walking on average). Stateless:
   * the key of any row, and the row of any key, is computed, not stored.
   */
  static final class Permutation {
    private final long n;
    private final int half;
    private final long mask;

    Permutation(long n) {
      if (n < 2) {
        throw new IllegalArgumentException("permutation of " + n + " values");
      }
      this.n = n;
      int bits = 64 - Long.numberOfLeadingZeros(n - 1);
      this.half = (bits + 1) / 2;
      this.mask = (1L << half) - 1;
    }

    private long round(long r, int i) {
      long z = (r + 0x9E3779B97F4A7C15L * (i + 1) + BenchData.SEED) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 29)) * 0x94D049BB133111EBL;
      return (z ^ (z >>> 32)) & mask;
    }

    private long forward(long x) {
      long l = x >>> half;
      long r = x & mask;
      for (int i = 0; i < 4; i++) {
        long t = l ^ round(r, i);
        l = r;
        r = t;
      }
      return (l << half) | r;
    }

    private long backward(long x) {
      long l = x >>> half;
      long r = x & mask;
      for (int i = 3; i >= 0; i--) {
        long t = r ^ round(l, i);
        r = l;
        l = t;
      }
      return (l << half) | r;
    }

    long apply(long x) {
      long y = forward(x);
      while (y >= n) {
        y = forward(y);
      }
      return y;
    }

    long invert(long y) {
      long x = backward(y);
      while (x >= n) {
        x = backward(x);
      }
      return x;
    }
  }
}
