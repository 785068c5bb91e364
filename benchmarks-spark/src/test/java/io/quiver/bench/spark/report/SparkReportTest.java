package io.quiver.bench.spark.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SparkReportTest {
  private static final String JMH = """
      [
        {"benchmark": "io.quiver.bench.spark.SparkScanBench.fullScanQuiver", "mode": "ss",
         "primaryMetric": {"score": 500.0, "scoreError": 50.0, "scoreUnit": "ms/op"}},
        {"benchmark": "io.quiver.bench.spark.SparkScanBench.fullScanParquet", "mode": "ss",
         "primaryMetric": {"score": 1000.0, "scoreError": 100.0, "scoreUnit": "ms/op"}},
        {"benchmark": "io.quiver.bench.spark.SparkScanBench.filteredQuiver", "mode": "ss",
         "primaryMetric": {"score": 0.2, "scoreError": "NaN", "scoreUnit": "s/op"}},
        {"benchmark": "io.quiver.bench.spark.SparkAppendBench.quiver", "mode": "ss",
         "primaryMetric": {"score": 2000.0, "scoreError": 0.0, "scoreUnit": "ms/op"}},
        {"benchmark": "io.quiver.bench.spark.SparkAppendBench.parquet", "mode": "ss",
         "primaryMetric": {"score": 1000.0, "scoreError": 0.0, "scoreUnit": "ms/op"}}
      ]""";
  private static final List<String[]> MEASUREMENTS = List.of(
      new String[] {"SparkScanBench", "rows", "table", "1000000.0", "rows"},
      new String[] {"SparkAppendBench", "rows", "table", "1000000.0", "rows"},
      new String[] {"SparkScanBench", "filtered query: tasks' inputMetrics.bytesRead", "parquet", "1234567.0", "bytes"},
      new String[] {"SparkScanBench", "filtered query: tasks' inputMetrics.bytesRead", "parquet", "1234569.0", "bytes"});

  private static List<SparkReport.Result> parsed() throws Exception {
    return SparkReport.parse(new ObjectMapper().readTree(JMH));
  }

  @Test
  void aRow_hasBothTimes_rowsPerSecond_andTheRatioBaselineOverQuiver() throws Exception {
    String table = SparkReport.table(parsed(), MEASUREMENTS);
    assertThat(table).contains("| S1. Spark scan, 4 columns | full scan (noop sink) | rows=1,000,000 | 500 ms ± 10.0% "
        + "(2.00 M rows/s) | Spark's Parquet source | 1000 ms ± 10.0% (1.00 M rows/s) | **2.00×** |");
    assertThat(table).contains("| S2. Spark append (new table) | — | rows=1,000,000 | 2000 ms (0.50 M rows/s) | "
        + "Spark's Parquet source | 1000 ms (1.00 M rows/s) | **0.50×** |");
    // A case run for one system only: its time, no ratio; the filtered query has no rows/s.
    assertThat(table).contains("| `value` where `id < rows/10` (noop sink) | rows=1,000,000 | 200 ms | Spark's Parquet "
        + "source | not run | — |");
    assertThat(table).contains("| S3. Distributed backfill of 1 column, 200 fragments | — | — | not run |");
  }

  @Test
  void measurements_areAveragedPerMetricAndSystem() throws Exception {
    String md = SparkReport.render(parsed(), MEASUREMENTS, "quick", "- machine", Optional.empty());
    assertThat(md).contains("| S1. Spark scan, 4 columns | filtered query: tasks' inputMetrics.bytesRead | parquet | "
        + "1,234,568 | bytes |");
    assertThat(md).startsWith("# Quiver Spark benchmarks").contains("benchmarks-spark/run.sh quick").contains("## Machine");
  }

  @Test
  void splice_appendsTheSectionOnce_thenReplacesIt() throws Exception {
    String core = "# Quiver benchmarks\n\n| a | b |\n";
    String once = SparkReport.splice(core, SparkReport.section(parsed(), MEASUREMENTS, "quick"));
    assertThat(once).startsWith(core + "\n" + SparkReport.BEGIN).endsWith(SparkReport.END + "\n").contains("## Spark");
    String twice = SparkReport.splice(once, SparkReport.section(List.of(), List.of(), "full"));
    assertThat(twice).startsWith(core).contains("run.sh full").doesNotContain("run.sh quick");
    assertThat(twice.split(java.util.regex.Pattern.quote(SparkReport.BEGIN), -1)).hasSize(2);
    assertThat(SparkReport.sectionOf(twice)).hasValueSatisfying(s -> assertThat(s).startsWith(SparkReport.BEGIN)
        .endsWith(SparkReport.END + "\n"));
  }
}
