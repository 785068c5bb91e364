package io.quiver.bench.spark.report;

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

/**
 * Turns one run of the Spark benchmarks (JMH's JSON and the side measurements) into {@code
 * benchmarks-spark/RESULTS.md}, in the columns of {@code benchmarks/RESULTS.md}: Benchmark | Case | Params |
 * Quiver | Baseline | Baseline time | Speed ratio, with ratio = baseline time / Quiver time (above 1.0 means
 * Quiver is faster). Results pair by benchmark class and case: methods {@code <case>Quiver} and {@code
 * <case>Parquet} (or {@code quiver} and {@code parquet}).
 *
 * <p>Given the path of {@code benchmarks/RESULTS.md}, it also writes the table there, as a "Spark" section
 * between {@link #BEGIN} and {@link #END} (replacing an earlier one, or appended at the end); the core
 * benchmarks' report keeps that section when it rewrites the file.
 *
 * <p>Usage: {@code SparkReport <jmh.json> <measurements.tsv> <RESULTS.md> <profile> [<benchmarks/RESULTS.md>
 * [notes.md]]}.
 */
public final class SparkReport {
  /** Marks the start of the Spark section in {@code benchmarks/RESULTS.md}. */
  public static final String BEGIN = "<!-- spark:begin (written by benchmarks-spark/run.sh; kept by benchmarks/run.sh) -->";
  /** Marks its end. */
  public static final String END = "<!-- spark:end -->";
  static final String BASELINE = "Spark's Parquet source";

  /** Class simple name → title, in the order. */
  static final Map<String, String> TITLES = new LinkedHashMap<>();
  /** Case (method name without the system) → how the table names it. */
  static final Map<String, String> CASES = new LinkedHashMap<>();

  static {
    TITLES.put("SparkScanBench", "S1. Spark scan, 4 columns");
    TITLES.put("SparkAppendBench", "S2. Spark append (new table)");
    TITLES.put("SparkBackfillBench", "S3. Distributed backfill of 1 column, 200 fragments");
    CASES.put("fullScan", "full scan (noop sink)");
    CASES.put("filtered", "`value` where `id < rows/10` (noop sink)");
  }

