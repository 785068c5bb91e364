package io.quiver.conformance;

import io.quiver.testing.ConformanceDepth;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Writes the conformance report (suite × store, and scenario id × store × result) from the matrix tests
 * that ran.
 *
 * <p>Registered through {@code META-INF/services}, it records the outcome of every test of the matrix
 * ({@code io.quiver.conformance.matrix}: {@link OnStores} classes, never the broken variants of {@code
 * io.quiver.conformance.broken} nor the adapter guide's example) under the store of its class invocation and
 * the suite of {@link StoreConformance#SUITES} it belongs to; a skipped test keeps its reason (the
 * capability the store lacks). At the end of the run it merges them into {@code
 * target/conformance/<store>.tsv} (one file per store, so the surefire run of memory and local and the
 * failsafe run of the emulators both contribute), then renders every store's file into {@code
 * target/conformance.md}. With {@code -Dquiver.conformance.write-docs=true} it also copies the report to
 * the repository's {@code docs/conformance.md}.
 */
public final class ConformanceReportListener implements TestExecutionListener {
  static final String WRITE_DOCS = "quiver.conformance.write-docs";
  private static final Pattern SCENARIO = Pattern.compile("^([a-z])(\\d+)_\\w+$");
  private static final List<String> STORE_ORDER =
      List.of("memory", "local", "local-nofsync", "s3", "gcs", "azure", "azure-abfss");
  /** The matrix: only its classes are conformance results (not the broken variants, not the example). */
  private static final String MATRIX = "io.quiver.conformance.matrix.";
  private static final String INVOCATION = "class-template-invocation";

  private final Map<String, Map<String, String>> resultsByStore = new TreeMap<>();
  private TestPlan plan;

  @Override
  public void testPlanExecutionStarted(TestPlan testPlan) {
    plan = testPlan;
  }

  @Override
  public void executionSkipped(TestIdentifier id, String reason) {
    record(id, "skipped", reason);
  }

  @Override
  public void executionFinished(TestIdentifier id, TestExecutionResult result) {
    switch (result.getStatus()) {
      case SUCCESSFUL:
        record(id, "pass", null);
        break;
      case ABORTED:
        record(id, "skipped", result.getThrowable().map(Throwable::getMessage).orElse(null));
        break;
      default:
        record(id, "FAIL", null);
        break;
    }
  }

  private void record(TestIdentifier id, String outcome, String reason) {
    if (plan == null || !id.isTest() || id.getSource().isEmpty() || !(id.getSource().get() instanceof MethodSource)) {
      return;
    }
    MethodSource source = (MethodSource) id.getSource().get();
    if (!source.getClassName().startsWith(MATRIX)) {
      return;
    }
    storeOf(id).ifPresent(store -> {
      String cell = outcome;
      if (reason != null && !reason.isBlank()) {
        cell += "\t" + reason.replace("Assumption failed: ", "").replaceAll("\\s+", " ").trim();
      }
      resultsByStore.computeIfAbsent(store, s -> new TreeMap<>())
          .put(suiteOf(source) + "#" + source.getMethodName(), cell);
    });
  }

  /** The store of the nearest enclosing store invocation of an {@link OnStores} class: its display name. */
  private Optional<String> storeOf(TestIdentifier id) {
    for (Optional<TestIdentifier> p = plan.getParent(id); p.isPresent(); p = plan.getParent(p.get())) {
      TestIdentifier ancestor = p.get();
      List<UniqueId.Segment> segments = ancestor.getUniqueIdObject().getSegments();
      if (!segments.get(segments.size() - 1).getType().equals(INVOCATION)) {
        continue;
      }
      Optional<TestIdentifier> template = plan.getParent(ancestor);
      boolean onStores = template.flatMap(TestIdentifier::getSource)
          .filter(ClassSource.class::isInstance)
          .map(s -> AnnotationSupport.isAnnotated(((ClassSource) s).getJavaClass(), OnStores.class))
          .orElse(false);
      return onStores ? Optional.of(ancestor.getDisplayName()) : Optional.empty();
    }
    return Optional.empty();
  }

