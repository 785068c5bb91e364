import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.MergeInsertResult;
import io.quiver.manifest.Fragment;
import io.quiver.predicate.Predicate;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * The Java reader's side of bench.py's operations: on the scan table, a take of 1,000 random rows of (id, x, s)
 * on the calling thread, a filtered scan of 1% of the clustered {@code id} and a merge-insert of MakeOpsData's
 * 1% source (update all matched, insert the rest; each merge timed, then undone by a restore, untimed); on the blob
 * table, Lance's published take shape: 200 queries of 200 scattered rows of the ~1 KiB {@code text} column. The rows
 * of query {@code q} are {@link #positions}, which bench.py computes the same way for quiver-py and pylance.
 * Usage: {@code JavaOps TABLE_DIR OPS_DIR [REPEAT, default 5] [WARMUP, default 3]}. Prints {@code java-op <label>
 * median_s=<s> min_s=<s>} lines (the blob take also {@code p50_ms}, {@code qps} and {@code text_bytes}, the text
 * bytes query 0 returned, which bench.py checks pylance against).
 */
public class JavaOps {
  static final int TAKE_ROWS = 1000;
  static final int TAKE_QUERIES = 20;
  static final int BLOB_QUERIES = 200;
  static final int BLOB_ROWS = 200;

  public static void main(String[] args) throws Exception {
    String table = "file://" + Path.of(args[0]).toAbsolutePath();
    Path ops = Path.of(args[1]);
    int repeat = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    try (RootAllocator allocator = new RootAllocator()) {
      try (Dataset ds = Dataset.open(table, DatasetOptions.builder().allocator(allocator).build())) {
        long rows = ds.countRows();
        take(ds, rows, repeat, warmup);
        filtered(ds, rows, repeat, warmup);
        merge(ds, allocator, ops.resolve("merge-source.arrow"), rows, repeat);
      }
      Path blob = ops.resolve("blob-quiver");
      if (blob.resolve("_versions").toFile().isDirectory()) {
        try (Dataset ds = Dataset.open("file://" + blob.toAbsolutePath(),
            DatasetOptions.builder().allocator(allocator).build())) {
          blobTake(ds, repeat, warmup);
        }
      }
      if (allocator.getAllocatedMemory() != 0) {
        throw new IllegalStateException("Arrow memory still allocated: " + allocator.getAllocatedMemory());
      }
    }
  }

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** {@code count} distinct row positions in [0, rows) for query {@code q}, in hash order (bench.py: positions). */
  static long[] positions(long rows, int count, int q) {
    LinkedHashSet<Long> picked = new LinkedHashSet<>();
    long k = 0;
    while (picked.size() < count) {
      picked.add(Long.remainderUnsigned(mix((q + 1) * 0x9E3779B97F4A7C15L + k++), rows));
    }
    return picked.stream().mapToLong(Long::longValue).toArray();
  }

  /** Row positions to addresses ({@code fragment id << 32 | offset}) over the fragments in order. */
  static long[] addresses(Dataset ds, long[] positions) {
    List<Fragment> fragments = ds.manifest().fragments();
    long[] starts = new long[fragments.size() + 1];
    for (int i = 0; i < fragments.size(); i++) {
      if (fragments.get(i).liveRows() != fragments.get(i).physicalRows()) {
        throw new IllegalStateException("the benchmark table has deleted rows; regenerate it");
      }
      starts[i + 1] = starts[i] + fragments.get(i).physicalRows();
    }
    long[] out = new long[positions.length];
    for (int i = 0; i < positions.length; i++) {
      int f = java.util.Arrays.binarySearch(starts, positions[i]);
      f = f >= 0 ? f : -f - 2;
      out[i] = (fragments.get(f).id() << 32) | (positions[i] - starts[f]);
    }
    return out;
  }

  static void take(Dataset ds, long rows, int repeat, int warmup) {
    long[][] sets = new long[TAKE_QUERIES][];
    long[] sums = new long[TAKE_QUERIES];
    for (int q = 0; q < TAKE_QUERIES; q++) {
      long[] p = positions(rows, TAKE_ROWS, q);
      sets[q] = addresses(ds, p);
      for (long x : p) {
        sums[q] += x;
      }
    }
    List<Double> times = new ArrayList<>();
    for (int i = 0; i < warmup + repeat; i++) {
      for (int q = 0; q < TAKE_QUERIES; q++) {
        long t0 = System.nanoTime();
        try (VectorSchemaRoot r = ds.take(sets[q], List.of("id", "x", "s"))) {
          check("take", sumIds(r), sums[q]);
        }
        if (i >= warmup) {
          times.add((System.nanoTime() - t0) / 1e9);
        }
      }
    }
    print("take", times, "");
  }

  static void filtered(Dataset ds, long rows, int repeat, int warmup) {
    long lo = rows / 2;
    long hi = lo + rows / 100;
    long want = (hi * (hi - 1) - lo * (lo - 1)) / 2;
    List<Double> times = new ArrayList<>();
    for (int i = 0; i < warmup + repeat; i++) {
      long t0 = System.nanoTime();
      long sum = 0;
      try (ArrowReader r = ds.newScan().columns("id", "x")
          .filter(Predicate.and(Predicate.ge("id", lo), Predicate.lt("id", hi))).open()) {
        while (r.loadNextBatch()) {
          sum += sumIds(r.getVectorSchemaRoot());
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      check("filtered scan", sum, want);
      if (i >= warmup) {
        times.add((System.nanoTime() - t0) / 1e9);
      }
    }
    print("filtered", times, "");
  }

  static void merge(Dataset ds, BufferAllocator allocator, Path source, long rows, int repeat) throws Exception {
    long base = ds.version();
    long n = rows / 100;
    List<Double> times = new ArrayList<>();
    try {
      for (int i = 0; i < 1 + repeat; i++) {
        MergeInsertResult res;
        long t0 = System.nanoTime();
        try (ArrowReader in = new ArrowFileReader(FileChannel.open(source, StandardOpenOption.READ), allocator)) {
          res = ds.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(in);
        }
        double s = (System.nanoTime() - t0) / 1e9;
        if (res.rowsUpdated() != n / 2 || res.rowsInserted() != n - n / 2) {
          throw new IllegalStateException("merge: updated " + res.rowsUpdated() + ", inserted " + res.rowsInserted()
              + ", expected " + n / 2 + " and " + (n - n / 2));
        }
        if (i >= 1) {
          times.add(s);
        }
        ds.restore(base);
      }
    } finally {
      if (ds.countRows() != rows) {
        ds.restore(base);
      }
    }
    print("merge", times, "");
  }

  static void blobTake(Dataset ds, int repeat, int warmup) {
    long rows = ds.countRows();
    long[][] sets = new long[BLOB_QUERIES][];
    for (int q = 0; q < BLOB_QUERIES; q++) {
      sets[q] = addresses(ds, positions(rows, BLOB_ROWS, q));
    }
    long textBytes = 0;
    List<Double> times = new ArrayList<>();
    List<Double> all = new ArrayList<>();
    for (int i = 0; i < Math.max(1, warmup / 2) + Math.max(1, repeat / 2); i++) {
      long t0 = System.nanoTime();
      for (int q = 0; q < BLOB_QUERIES; q++) {
        long q0 = System.nanoTime();
        try (VectorSchemaRoot r = ds.take(sets[q], List.of("text"))) {
          VarCharVector text = (VarCharVector) r.getVector("text");
          if (text.getValueCount() != BLOB_ROWS) {
            throw new IllegalStateException("blob take returned " + text.getValueCount() + " rows");
          }
          if (q == 0) {
            textBytes = text.getOffsetBuffer().getInt(4L * BLOB_ROWS);
          }
        }
        if (i >= Math.max(1, warmup / 2)) {
          all.add((System.nanoTime() - q0) / 1e9);
        }
      }
      if (i >= Math.max(1, warmup / 2)) {
        times.add((System.nanoTime() - t0) / 1e9);
      }
    }
    Collections.sort(all);
    double p50 = all.get(all.size() / 2) * 1e3;
    double qps = BLOB_QUERIES / Collections.min(times);
    print("blob-take", times, String.format(" p50_ms=%.3f qps=%.1f text_bytes=%d", p50, qps, textBytes));
  }

  static long sumIds(VectorSchemaRoot r) {
    BigIntVector id = (BigIntVector) r.getVector("id");
    long s = 0;
    for (int i = 0; i < r.getRowCount(); i++) {
      s += id.get(i);
    }
    return s;
  }

  static void check(String what, long got, long want) {
    if (got != want) {
      throw new IllegalStateException(what + ": sum of id " + got + ", expected " + want);
    }
  }

  static void print(String label, List<Double> times, String extra) {
    List<Double> t = new ArrayList<>(times);
    Collections.sort(t);
    double median = t.size() % 2 == 1 ? t.get(t.size() / 2) : (t.get(t.size() / 2 - 1) + t.get(t.size() / 2)) / 2;
    System.out.printf("java-op %s median_s=%.6f min_s=%.6f%s%n", label, median, t.get(0), extra);
  }
}
