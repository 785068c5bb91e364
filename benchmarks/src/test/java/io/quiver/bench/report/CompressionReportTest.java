package io.quiver.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The compression section: its rows and ratios, and its place in RESULTS.md (replaced, kept by Report). */
class CompressionReportTest {
  private static String result(String method, double ms) {
    return "{\"benchmark\":\"io.quiver.bench.CompressionBench." + method + "\",\"mode\":\"avgt\",\"params\":{},"
        + "\"primaryMetric\":{\"score\":" + ms + ",\"scoreError\":" + (ms / 10) + ",\"scoreUnit\":\"ms/op\"}}";
  }

  @Test
  void rendersTimesRatiosSizesAndBytesAndReplacesItsOwnSectionOnly() throws Exception {
    String json = "[" + String.join(",", result("scanQuiverZstd", 200), result("scanQuiverZstd1", 180),
        result("scanQuiverPlain", 100), result("scanLance", 400), result("scanArrowZstd", 190),
        result("takeQuiverZstd", 30), result("takeQuiverPlain", 10), result("takeLance", 20)) + "]";
    List<String[]> measurements = List.of(
        new String[] {"CompressionBench", "rows", "table", "500000", "rows"},
        new String[] {"CompressionBench", "table size on disk", "quiverZstd", "50000000", "bytes"},
        new String[] {"CompressionBench", "table size on disk", "quiverPlain", "100000000", "bytes"},
        new String[] {"CompressionBench", "projected scan of id: bytes fetched / Arrow bytes", "quiverZstd", "0.25", "ratio"},
        new String[] {"Tables", "create time", "quiver-scan-zstd1-ms25-500000", "5000", "ms"});
    String section = CompressionReport.render(new ObjectMapper().readTree(json), measurements, "quick", "1.0 1.1 1.2",
        "2.0 2.1 2.2", Optional.of("Decision: on."));
    assertThat(section).startsWith(CompressionReport.BEGIN).endsWith(CompressionReport.END + "\n")
        .contains("| full scan, 4 columns | Quiver, uncompressed | 100 ms ± 10.0% (5.0 M rows/s) | **0.50×** |")
        .contains("| full scan, 4 columns | Lance 7.0.0 | 400 ms ± 10.0% (1.3 M rows/s) | **2.00×** |")
        .contains("/ from the uncompressed table: **3.00×**")
        .contains("| table size on disk | Quiver, ZSTD 1, min savings 25% (default) | 50.0 MB (0.50× uncompressed) |")
        .contains("| create (write + commit, fsync on) | Quiver, ZSTD 1, min savings 25% (default) | 5.0 s (0.10 M rows/s) |")
        .contains("bytes fetched from the store / Arrow bytes | Quiver, ZSTD 1, min savings 25% (default) | 0.250 |")
        .contains("at the start: 1.0 1.1 1.2, at the end: 2.0 2.1 2.2").contains("Decision: on.");
    String file = "# Quiver benchmarks\n\nrows\n\n" + CompressionReport.BEGIN + " old -->\nold\n" + CompressionReport.END
        + "\n\n<!-- spark:begin -->\nspark\n<!-- spark:end -->\n";
    String replaced = CompressionReport.replace(file, section);
    assertThat(replaced).contains(section).doesNotContain("old\n").contains("spark\n").startsWith("# Quiver benchmarks");
    assertThat(CompressionReport.replace("# none\n", section)).isEqualTo("# none\n\n" + section);
    assertThat(Report.keptSections(replaced)).contains(section.strip());
  }
}
