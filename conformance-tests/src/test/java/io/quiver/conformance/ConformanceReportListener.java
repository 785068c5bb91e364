package io.quiver.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
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
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Writes the conformance table (scenario id × store × result) from the catalogue tests that ran.
 *
 * <p>Registered through {@code META-INF/services}, it records the result of every test of a
 * {@link CatalogueScenarios} subclass whose name starts with a scenario id ({@code b5_...}), under the
 * store its {@link StoreFixture} names, except the broken variants of {@code io.quiver.conformance.broken}. At the end of the run it merges them into
 * {@code target/conformance/<store>.tsv} (one file per store, so the surefire run of memory and local and
 * the failsafe run of the emulators both contribute), then renders every store's file into
 * {@code target/conformance.md}. With {@code -Dquiver.conformance.write-docs=true} it also copies the table
 * to the repository's {@code docs/conformance.md}.
 */
public final class ConformanceReportListener implements TestExecutionListener {
  static final String WRITE_DOCS = "quiver.conformance.write-docs";
  private static final Pattern SCENARIO = Pattern.compile("^([a-z])(\\d+)_\\w+$");
  private static final List<String> STORE_ORDER = List.of("memory", "local", "s3", "gcs", "azure");
  /** Suites run against deliberately broken variants (expected to fail): never conformance results. */
  private static final String BROKEN_VARIANTS = "io.quiver.conformance.broken.";

  private final Map<String, Map<String, String>> resultsByStore = new TreeMap<>();

  @Override
  public void executionSkipped(TestIdentifier id, String reason) {
    record(id, "skipped");
  }

  @Override
  public void executionFinished(TestIdentifier id, TestExecutionResult result) {
    switch (result.getStatus()) {
      case SUCCESSFUL:
        record(id, "pass");
        break;
      case ABORTED:
        record(id, "aborted");
        break;
      default:
        record(id, "FAIL");
        break;
    }
  }

  private void record(TestIdentifier id, String outcome) {
    if (!id.isTest() || id.getSource().isEmpty() || !(id.getSource().get() instanceof MethodSource)) {
      return;
    }
    MethodSource source = (MethodSource) id.getSource().get();
    if (!SCENARIO.matcher(source.getMethodName()).matches() || source.getClassName().startsWith(BROKEN_VARIANTS)) {
      return;
    }
    storeOf(source.getClassName()).ifPresent(store ->
        resultsByStore.computeIfAbsent(store, s -> new TreeMap<>()).put(source.getMethodName(), outcome));
  }

  /**
   * The fixture name of a suite class run on a store fixture (one with a no-argument {@code fixture()}
   * method returning a {@link StoreFixture}: the catalogue scenarios, the hostile-input suite); empty for
   * any other test class.
   */
  private static Optional<String> storeOf(String className) {
    try {
      Class<?> type = Class.forName(className, false, ConformanceReportListener.class.getClassLoader());
      if (java.lang.reflect.Modifier.isAbstract(type.getModifiers())) {
        return Optional.empty();
      }
      java.lang.reflect.Method fixture = findFixtureMethod(type);
      if (fixture == null) {
        return Optional.empty();
      }
      Constructor<?> constructor = type.getDeclaredConstructor();
      constructor.setAccessible(true);
      fixture.setAccessible(true);
      return Optional.of(((StoreFixture) fixture.invoke(constructor.newInstance())).name());
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static java.lang.reflect.Method findFixtureMethod(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      try {
        java.lang.reflect.Method m = c.getDeclaredMethod("fixture");
        if (StoreFixture.class.isAssignableFrom(m.getReturnType())) {
          return m;
        }
      } catch (NoSuchMethodException e) {
        // keep looking up the hierarchy
      }
    }
    return null;
  }

  @Override
  public void testPlanExecutionFinished(TestPlan plan) {
    if (resultsByStore.isEmpty()) {
      return;
    }
    Path module = moduleDir();
    Path dir = module.resolve("target").resolve("conformance");
    try {
      Files.createDirectories(dir);
      String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
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

  /** The Markdown table of every store's recorded results in {@code dir}. */
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
    TreeSet<String> tests = new TreeSet<>(Comparator.comparing(ConformanceReportListener::sortKey));
    byStore.values().forEach(m -> m.keySet().stream().filter(k -> !k.startsWith("#")).forEach(tests::add));

    StringBuilder md = new StringBuilder();
    md.append("# Conformance\n\n");
    md.append("<!-- Generated by conformance-tests' ConformanceReportListener from a test run; do not edit by hand.\n");
    md.append("     Refresh: mvn -B -pl format-core,format-io-local,format-io-s3,format-io-gcs,format-io-azure,conformance-tests -am\n");
    md.append("     verify -Dquiver.conformance.write-docs=true -->\n\n");
    md.append("Every scenario of the race catalogue (`design/RACE-CATALOGUE.md`) run on every store fixture by\n");
    md.append("`conformance-tests` (`CatalogueScenarios`: `MemoryScenariosTest`, `LocalScenariosTest`, `S3ScenariosIT`,\n");
    md.append("`GcsScenariosIT`, `AzureScenariosIT`; D1–D5 by the hostile-input suite, `*HostileInput*`). A test's name\n");
    md.append("starts with its scenario id. `pass`: the scenario ended in the expected outcome (for A–C, `validate()`\n");
    md.append("passed and the affected fields scanned back correctly);\n");
    md.append("`FAIL`: it did not; `not run`: the store's suite did not run in the recorded build.\n\n");
    md.append("The same build runs the property suites on every fixture: the model-based histories\n");
    md.append("(`*ModelBased*`) and the fault schedules (`*FaultSchedule*`), at the ci depth CI runs (fixed\n");
    md.append("seeds); `mvn -B verify -Pconformance-long` runs them deep (more tries, longer histories). The broken\n");
    md.append("variants of `io.quiver.conformance.broken` (a non-atomic `putIfAbsent`, a commit that skips the\n");
    md.append("witness check) must make the suite fail, and are not part of this table.\n\n");
    md.append("| id | test |");
    stores.forEach(s -> md.append(' ').append(s).append(" |"));
    md.append("\n|---|---|");
    stores.forEach(s -> md.append("---|"));
    md.append('\n');
    for (String test : tests) {
      Matcher m = SCENARIO.matcher(test);
      String id = m.matches() ? m.group(1).toUpperCase() + m.group(2) : "?";
      md.append("| ").append(id).append(" | `").append(test).append("` |");
      for (String store : stores) {
        md.append(' ').append(byStore.get(store).getOrDefault(test, "not run")).append(" |");
      }
      md.append('\n');
    }
    md.append("\nLast run per store: ");
    List<String> runs = new ArrayList<>();
    byStore.forEach((store, rows) -> runs.add(store + " " + rows.getOrDefault("#run", "?")));
    md.append(String.join(", ", runs)).append(".\n");
    return md.toString();
  }

  private static String sortKey(String test) {
    Matcher m = SCENARIO.matcher(test);
    return m.matches() ? String.format("%s%04d_%s", m.group(1), Integer.parseInt(m.group(2)), test) : test;
  }
}
