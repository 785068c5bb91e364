package io.quiver.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** RESULTS.md is generated from JMH's JSON; these are the pairings and ratios it must get right. */
class ReportTest {
  private static String result(String benchmark, String mode, double score, String unit, String params,
      String percentiles) {
    return "{\"benchmark\":\"io.quiver.bench." + benchmark + "\",\"mode\":\"" + mode + "\",\"params\":{" + params
        + "},\"jdkVersion\":\"17.0.15\",\"vmName\":\"OpenJDK\",\"vmVersion\":\"17\",\"jvmArgs\":[\"-Xmx4g\"],"
        + "\"primaryMetric\":{\"score\":" + score + ",\"scoreError\":" + (score / 10) + ",\"scoreUnit\":\"" + unit
        + "\",\"scorePercentiles\":{" + percentiles + "}}}";
  }

  @Test
  void pairsQuiverWithEachBaselineAndReportsSpeedRatiosRowsPerSecondAndPercentiles() throws Exception {
    String json = "[" + String.join(",",
        result("FullScanBench.quiver", "avgt", 100, "ms/op", "", ""),
        result("FullScanBench.lance", "avgt", 250, "ms/op", "", ""),
        result("FullScanBench.arrow", "avgt", 0.08, "s/op", "", ""),
        result("AppendBench.quiver", "sample", 5, "ms/op", "", "\"50.0\":4.0,\"99.0\":9.0"),
        result("AppendBench.quiverNoSync", "sample", 3, "ms/op", "", "\"50.0\":2.0,\"99.0\":6.0"),
        result("AppendBench.lance", "sample", 4, "ms/op", "", "\"50.0\":3.0,\"99.0\":12.0"),
        result("ConcurrentAppendBench.quiver", "ss", 2000, "ms/op", "", ""),
        result("ConcurrentAppendBench.lance", "ss", 1000, "ms/op", "", ""),
        result("TableSizeBench.openQuiver", "avgt", 2, "ms/op", "\"fragments\":\"1000\"", ""),
        result("TableSizeBench.openLance", "avgt", 20, "ms/op", "\"fragments\":\"1000\"", ""),
        result("TableSizeBench.appendQuiver", "avgt", 4, "ms/op", "\"fragments\":\"1000\"", ""),
        result("TableSizeBench.appendQuiver", "avgt", 5, "ms/op", "\"fragments\":\"1000000\"", ""),
        result("TableSizeBench.appendQuiverNoSync", "avgt", 2, "ms/op", "\"fragments\":\"1000\"", ""),
        result("TableSizeBench.appendQuiverNoSync", "avgt", 3, "ms/op", "\"fragments\":\"1000000\"", ""),
        result("ConflictCostBench.quiver", "avgt", 10, "ms/op", "\"behind\":\"1\"", ""),
        result("ConflictCostBench.quiver", "avgt", 109, "ms/op", "\"behind\":\"100\"", ""),
        result("OverlayUpdateBench.scanBeforeQuiver", "avgt", 10, "ms/op", "", ""),
        result("OverlayUpdateBench.scanAfterQuiver", "avgt", 15, "ms/op", "", "")) + "]";
    JsonNode results = new ObjectMapper().readTree(json);
    List<String[]> measurements = List.of(
        new String[] {"FullScanBench", "rows", "table", "1000000", "rows"},
        new String[] {"ConcurrentAppendBench", "commits", "both", "200", "commits"},
        new String[] {"OverlayUpdateBench", "bytes written by the update", "quiver", "100", "bytes"},
        new String[] {"OverlayUpdateBench", "bytes written by the update", "quiver", "300", "bytes"});

    String md = Report.render(results, measurements, "quick", Optional.of("## Why\n\nnotes"));

    assertThat(md).contains("| 1. Full scan | — | — | 100 ms ± 10.0% (10.0 M rows/s) | Lance 7.0.0 | 250 ms ± 10.0% (4.0 M rows/s) | **2.50×** |");
    assertThat(md).contains("| Arrow IPC reader | 80.00 ms ± 10.0% (12.5 M rows/s) | **0.80×** |");
    assertThat(md).contains("| 4. Append commit, 1,000 rows | — p50 | — | 4.00 ms | Lance 7.0.0 | 3.00 ms | **0.75×** |");
    assertThat(md).contains("| 4. Append commit, 1,000 rows | — p99 | — | 9.00 ms | Lance 7.0.0 | 12.00 ms | **1.33×** |");
    assertThat(md).contains("| fsync off p50 | — | 2.00 ms | Lance 7.0.0 | 3.00 ms | **1.50×** |");
    assertThat(md).contains("(100 commits/s)").contains("(200 commits/s)").contains("**0.50×**");
    assertThat(md).contains("| 7. Table size | open | fragments=1000 | 2.00 ms ± 10.0% | Lance 7.0.0 | 20.00 ms ± 10.0% | **10.00×** |");
    // Without a baseline (Lance stops at 100k fragments) the fsync-off row is still there, and the ratio to 1k.
    assertThat(md).contains("| 7. Table size | append, fsync off | fragments=1000000 | 3.00 ms ± 10.0% | — | — | — |");
    assertThat(md).contains("| 7. Table size | append vs 1,000 fragments | fragments=1000000 | 1.25× the time |");
    assertThat(md).contains("| 7. Table size | append, fsync off vs 1,000 fragments | fragments=1000000 | 1.50× the time |");
    assertThat(md).contains("| vs 1 behind | behind=100 | 10.90× the time; 1000.0 µs per version behind |");
    assertThat(md).contains("| scan after / scan before | — | 1.50× the time |");
    assertThat(md).contains("| 9. Overlay update, 1% of one column | bytes written by the update | quiver | 200 | bytes |");
    assertThat(md).contains("| 2. Projected scan (1 of 32 columns) | — | — | not run |");
    assertThat(md).contains("- JDK: OpenJDK 17.0.15 (17)").endsWith("## Why\n\nnotes\n");
  }

