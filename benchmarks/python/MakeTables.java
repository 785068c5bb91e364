import io.quiver.bench.data.BenchData;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Writes benchmark 1's scan table (BenchData.scanSchema: id, x, s, v float32[128]) with ROWS rows as a Quiver table
 * at OUT/quiver (default configuration: ZSTD bodies, 1,048,576 rows per fragment, 8,192 rows per batch). run.sh
 * runs it; the same rows go to pylance from the Quiver table's own Arrow files, so every reader reads the
 * same values. Arguments after ROWS are table configuration, {@code key=value} (e.g.
 * {@code write.compression.frame-bytes=65536}), applied to the initial rows.
 */
public class MakeTables {
  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    long rows = Long.parseLong(args[1]);
    Map<String, String> config = new TreeMap<>();
    for (int i = 2; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      config.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    Files.createDirectories(out);
    try (RootAllocator allocator = new RootAllocator();
        var reader = BenchData.reader(allocator, BenchData.scanSchema(), 0, rows, 8192)) {
      DatasetOptions options = DatasetOptions.builder().allocator(allocator).build();
      try (Dataset ds = Dataset.create("file://" + out.resolve("quiver").toAbsolutePath(), BenchData.scanSchema(),
          BenchData.batches(reader), options, config)) {
        System.out.println("quiver table: version " + ds.version() + ", " + ds.countRows() + " rows, "
            + ds.manifest().fragments().size() + " fragments, configuration " + config);
      }
    }
  }
}