  private SparkReport() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 4) {
      System.err.println("usage: SparkReport <jmh.json> <measurements.tsv> <RESULTS.md> <profile>"
          + " [<benchmarks/RESULTS.md> [notes.md]]");
      System.exit(2);
    }
    JsonNode results = new ObjectMapper().readTree(Path.of(args[0]).toFile());
    List<String[]> measurements = new ArrayList<>();
    Path tsv = Path.of(args[1]);
    if (Files.exists(tsv)) {
      for (String line : Files.readAllLines(tsv)) {
        if (!line.isBlank()) {
          measurements.add(line.split("\t", -1));
        }
      }
    }
    Optional<String> notes = args.length > 5 && Files.exists(Path.of(args[5]))
        ? Optional.of(Files.readString(Path.of(args[5])))
        : Optional.empty();
    List<Result> parsed = parse(results);
    Files.writeString(Path.of(args[2]), render(parsed, measurements, args[3], machine(results), notes));
    System.out.println("wrote " + args[2]);
    if (args.length > 4) {
      Path core = Path.of(args[4]);
      String existing = Files.exists(core) ? Files.readString(core) : "";
      Files.writeString(core, splice(existing, section(parsed, measurements, args[3])));
      System.out.println("wrote the Spark section of " + core);
    }
  }

  /** One JMH result: class, case, system ({@code quiver} or {@code parquet}), score and error in ms. */
  record Result(String clazz, String caze, String system, double scoreMs, double errorMs) {}

  static List<Result> parse(JsonNode results) {
    List<Result> out = new ArrayList<>();
    for (JsonNode r : results) {
      String[] parts = r.get("benchmark").asText().split("\\.");
      String clazz = parts[parts.length - 2];
      String method = parts[parts.length - 1];
      String lower = method.toLowerCase(Locale.ROOT);
      String system = lower.endsWith("quiver") ? "quiver" : lower.endsWith("parquet") ? "parquet" : null;
      if (system == null) {
        continue;
      }
      JsonNode metric = r.get("primaryMetric");
      double toMs = toMillis(metric.get("scoreUnit").asText());
      out.add(new Result(clazz, method.substring(0, method.length() - system.length()), system,
          metric.get("score").asDouble() * toMs, metric.get("scoreError").asDouble(Double.NaN) * toMs));
    }
    return out;
  }

  static double toMillis(String unit) {
    return switch (unit) {
      case "ns/op" -> 1e-6;
      case "us/op" -> 1e-3;
      case "ms/op" -> 1.0;
      case "s/op" -> 1e3;
      default -> throw new IllegalArgumentException("unexpected JMH unit " + unit + " (benchmarks report times)");
    };
  }

  /** The whole {@code benchmarks-spark/RESULTS.md}. */
  static String render(List<Result> parsed, List<String[]> measurements, String profile, String machine,
      Optional<String> notes) {
    StringBuilder md = new StringBuilder();
    md.append("# Quiver Spark benchmarks\n\n");
    md.append("Generated by `benchmarks-spark/run.sh ").append(profile).append("` from one JMH run (")
        .append(parsed.size()).append(" results); do not edit by hand. Spark 4.2 in `local[2]`, one session per ")
        .append("JMH trial. Times are JMH single-shot scores with their 99.9% error; **speed ratio = baseline time / ")
        .append("Quiver time**, so above 1.0 means Quiver is faster.\n\n");
    md.append(table(parsed, measurements));
    md.append(bytes(measurements));
    md.append("\n## Machine\n\n").append(machine).append('\n');
    notes.ifPresent(n -> md.append('\n').append(n.strip()).append('\n'));
    return md.toString();
  }

  /** The section spliced into {@code benchmarks/RESULTS.md}. */
  static String section(List<Result> parsed, List<String[]> measurements, String profile) {
    return BEGIN + "\n\n## Spark\n\n"
        + "The Spark connector (`format-spark`) against Spark's built-in Parquet source, from one run of "
        + "`benchmarks-spark/run.sh " + profile + "` (Spark 4.2, `local[2]`); bytes read, the machine and notes are in "
        + "[benchmarks-spark/RESULTS.md](../benchmarks-spark/RESULTS.md). Speed ratio = Parquet's time / Quiver's.\n\n"
        + table(parsed, measurements) + "\n" + END + "\n";
  }

  /** {@code existing} with its Spark section replaced by {@code section}, or {@code section} appended. */
  public static String splice(String existing, String section) {
    int begin = existing.indexOf(BEGIN);
    int end = existing.indexOf(END);
    if (begin >= 0 && end > begin) {
      int after = end + END.length();
      if (after < existing.length() && existing.charAt(after) == '\n') {
        after++;
      }
      return existing.substring(0, begin) + section + existing.substring(after);
    }
    String base = existing.isEmpty() || existing.endsWith("\n\n") ? existing
        : existing.endsWith("\n") ? existing + "\n" : existing + "\n\n";
    return base + section;
  }

  /** The Spark section of {@code text} (markers included, with its newline), if it has one. */
  public static Optional<String> sectionOf(String text) {
    int begin = text.indexOf(BEGIN);
    int end = text.indexOf(END);
    if (begin < 0 || end < begin) {
      return Optional.empty();
    }
    return Optional.of(text.substring(begin, end + END.length()) + "\n");
  }

  static String table(List<Result> parsed, List<String[]> measurements) {
    StringBuilder md = new StringBuilder();
    md.append("| Benchmark | Case | Params | Quiver | Baseline | Baseline time | Speed ratio |\n");
    md.append("|---|---|---|---|---|---|---|\n");
    for (Map.Entry<String, String> title : TITLES.entrySet()) {
      String clazz = title.getKey();
      Double rows = rows(measurements, clazz);
      String params = rows == null ? "—" : "rows=" + String.format(Locale.ROOT, "%,.0f", rows)
          + (clazz.equals("SparkBackfillBench") ? ", fragments=200" : "");
      List<String> cases = new ArrayList<>();
      for (Result r : parsed) {
        if (r.clazz().equals(clazz) && !cases.contains(r.caze())) {
          cases.add(r.caze());
        }
      }
      if (cases.isEmpty()) {
        md.append("| ").append(title.getValue()).append(" | — | — | not run | — | — | — |\n");
        continue;
      }
      for (String caze : cases) {
        Optional<Result> quiver = find(parsed, clazz, caze, "quiver");
        Optional<Result> parquet = find(parsed, clazz, caze, "parquet");
        // Rows per second only where every row is read or written.
        Double perRow = caze.equals("filtered") ? null : rows;
        String ratio = quiver.isPresent() && parquet.isPresent()
            ? String.format(Locale.ROOT, "**%.2f×**", parquet.get().scoreMs() / quiver.get().scoreMs())
            : "—";
        md.append("| ").append(title.getValue()).append(" | ")
            .append(caze.isEmpty() ? "—" : CASES.getOrDefault(caze, caze)).append(" | ").append(params).append(" | ")
            .append(quiver.map(r -> time(r.scoreMs(), r.errorMs(), perRow)).orElse("not run")).append(" | ")
            .append(BASELINE).append(" | ")
            .append(parquet.map(r -> time(r.scoreMs(), r.errorMs(), perRow)).orElse("not run")).append(" | ")
            .append(ratio).append(" |\n");
      }
    }
    return md.toString();
  }

  static String bytes(List<String[]> measurements) {
    StringBuilder md = new StringBuilder();
    Map<String, double[]> sums = new LinkedHashMap<>();
    Map<String, String[]> firstOf = new LinkedHashMap<>();
    for (String[] m : measurements) {
      if (m.length < 5 || m[1].equals("rows")) {
        continue;
      }
      String key = m[0] + "\u0000" + m[1] + "\u0000" + m[2];
      sums.computeIfAbsent(key, k -> new double[2]);
      sums.get(key)[0] += Double.parseDouble(m[3]);
      sums.get(key)[1]++;
      firstOf.putIfAbsent(key, m);
    }
    if (sums.isEmpty()) {
      return "";
    }
    md.append("\n## Measured bytes and counts\n\n");
    md.append("| Benchmark | Metric | System | Value | Unit |\n|---|---|---|---|---|\n");
    for (String key : sums.keySet()) {
      String[] m = firstOf.get(key);
      double mean = sums.get(key)[0] / sums.get(key)[1];
      md.append("| ").append(TITLES.getOrDefault(m[0], m[0])).append(" | ").append(m[1]).append(" | ")
          .append(m[2]).append(" | ").append(String.format(Locale.ROOT, "%,.0f", mean)).append(" | ")
          .append(m[4].isEmpty() ? "—" : m[4]).append(" |\n");
    }
    return md.toString();
  }

  private static Double rows(List<String[]> measurements, String clazz) {
    for (String[] m : measurements) {
      if (m.length >= 5 && m[0].equals(clazz) && m[1].equals("rows")) {
        return Double.parseDouble(m[3]);
      }
    }
    return null;
  }

  private static Optional<Result> find(List<Result> parsed, String clazz, String caze, String system) {
    return parsed.stream().filter(r -> r.clazz().equals(clazz) && r.caze().equals(caze) && r.system().equals(system))
        .findFirst();
  }

  /** A time cell: the score with its relative error, and rows per second when {@code rows} is given. */
  static String time(double ms, double errorMs, Double rows) {
    String t = ms >= 100 ? String.format(Locale.ROOT, "%.0f ms", ms)
        : ms >= 1 ? String.format(Locale.ROOT, "%.2f ms", ms)
        : String.format(Locale.ROOT, "%.1f µs", ms * 1000);
    if (!Double.isNaN(errorMs) && errorMs > 0) {
      t += String.format(Locale.ROOT, " ± %.1f%%", 100 * errorMs / ms);
    }
    if (rows != null) {
      t += String.format(Locale.ROOT, " (%.2f M rows/s)", rows / ms / 1000);
    }
    return t;
  }

  static String machine(JsonNode results) {
    String jdk = System.getProperty("java.vm.name") + " " + System.getProperty("java.version");
    String jvmArgs = "";
    if (results.size() > 0) {
      JsonNode first = results.get(0);
      jdk = first.path("vmName").asText() + " " + first.path("jdkVersion").asText() + " ("
          + first.path("vmVersion").asText() + ")";
      List<String> args = new ArrayList<>();
      boolean opens = false;
      for (JsonNode a : first.path("jvmArgs")) {
        String arg = a.asText();
        if (arg.startsWith("--add-opens") || arg.equals("-XX:+IgnoreUnrecognizedVMOptions")) {
          opens = true;
        } else if (!args.contains(arg)) {
          args.add(arg); // JMH passes the launcher's flags on, and run.sh appends some of them again
        }
      }
      jvmArgs = (opens ? "(Spark's --add-opens list, as format-spark's spark.jvm.flags) " : "") + String.join(" ", args);
    }
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
