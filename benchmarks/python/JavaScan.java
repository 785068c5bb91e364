import io.quiver.bench.Scans;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;

/**
 * The Java reader's side of the Python benchmark: the same full scan and (id, x) projection of the same Quiver
 * table, through the public Dataset API as benchmark 1 scans ({@code newScan().batchSize(8192).open()}, drained
 * by {@link Scans#drain}, which sums {@code id} and counts every column's values; the checksum is checked). run.sh
 * runs it like MakeTables. Usage: {@code JavaScan TABLE_DIR [REPEAT, default 5] [WARMUP, default 3]}. Prints
 * one line per scan, {@code java-scan <label> median_s=<seconds> min_s=<seconds>}, which bench.py reads.
 */
public class JavaScan {
  public static void main(String[] args) throws Exception {
    String table = "file://" + java.nio.file.Path.of(args[0]).toAbsolutePath();
    int repeat = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    try (RootAllocator allocator = new RootAllocator();
        Dataset ds = Dataset.open(table, DatasetOptions.builder().allocator(allocator).build())) {
      long rows = ds.countRows();
      scan("full", ds, null, Scans.expected(rows, 4), repeat, warmup);
      scan("projected", ds, List.of("id", "x"), Scans.expected(rows, 2), repeat, warmup);
      if (allocator.getAllocatedMemory() != 0) {
        throw new IllegalStateException("Arrow memory still allocated: " + allocator.getAllocatedMemory());
      }
    }
  }

  private static void scan(String label, Dataset ds, List<String> columns, long expected, int repeat,
      int warmup) {
    List<Double> times = new ArrayList<>();
    for (int i = 0; i < warmup + repeat; i++) {
      long t0 = System.nanoTime();
      var scan = ds.newScan().batchSize(8192);
      if (columns != null) {
        scan = scan.columns(columns);
      }
      Scans.check("java " + label + " scan", Scans.drain(scan.open()), expected);
      double s = (System.nanoTime() - t0) / 1e9;
      if (i >= warmup) {
        times.add(s);
      }
    }
    Collections.sort(times);
    double median = times.size() % 2 == 1 ? times.get(times.size() / 2)
        : (times.get(times.size() / 2 - 1) + times.get(times.size() / 2)) / 2;
    System.out.printf("java-scan %s median_s=%.6f min_s=%.6f%n", label, median, times.get(0));
  }
}