  /** The suite of {@link StoreConformance#SUITES} the test class extends, else the method's declaring class. */
  private static String suiteOf(MethodSource source) {
    try {
      for (Class<?> c = source.getJavaClass(); c != null; c = c.getSuperclass()) {
        if (StoreConformance.SUITES.contains(c)) {
          return c.getSimpleName();
        }
      }
      return source.getJavaMethod().getDeclaringClass().getSimpleName();
    } catch (RuntimeException | LinkageError e) {
      String name = source.getClassName();
      return name.substring(name.lastIndexOf('.') + 1);
    }
  }

  @Override
  public void testPlanExecutionFinished(TestPlan testPlan) {
    if (resultsByStore.isEmpty()) {
      return;
    }
    Path module = moduleDir();
    Path dir = module.resolve("target").resolve("conformance");
    try {
      Files.createDirectories(dir);
      String now = Instant.now().truncatedTo(ChronoUnit.SECONDS) + " (depth " + ConformanceDepth.depth().label() + ")";
      for (Map.Entry<String, Map<String, String>> e : resultsByStore.entrySet()) {
        Path file = dir.resolve(e.getKey() + ".tsv");
        Map<String, String> merged = file.toFile().isFile() ? read(file) : new TreeMap<>();
        merged.remove("#run");
        merged.putAll(e.getValue());
        StringBuilder out = new StringBuilder("#run\t" + now + "\n");
        merged.forEach((test, outcome) -> out.append(test).append('\t').append(outcome).append('\n'));
        Files.writeString(file, out, StandardCharsets.UTF_8);
      }
      String table = render(dir);
      Files.writeString(module.resolve("target").resolve("conformance.md"), table, StandardCharsets.UTF_8);
      if (Boolean.getBoolean(WRITE_DOCS)) {
        Files.writeString(module.getParent().resolve("docs").resolve("conformance.md"), table, StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not write the conformance table under " + dir, e);
    }
  }

  private static Path moduleDir() {
    String basedir = System.getProperty("basedir");
    return Path.of(basedir != null ? basedir : System.getProperty("user.dir")).toAbsolutePath();
  }

  /** Test key ({@code Suite#method}) to its cell: the outcome, then a tab and the reason when skipped. */
  private static Map<String, String> read(Path file) throws IOException {
    Map<String, String> rows = new TreeMap<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      int tab = line.indexOf('\t');
      if (tab > 0) {
        rows.put(line.substring(0, tab), line.substring(tab + 1));
      }
    }
    return rows;
  }

  private static String outcome(String cell) {
    int tab = cell.indexOf('\t');
    return tab < 0 ? cell : cell.substring(0, tab);
  }

  private static String reason(String cell) {
    int tab = cell.indexOf('\t');
    return tab < 0 ? "" : cell.substring(tab + 1);
  }

  private static String suite(String key) {
    return key.substring(0, key.indexOf('#'));
  }

  private static String test(String key) {
    return key.substring(key.indexOf('#') + 1);
  }

  /** The Markdown report of every store's recorded results in {@code dir}. */
  static String render(Path dir) throws IOException {
    Map<String, Map<String, String>> byStore = new LinkedHashMap<>();
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.getFileName().toString().endsWith(".tsv")).toList();
    }
    List<String> stores = new ArrayList<>();
    for (Path f : files) {
      String name = f.getFileName().toString();
      stores.add(name.substring(0, name.length() - ".tsv".length()));
    }
    stores.sort(Comparator.comparingInt((String s) -> STORE_ORDER.contains(s) ? STORE_ORDER.indexOf(s) : 99)
        .thenComparing(Comparator.naturalOrder()));
    for (String store : stores) {
      byStore.put(store, read(dir.resolve(store + ".tsv")));
    }
    List<String> suites = new ArrayList<>(StoreConformance.SUITES.stream().map(Class::getSimpleName).toList());
    byStore.values().forEach(m -> m.keySet().stream().filter(k -> !k.startsWith("#")).map(ConformanceReportListener::suite)
        .filter(s -> !suites.contains(s)).sorted().forEach(suites::add));

