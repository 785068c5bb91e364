package io.quiver.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Turns one run's JMH JSON and the benchmarks' side measurements into {@code RESULTS.md}: one table
 * with Quiver, its baseline, the ratio and the error of every benchmark, then the byte measurements,
 * then the machine. Pairs results by benchmark class, case and parameters: a method named {@code
 * quiver}, {@code lance} or {@code arrow}, or {@code <case>Quiver}, {@code <case>Lance}, {@code
 * <case>Arrow}. Ratios are speed ratios: the baseline's time divided by Quiver's, so above 1.0 means
 * Quiver is faster.
 *
 * <p>Usage: {@code Report <jmh.json> <measurements.tsv> <RESULTS.md> <profile> [notes.md]}; the notes
 * file, if given and present, is copied below the tables (the analysis of where Quiver loses).
 *
 * <p>Its public helpers (reading JMH's JSON and the measurements file, time cells, markdown rows, marked
 * sections, the machine) are the benchmark harness's, shared with benchmarks-spark's report; not Quiver API.
 */
public final class Report {
  /** Class simple name → number and title, in the order. */
  static final Map<String, String> TITLES = new LinkedHashMap<>();

  static {
    TITLES.put("FullScanBench", "1. Full scan");
    TITLES.put("ProjectedScanBench", "2. Projected scan (1 of 32 columns)");
    TITLES.put("TakeBench", "3. Take 1,000 random rows, 3 columns");
    TITLES.put("AppendBench", "4. Append commit, 1,000 rows");
    TITLES.put("ConcurrentAppendBench", "5. Concurrent appends, 4 writers x 50 commits");
    TITLES.put("BackfillBench", "6. Column backfill, 200 fragments");
    TITLES.put("TableSizeBench", "7. Table size");
    TITLES.put("ConflictCostBench", "8. Conflict cost (Quiver only)");
    TITLES.put("OverlayUpdateBench", "9. Overlay update, 1% of one column");
    TITLES.put("ParallelScanBench", "10. Parallel full scan (Scanner.parallelism)");
    TITLES.put("FilteredScanBench", "11. Filtered scan, 1% of a clustered int64 column (pruning)");
    TITLES.put("MergeInsertBench", "12. Merge-insert, 1% of the rows by int64 key (half matched, half new)");
    TITLES.put("IndexBench", "13. Scalar indices (btree on an unclustered int64 key, bitmap on 100 values)");
  }