  @Test
  void keepsTheImportAndSparkSectionsOfTheFileItReplaces() {
    String imports = "<!-- import-bench:begin (x) -->\n| import |\n<!-- import-bench:end -->";
    String spark = "<!-- spark:begin (written by benchmarks-spark/run.sh) -->\n\n## Spark\n\n| x |\n<!-- spark:end -->";
    String previous = "# Quiver benchmarks\n\nold rows\n\n" + spark + "\n\n" + imports + "\n";
    assertThat(Report.keptSections(previous)).isEqualTo("\n" + imports + "\n\n" + spark + "\n");
    assertThat(Report.keptSections("# no section\n")).isEmpty();
  }

  @Test
  void keepsTheHandWrittenIndexSectionAndPutsTheIndexedAgainstUnindexedRatios() throws Exception {
    String index = "<!-- index-bench:begin (by hand) -->\n## Scalar indices\n<!-- index-bench:end -->";
    String hand = "<!-- hand-written:begin (x) -->\n## Older\n<!-- hand-written:end -->";
    assertThat(Report.keptSections("# Quiver benchmarks\n\n" + hand + "\n\n" + index + "\n"))
        .isEqualTo("\n" + index + "\n\n" + hand + "\n");

    String json = "[" + String.join(",",
        result("IndexBench.pointQuiver", "sample", 0.5, "ms/op", "", "\"50.0\":0.2,\"99.0\":1.0"),
        result("IndexBench.pointLance", "sample", 1.0, "ms/op", "", "\"50.0\":0.6,\"99.0\":3.0"),
        result("IndexBench.pointUnindexedQuiver", "sample", 500, "ms/op", "", "\"50.0\":400,\"99.0\":900"),
        result("IndexBench.bitmapQuiver", "avgt", 10, "ms/op", "", ""),
        result("IndexBench.bitmapUnindexedQuiver", "avgt", 5, "ms/op", "", ""),
        result("IndexBench.bitmapLance", "avgt", 5, "ms/op", "", ""),
        result("IndexBench.bitmapUnindexedLance", "avgt", 50, "ms/op", "", "")) + "]";
    String md = Report.render(new ObjectMapper().readTree(json), List.of(), "full", Optional.empty());
    String title = "13. Scalar indices (btree on an unclustered int64 key, bitmap on 100 values)";
    assertThat(md).contains("| " + title + " | point p50 | — | 200.0 µs | Lance 7.0.0 | 600.0 µs | **3.00×** |");
    assertThat(md).contains("| " + title + " | point p50: indices off / on | — | 2000.0× faster with the index | — | — | — |");
    assertThat(md).contains("| " + title + " | bitmap: indices off / on | — | 2.0× slower with the index | — | — | — |");
    assertThat(md).contains("| " + title + " | bitmap: indices off / on | — | — | Lance 7.0.0 | 10.0× faster with the index | — |");
  }
}