    StringBuilder md = new StringBuilder();
    md.append("# Conformance\n\n");
    md.append("<!-- Generated by conformance-tests' ConformanceReportListener from a test run; do not edit by hand.\n");
    md.append("     Refresh: mvn -B verify -pl conformance-tests -am -Dquiver.conformance.write-docs=true -->\n\n");
    md.append("Every suite of `conformance-suite` runs on every store of Quiver: `conformance-tests` binds each suite to\n");
    md.append("the stores with one parameterised class per suite and tier (`io.quiver.conformance.matrix`: `<Suite>Test`\n");
    md.append("on memory and local in `mvn test`, `<Suite>IT` on S3Proxy, fake-gcs-server and Azurite in `mvn verify`).\n");
    md.append("`local-nofsync` is the local store with `local.fsync=false` (the store contract only), `azure-abfss` the\n");
    md.append("Azure store with tables opened by `abfss://` URI (the concurrent appends only). A test a store cannot run\n");
    md.append("(it lacks a capability: see `StoreFixture#lacks`, `#largeObjects`) is skipped, with the reason below.\n\n");
    md.append("The property suites (`FaultScheduleSuite`, `ModelBasedSuite`) run at the depth of the recorded build\n");
    md.append("(`ci` by default, fixed seeds); `mvn -B verify -Pconformance-long` runs them deep. The broken variants of\n");
    md.append("`io.quiver.conformance.broken` (a non-atomic `putIfAbsent`, a commit that skips the witness check) must\n");
    md.append("make the suites fail, and are not part of this report.\n\n");
    md.append("**Invariants.** `ModelBasedSuite` (random histories of appends, deletes, updates, column writes, compaction,\n");
    md.append("restores, keyed and sequenced commits, crashes, restarts, tags, cleanups and scalar index creates, optimizes\n");
    md.append("and drops on three handles) checks four properties after every step, written once in\n");
    md.append("`io.quiver.model.ModelWorld.Invariant`: *no acknowledged commit lost* (the latest version is the model's and\n");
    md.append("holds every acknowledged commit's rows; the ledger answers for every key and sequence), *no row visible twice*\n");
    md.append("(no scan returns an id twice; no retried key leaves extra rows), *every kept version reads the same* (the\n");
    md.append("version before the latest, every tagged one and a sampled older one after every step, and every version a\n");
    md.append("cleanup kept right after it) and *indices are never stale* (filters on an indexed column return the model's\n");
    md.append("rows, and at the latest version the rows of the scan without indices, at the latest and a kept older\n");
    md.append("version). `ModelHistoriesTest` replays named histories, among them a cleanup that cannot see the tags: the\n");
    md.append("third invariant catches it.\n\n");

    md.append("## Suites × stores\n\n");
    md.append("Tests passed (and skipped, failed) per suite and store; `—`: not run on that store.\n\n");
    md.append("| suite |");
    stores.forEach(s -> md.append(' ').append(s).append(" |"));
    md.append("\n|---|");
    stores.forEach(s -> md.append("---|"));
    md.append('\n');
    for (String suite : suites) {
      md.append("| `").append(suite).append("` |");
      for (String store : stores) {
        int pass = 0;
        int skipped = 0;
        int failed = 0;
        for (Map.Entry<String, String> e : byStore.get(store).entrySet()) {
          if (e.getKey().startsWith("#") || !suite(e.getKey()).equals(suite)) {
            continue;
          }
          switch (outcome(e.getValue())) {
            case "pass" -> pass++;
            case "skipped" -> skipped++;
            default -> failed++;
          }
        }
        md.append(' ').append(counts(pass, skipped, failed)).append(" |");
      }
      md.append('\n');
    }
    md.append("| **all** |");
    for (String store : stores) {
      Map<String, String> rows = byStore.get(store);
      long pass = rows.entrySet().stream().filter(e -> !e.getKey().startsWith("#") && outcome(e.getValue()).equals("pass")).count();
      long skipped = rows.entrySet().stream().filter(e -> !e.getKey().startsWith("#") && outcome(e.getValue()).equals("skipped")).count();
      long all = rows.keySet().stream().filter(k -> !k.startsWith("#")).count();
      md.append(' ').append(counts((int) pass, (int) skipped, (int) (all - pass - skipped))).append(" |");
    }
    md.append("\n\n");