  private Report() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 4) {
      System.err.println("usage: Report <jmh.json> <measurements.tsv> <RESULTS.md> <profile> [notes.md]");
      System.exit(2);
    }
    JsonNode results = new ObjectMapper().readTree(Path.of(args[0]).toFile());
    List<String[]> measurements = readMeasurements(Path.of(args[1]));
    Optional<String> notes = readIfPresent(args, 4);
    String md = render(results, measurements, args[3], notes);
    Path out = Path.of(args[2]);
    Files.writeString(out, md + keptSections(out));
    System.out.println("wrote " + args[2]);
  }

  /** Begin and end markers of the sections other harnesses write into RESULTS.md, in the order they are kept. */
  static final List<String[]> KEPT_SECTIONS = List.of(
      new String[] {"<!-- import-bench:begin", "<!-- import-bench:end -->"},  // benchmarks/import/run.sh
      new String[] {"<!-- spark:begin", "<!-- spark:end -->"},                // benchmarks-spark/run.sh
      new String[] {"<!-- python:begin", "<!-- python:end -->"},              // benchmarks/python/run.sh
      new String[] {"<!-- flink:begin", "<!-- flink:end -->"},                // benchmarks-flink
      new String[] {CompressionReport.BEGIN, CompressionReport.END},          // benchmarks/compression/run.sh
      new String[] {"<!-- index-bench:begin", "<!-- index-bench:end -->"},    // IndexBench (issue 42), by hand
      new String[] {"<!-- rowids:begin", "<!-- rowids:end -->"},              // RowIdsBench (issue 43), by hand
      new String[] {"<!-- hand-written:begin", "<!-- hand-written:end -->"}); // hand-written from JMH runs

  /**
   * The sections other harnesses wrote into the existing RESULTS.md (benchmarks/import/run.sh's between its
   * {@code <!-- import-bench:begin} and {@code <!-- import-bench:end -->} markers, benchmarks-spark/run.sh's
   * between {@code <!-- spark:begin} and {@code <!-- spark:end -->}), kept when JMH's part is regenerated.
   */
  static String keptSections(Path existing) throws IOException {
    if (!Files.exists(existing)) {
      return "";
    }
    return keptSections(Files.readString(existing));
  }

  static String keptSections(String text) {
    StringBuilder kept = new StringBuilder();
    for (String[] markers : KEPT_SECTIONS) {
      between(text, markers[0], markers[1]).ifPresent(section -> kept.append('\n').append(section).append('\n'));
    }
    return kept.toString();
  }

  /**
   * The part of {@code text} from the first {@code begin} marker to the end of the first {@code end} marker after
   * it (both markers included), if {@code text} has both in that order. A benchmark harness helper, not Quiver API.
   */
  public static Optional<String> between(String text, String begin, String end) {
    int from = text.indexOf(begin);
    int to = text.indexOf(end);
    return from >= 0 && to > from ? Optional.of(text.substring(from, to + end.length())) : Optional.empty();
  }

  /**
   * The records of a measurements file ({@code Bench.record}'s tab-separated lines, blank ones skipped), each
   * split into its fields, empty trailing ones (an empty unit) kept; none if there is no such file. A benchmark
   * harness helper, not Quiver API.
   */
  public static List<String[]> readMeasurements(Path tsv) throws IOException {
    List<String[]> measurements = new ArrayList<>();
    if (Files.exists(tsv)) {
      for (String line : Files.readAllLines(tsv)) {
        if (!line.isBlank()) {
          measurements.add(line.split("\t", -1));
        }
      }
    }
    return measurements;
  }

  /** The text of the file named by {@code args[index]}, if there is such an argument and file. Harness helper. */
  public static Optional<String> readIfPresent(String[] args, int index) throws IOException {
    return args.length > index && Files.exists(Path.of(args[index]))
        ? Optional.of(Files.readString(Path.of(args[index])))
        : Optional.empty();
  }

  /**
   * One JMH result: class (simple name), case (the method name without the system), system, params ({@code
   * k=v, ...} sorted by name, or empty), score and error in ms, the percentiles in ms (sampled modes), JMH's
   * mode. A benchmark harness type, not Quiver API.
   */
  public record Result(String clazz, String caze, String system, String params, double scoreMs, double errorMs,
      Map<String, Double> percentilesMs, String mode) {}

  /** The systems this report compares, in the order a method name's suffix is tried. */
  static final List<String> SYSTEMS = List.of("quiverNoSync", "quiver", "lance", "arrow");

  static List<Result> parse(JsonNode results) {
    return parse(results, SYSTEMS);
  }

  /**
   * JMH's JSON results whose method name ends (in any case) with one of {@code systems}, the first that fits;
   * the rest are left out. A benchmark harness helper, not Quiver API.
   */
  public static List<Result> parse(JsonNode results, List<String> systems) {
    List<Result> out = new ArrayList<>();
    for (JsonNode r : results) {
      String benchmark = r.get("benchmark").asText();
      String[] parts = benchmark.split("\\.");
      String clazz = parts[parts.length - 2];
      String method = parts[parts.length - 1];
      String lower = method.toLowerCase(Locale.ROOT);
      String system = systems.stream().filter(s -> lower.endsWith(s.toLowerCase(Locale.ROOT))).findFirst()
          .orElse(null);
      if (system == null) {
        continue;
      }
      String caze = method.substring(0, method.length() - system.length());
      Map<String, String> params = new TreeMap<>();
      if (r.has("params")) {
        r.get("params").fields().forEachRemaining(e -> params.put(e.getKey(), e.getValue().asText()));
      }
      String paramText = params.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
          .collect(Collectors.joining(", "));
      JsonNode metric = r.get("primaryMetric");
      double toMs = toMillis(metric.get("scoreUnit").asText());
      double error = metric.get("scoreError").asDouble(Double.NaN);
      Map<String, Double> percentiles = new TreeMap<>();
      if (metric.has("scorePercentiles")) {
        metric.get("scorePercentiles").fields()
            .forEachRemaining(e -> percentiles.put(e.getKey(), e.getValue().asDouble() * toMs));
      }
      out.add(new Result(clazz, caze, system, paramText, metric.get("score").asDouble() * toMs,
          error * toMs, percentiles, r.get("mode").asText()));
    }
    return out;
  }

  /** Milliseconds per one of JMH's time units ({@code ns/op} to {@code s/op}). Harness helper, not Quiver API. */
  public static double toMillis(String unit) {
    return switch (unit) {
      case "ns/op" -> 1e-6;
      case "us/op" -> 1e-3;
      case "ms/op" -> 1.0;
      case "s/op" -> 1e3;
      default -> throw new IllegalArgumentException("unexpected JMH unit " + unit + " (benchmarks report times)");
    };
  }

  static String render(JsonNode results, List<String[]> measurements, String profile, Optional<String> notes) {
    List<Result> parsed = parse(results);
    StringBuilder md = new StringBuilder();
    md.append("# Quiver benchmarks\n\n");
    md.append("Generated by `benchmarks/run.sh ").append(profile).append("` from one JMH run (")
        .append(parsed.size()).append(" results); do not edit by hand. ")
        .append("Times are JMH scores (average, single-shot or sampled as the benchmark says) with their 99.9% ")
        .append("error; **speed ratio = baseline time / Quiver time**, so above 1.0 means Quiver is faster.\n\n");
    md.append(TABLE_HEADER);
    Map<String, Double> rows = rowsByBenchmark(measurements);
    for (Map.Entry<String, String> title : TITLES.entrySet()) {
      String clazz = title.getKey();
      List<Result> mine = parsed.stream().filter(r -> r.clazz().equals(clazz)).toList();
      if (mine.isEmpty()) {
        md.append(notRun(title.getValue()));
        continue;
      }
      Map<String, List<Result>> groups = new LinkedHashMap<>();
      for (Result r : mine) {
        groups.computeIfAbsent(r.caze() + "\u0000" + r.params(), k -> new ArrayList<>()).add(r);
      }
      for (List<Result> group : groups.values()) {
        Result quiver = group.stream().filter(r -> r.system().equals("quiver")).findFirst().orElse(null);
        Result noSync = group.stream().filter(r -> r.system().equals("quiverNoSync")).findFirst().orElse(null);
        List<Result> baselines = group.stream().filter(r -> r.system().equals("lance") || r.system().equals("arrow")).toList();
        if (quiver == null) {
          for (Result b : baselines) {
            md.append(row(title.getValue(), b, null, b, rows.get(clazz)));
          }
        } else if (baselines.isEmpty()) {
          md.append(row(title.getValue(), quiver, quiver, null, rows.get(clazz)));
        } else {
          for (Result b : baselines) {
            md.append(row(title.getValue(), quiver, quiver, b, rows.get(clazz)));
          }
        }
        if (noSync != null) {
          Result renamed = new Result(noSync.clazz(), noSync.caze().isEmpty() ? "fsync off" : noSync.caze() + ", fsync off",
              noSync.system(), noSync.params(), noSync.scoreMs(), noSync.errorMs(), noSync.percentilesMs(), noSync.mode());
          for (Result b : baselines) {
            md.append(row(title.getValue(), renamed, renamed, b, rows.get(clazz)));
          }
          if (baselines.isEmpty()) {
            md.append(row(title.getValue(), renamed, renamed, null, rows.get(clazz)));
          }
        }
      }
      md.append(derived(parsed, clazz));
    }

    if (!measurements.isEmpty()) {
      md.append(BYTES_HEADER);
      List<Mean> means = new ArrayList<>(means(measurements, Set.of("rows", "commits")));
      means.sort(java.util.Comparator.comparingInt(m -> order(m.benchmark())));
      for (Mean m : means) {
        md.append(markdownRow(TITLES.getOrDefault(m.benchmark(), m.benchmark()), m.metric(), m.system(),
            number(m.value()), m.unit()));
      }
    }
    md.append("\n## Machine\n\n").append(machine(results)).append('\n');
    notes.ifPresent(n -> md.append('\n').append(n.strip()).append('\n'));
    return md.toString();
  }

  /** The head of the table of times: Benchmark | Case | Params | Quiver | Baseline | Baseline time | Speed ratio. */
  public static final String TABLE_HEADER = "| Benchmark | Case | Params | Quiver | Baseline | Baseline time | Speed ratio |\n"
      + "|---|---|---|---|---|---|---|\n";

  /** The heading and head of the table of measured bytes and counts (Benchmark | Metric | System | Value | Unit). */
  public static final String BYTES_HEADER = "\n## Measured bytes and counts\n\n"
      + "| Benchmark | Metric | System | Value | Unit |\n|---|---|---|---|---|\n";

  /** One markdown table row of {@code cells}, with its newline. A benchmark harness helper, not Quiver API. */
  public static String markdownRow(String... cells) {
    return "| " + String.join(" | ", cells) + " |\n";
  }

  /** The row of {@link #TABLE_HEADER} for a benchmark that did not run. Harness helper, not Quiver API. */
  public static String notRun(String title) {
    return markdownRow(title, "—", "—", "not run", "—", "—", "—");
  }

  /** The speed-ratio cell, baseline time / Quiver time in bold, or "—" without both. Harness helper. */
  public static String ratio(Double baselineMs, Double quiverMs) {
    return quiverMs != null && baselineMs != null
        ? String.format(Locale.ROOT, "**%.2f×**", baselineMs / quiverMs)
        : "—";
  }

  /**
   * The mean of the measurements recorded for one (benchmark, metric, system) by the forks and iterations, with
   * the unit of the first. A benchmark harness type, not Quiver API.
   */
  public record Mean(String benchmark, String metric, String system, double value, String unit) {}

  /**
   * One {@link Mean} per (benchmark, metric, system) of {@code measurements}, in the order each first stands, the
   * metrics in {@code skipped} and records of fewer than five fields left out. Harness helper, not Quiver API.
   */
  public static List<Mean> means(List<String[]> measurements, Set<String> skipped) {
    Map<String, double[]> sums = new LinkedHashMap<>();
    Map<String, String[]> firstOf = new LinkedHashMap<>();
    for (String[] m : measurements) {
      if (m.length < 5 || skipped.contains(m[1])) {
        continue;
      }
      String key = m[0] + "\u0000" + m[1] + "\u0000" + m[2];
      sums.computeIfAbsent(key, k -> new double[2]);
      sums.get(key)[0] += Double.parseDouble(m[3]);
      sums.get(key)[1]++;
      firstOf.putIfAbsent(key, m);
    }
    List<Mean> means = new ArrayList<>();
    for (Map.Entry<String, double[]> e : sums.entrySet()) {
      String[] m = firstOf.get(e.getKey());
      means.add(new Mean(m[0], m[1], m[2], e.getValue()[0] / e.getValue()[1], m[4]));
    }
    return means;
  }

  private static int order(String clazz) {
    int i = 0;
    for (String c : TITLES.keySet()) {
      if (c.equals(clazz)) {
        return i;
      }
      i++;
    }
    return i;
  }

  /** Ratios within one system: the scan after an update vs before, and conflict cost vs 1 behind. */
  static String derived(List<Result> parsed, String clazz) {
    StringBuilder md = new StringBuilder();
    for (String system : clazz.equals("OverlayUpdateBench") ? List.of("quiver", "lance") : List.<String>of()) {
      Optional<Result> before = find(parsed, "OverlayUpdateBench", "scanBefore", system, "");
      Optional<Result> after = find(parsed, "OverlayUpdateBench", "scanAfter", system, "");
      if (before.isPresent() && after.isPresent()) {
        md.append("| ").append(TITLES.get("OverlayUpdateBench")).append(" | scan after / scan before | — | ")
            .append(system.equals("quiver") ? String.format(Locale.ROOT, "%.2f× the time", after.get().scoreMs() / before.get().scoreMs()) : "—")
            .append(" | ").append(system.equals("quiver") ? "—" : systemName(system)).append(" | ")
            .append(system.equals("quiver") ? "—" : String.format(Locale.ROOT, "%.2f× the time", after.get().scoreMs() / before.get().scoreMs()))
            .append(" | — |\n");
      }
    }
    // Benchmark 7's target: an append on a large table against the same append at 1,000 fragments.
    for (String system : clazz.equals("TableSizeBench") ? List.of("quiver", "quiverNoSync") : List.<String>of()) {
      Optional<Result> small = find(parsed, "TableSizeBench", "append", system, "fragments=1000");
      for (Result r : parsed) {
        if (small.isPresent() && r.clazz().equals("TableSizeBench") && r.caze().equals("append")
            && r.system().equals(system) && !r.params().equals("fragments=1000")) {
          md.append("| ").append(TITLES.get("TableSizeBench")).append(" | append")
              .append(system.equals("quiver") ? "" : ", fsync off").append(" vs 1,000 fragments | ").append(r.params())
              .append(" | ").append(String.format(Locale.ROOT, "%.2f× the time", r.scoreMs() / small.get().scoreMs()))
              .append(" | — | — | — |\n");
        }
      }
    }
    // Benchmark 13's second target: a filter through an index against the same filter with the indices off.
    for (String caze : clazz.equals("IndexBench") ? List.of("point", "bitmap") : List.<String>of()) {
      for (String system : List.of("quiver", "lance")) {
        Optional<Result> indexed = find(parsed, "IndexBench", caze, system, "");
        Optional<Result> unindexed = find(parsed, "IndexBench", caze + "Unindexed", system, "");
        if (indexed.isPresent() && unindexed.isPresent()) {
          boolean sampled = indexed.get().mode().equals("sample");
          double with = sampled ? indexed.get().percentilesMs().getOrDefault("50.0", Double.NaN) : indexed.get().scoreMs();
          double without = sampled ? unindexed.get().percentilesMs().getOrDefault("50.0", Double.NaN)
              : unindexed.get().scoreMs();
          double speedup = without / with;
          String cell = speedup >= 1 ? String.format(Locale.ROOT, "%.1f× faster with the index", speedup)
              : String.format(Locale.ROOT, "%.1f× slower with the index", 1 / speedup);
          boolean quiver = system.equals("quiver");
          md.append(markdownRow(TITLES.get("IndexBench"), caze + (sampled ? " p50" : "") + ": indices off / on", "—",
              quiver ? cell : "—", quiver ? "—" : systemName(system), quiver ? "—" : cell, "—"));
        }
      }
    }
    Optional<Result> one = find(parsed, "ConflictCostBench", "", "quiver", "behind=1");
    if (one.isPresent() && clazz.equals("ConflictCostBench")) {
      for (Result r : parsed) {
        if (r.clazz().equals("ConflictCostBench") && r.system().equals("quiver") && !r.params().equals("behind=1")) {
          md.append("| ").append(TITLES.get("ConflictCostBench")).append(" | vs 1 behind | ").append(r.params())
              .append(" | ").append(String.format(Locale.ROOT, "%.2f× the time; %.1f µs per version behind",
                  r.scoreMs() / one.get().scoreMs(),
                  1000 * (r.scoreMs() - one.get().scoreMs()) / (Integer.parseInt(r.params().substring(7)) - 1)))
              .append(" | — | — | — |\n");
        }
      }
    }
    return md.toString();
  }

  private static Optional<Result> find(List<Result> parsed, String clazz, String caze, String system, String params) {
    return parsed.stream().filter(r -> r.clazz().equals(clazz) && r.caze().equals(caze) && r.system().equals(system)
        && r.params().equals(params)).findFirst();
  }

  private static Map<String, Double> rowsByBenchmark(List<String[]> measurements) {
    Map<String, Double> rows = new TreeMap<>();
    for (String[] m : measurements) {
      if (m.length >= 5 && m[1].equals("rows")) {
        rows.put(m[0], Double.parseDouble(m[3]));
      } else if (m.length >= 5 && m[1].equals("commits")) {
        rows.put(m[0], -Double.parseDouble(m[3])); // negative: a count of commits, shown as commits/s
      }
    }
    return rows;
  }

  private static String row(String title, Result any, Result quiver, Result baseline, Double rows) {
    String caze = any.caze().isEmpty() ? "—" : any.caze();
    boolean sampled = any.mode().equals("sample");
    StringBuilder sb = new StringBuilder();
    if (sampled) {
      for (String p : List.of("50.0", "99.0")) {
        String label = caze + " p" + p.replace(".0", "");
        sb.append(cells(title, label, any.params(),
            quiver == null ? null : quiver.percentilesMs().get(p), Double.NaN,
            baseline, baseline == null ? null : baseline.percentilesMs().get(p), Double.NaN, null));
      }
      return sb.toString();
    }
    boolean perRow = any.caze().isEmpty() || any.caze().startsWith("scan");
    return cells(title, caze, any.params(), quiver == null ? null : quiver.scoreMs(),
        quiver == null ? Double.NaN : quiver.errorMs(), baseline,
        baseline == null ? null : baseline.scoreMs(), baseline == null ? Double.NaN : baseline.errorMs(),
        perRow ? rows : null);
  }

  private static String cells(String title, String caze, String params, Double quiverMs, double quiverErr,
      Result baseline, Double baselineMs, double baselineErr, Double rows) {
    return markdownRow(title, caze, params.isEmpty() ? "—" : params, time(quiverMs, quiverErr, rows),
        baseline == null ? "—" : systemName(baseline.system()), time(baselineMs, baselineErr, rows),
        ratio(baselineMs, quiverMs));
  }

  static String systemName(String system) {
    return switch (system) {
      case "lance" -> "Lance 7.0.0";
      case "arrow" -> "Arrow IPC reader";
      case "quiverNoSync" -> "Quiver, fsync off";
      default -> system;
    };
  }

  static String time(Double ms, double errorMs, Double rows) {
    if (ms == null) {
      return "—";
    }
    String t = scoreAndError(ms, errorMs);
    if (rows != null && rows < 0) {
      t += String.format(Locale.ROOT, " (%.0f commits/s)", -rows / ms * 1000);
    } else if (rows != null) {
      t += String.format(Locale.ROOT, " (%.1f M rows/s)", rows / ms / 1000);
    }
    return t;
  }

  /**
   * A time in ms as a cell: {@code 123 ms}, {@code 1.23 ms} or {@code 12.3 µs}, then the 99.9% error relative to
   * it ({@code ± 4.5%}) where JMH gave one. A benchmark harness helper, not Quiver API.
   */
  public static String scoreAndError(double ms, double errorMs) {
    String t = ms >= 100 ? String.format(Locale.ROOT, "%.0f ms", ms)
        : ms >= 1 ? String.format(Locale.ROOT, "%.2f ms", ms)
        : String.format(Locale.ROOT, "%.1f µs", ms * 1000);
    if (!Double.isNaN(errorMs) && errorMs > 0) {
      t += String.format(Locale.ROOT, " ± %.1f%%", 100 * errorMs / ms);
    }
    return t;
  }

  static String number(double v) {
    if (Math.abs(v) >= 1000 || v == Math.rint(v)) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    return String.format(Locale.ROOT, "%.3f", v);
  }

  static String machine(JsonNode results) {
    String jdk = "unknown";
    String jvmArgs = "";
    if (results.size() > 0) {
      JsonNode first = results.get(0);
      jdk = jdk(first);
      List<String> args = new ArrayList<>();
      first.path("jvmArgs").forEach(a -> args.add(a.asText()));
      jvmArgs = String.join(" ", args);
    }
    return machine(jdk, jvmArgs);
  }

  /** The JDK of a JMH result's forks: VM name, JDK version and (VM version). Harness helper, not Quiver API. */
  public static String jdk(JsonNode result) {
    return result.path("vmName").asText() + " " + result.path("jdkVersion").asText() + " ("
        + result.path("vmVersion").asText() + ")";
  }

  /**
   * The "Machine" list: date, CPU and cores, memory, {@code jdk}, the forks' {@code jvmArgs}, OS. A benchmark
   * harness helper, not Quiver API.
   */
  public static String machine(String jdk, String jvmArgs) {
    String cpu = firstLine(Path.of("/proc/cpuinfo"), "model name").orElse("unknown CPU");
    String mem = firstLine(Path.of("/proc/meminfo"), "MemTotal").orElse("unknown memory");
    return "- Date: " + ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_LOCAL_DATE) + "\n"
        + "- CPU: " + cpu + ", " + Runtime.getRuntime().availableProcessors() + " cores\n"
        + "- Memory: " + mem + "\n"
        + "- JDK: " + jdk + "\n"
        + "- JVM flags of the forks: `" + jvmArgs + "`\n"
        + "- OS: " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
        + System.getProperty("os.arch") + "; tables on local disk";
  }

  private static Optional<String> firstLine(Path file, String key) {
    try {
      return Files.readAllLines(file).stream().filter(l -> l.startsWith(key))
          .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