    md.append("## Race catalogue × stores\n\n");
    md.append("Every scenario of the race catalogue (`design/RACE-CATALOGUE.md`; section F, the data-loss classes other\n");
    md.append("formats shipped, in [race-catalogue-f.md](race-catalogue-f.md)) that a suite names in a test (the test name\n");
    md.append("starts with the scenario id): A–C, E, F and H (history as data: stable row ids and the change feed, docs/format.md\n");
    md.append("section 14) by `CatalogueScenarios` (and the journeys that race on a real\n");
    md.append("store), D1–D6 by `HostileInputSuite`. `pass`: the scenario ended in the expected outcome (for A–C and F, `validate()`\n");
    md.append("passed and the affected fields scanned back correctly); `FAIL`: it did not; `skipped`: the store lacks what\n");
    md.append("the test needs; `—`: not run on that store.\n\n");
    md.append("| id | test | suite |");
    stores.forEach(s -> md.append(' ').append(s).append(" |"));
    md.append("\n|---|---|---|");
    stores.forEach(s -> md.append("---|"));
    md.append('\n');
    TreeSet<String> scenarios = new TreeSet<>(Comparator.comparing(ConformanceReportListener::sortKey));
    byStore.values().forEach(m -> m.keySet().stream()
        .filter(k -> !k.startsWith("#") && SCENARIO.matcher(test(k)).matches()).forEach(scenarios::add));
    for (String key : scenarios) {
      Matcher m = SCENARIO.matcher(test(key));
      m.matches();
      md.append("| ").append(m.group(1).toUpperCase()).append(m.group(2)).append(" | `").append(test(key))
          .append("` | ").append(suite(key)).append(" |");
      for (String store : stores) {
        String cell = byStore.get(store).get(key);
        md.append(' ').append(cell == null ? "—" : outcome(cell)).append(" |");
      }
      md.append('\n');
    }

    md.append("\n## Skipped\n\n");
    // suite -> reason -> (stores, tests)
    Map<String, Map<String, TreeSet<String>[]>> skips = new TreeMap<>();
    for (String store : stores) {
      byStore.get(store).forEach((key, cell) -> {
        if (!key.startsWith("#") && outcome(cell).equals("skipped")) {
          @SuppressWarnings("unchecked")
          TreeSet<String>[] group = skips.computeIfAbsent(suite(key), s -> new TreeMap<>())
              .computeIfAbsent(reason(cell), r -> new TreeSet[] {new TreeSet<String>(), new TreeSet<String>()});
          group[0].add(store);
          group[1].add(test(key));
        }
      });
    }
    if (skips.isEmpty()) {
      md.append("Nothing was skipped.\n");
    } else {
      md.append("| suite | stores | tests | reason |\n|---|---|---|---|\n");
      skips.forEach((suite, byReason) -> byReason.forEach((reason, group) -> {
        List<String> ordered = new ArrayList<>(group[0]);
        ordered.sort(Comparator.comparingInt((String s) -> stores.indexOf(s)));
        md.append("| ").append(suite).append(" | ").append(String.join(", ", ordered)).append(" | ");
        md.append(String.join(", ", group[1].stream().map(t -> "`" + t + "`").toList()));
        md.append(" | ").append(reason.replace("|", "\\|")).append(" |\n");
      }));
    }
    md.append("\nLast run per store: ");
    List<String> runs = new ArrayList<>();
    byStore.forEach((store, rows) -> runs.add(store + " " + rows.getOrDefault("#run", "?")));
    md.append(String.join(", ", runs)).append(".\n");
    return md.toString();
  }

  private static String counts(int pass, int skipped, int failed) {
    if (pass + skipped + failed == 0) {
      return "—";
    }
    StringBuilder cell = new StringBuilder().append(pass);
    if (skipped > 0) {
      cell.append(" (+").append(skipped).append(" skipped)");
    }
    if (failed > 0) {
      cell.append(" **").append(failed).append(" FAIL**");
    }
    return cell.toString();
  }

  /** Scenario order: letter, then number, then suite and test. */
  private static String sortKey(String key) {
    Matcher m = SCENARIO.matcher(test(key));
    return m.matches() ? String.format("%s%04d_%s_%s", m.group(1), Integer.parseInt(m.group(2)), test(key), suite(key)) : key;
  }
}
