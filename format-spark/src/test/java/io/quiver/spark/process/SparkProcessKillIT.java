package io.quiver.spark.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.CleanupReport;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.manifest.Fragment;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark drivers killed with SIGKILL in a child JVM, the way they die in production: a Structured Streaming
 * query into Quiver killed at several points over several rounds (twice with a cleanup of old versions and
 * orphans between the kill and the restart), restarted from its checkpoint — every input row ends in the table
 * exactly once; and a batch INSERT whose driver is killed while its tasks run — all of the job's rows or none,
 * and the orphans of the killed attempt removed by a cleanup. Nothing waits on the clock: the parent acts on the
 * lines the child prints (its query listener, its tasks).
 */
class SparkProcessKillIT {
  static final Duration LINE_TIMEOUT = Duration.ofMinutes(3);

  @TempDir
  Path dir;

  /** A running child driver and the lines it printed. */
  static final class Child implements AutoCloseable {
    final Process process;
    final BufferedReader out;
    final List<String> lines = new ArrayList<>();

    Child(List<String> args, Path log) throws IOException {
      this(args, log, "");
    }

    /** A child with {@code faults} ({@link SparkChild}'s {@code quiver.kill.faults}). */
    Child(List<String> args, Path log, String faults) throws IOException {
      List<String> command = new ArrayList<>();
      command.add(ProcessHandle.current().info().command().orElse("java"));
      command.addAll(Arrays.asList(System.getProperty("quiver.spark.jvm-flags", "").trim().split("\\s+")));
      command.add("-Xmx768m");
      command.add("-Dquiver.kill.faults=" + faults);
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add(SparkChild.class.getName());
      command.addAll(args);
      command.removeIf(String::isEmpty);
      process = new ProcessBuilder(command).redirectError(log.toFile()).start();
      out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** Reads lines until one starts with {@code prefix}; fails if the child ends or is silent too long. */
    String await(String prefix) throws Exception {
      long deadline = System.nanoTime() + LINE_TIMEOUT.toNanos();
      while (System.nanoTime() < deadline) {
        String line = out.readLine();
        if (line == null) {
          throw new AssertionError("the child ended (exit " + process.waitFor() + ") before printing '" + prefix
              + "'; it printed " + lines);
        }
        lines.add(line);
        if (line.startsWith(prefix)) {
          return line;
        }
      }
      throw new AssertionError("no line '" + prefix + "' within " + LINE_TIMEOUT + "; printed " + lines);
    }

    /** Waits for the halt a {@code halt-after} fault causes: a HALT line, then status 137, as SIGKILL leaves it. */
    void awaitHalt() throws Exception {
      await("HALT ");
      assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
      assertThat(process.exitValue()).as("halted (137); printed %s", lines).isEqualTo(137);
    }

    /** SIGKILL: no shutdown hook, no finally block runs in the child. */
    void kill() throws InterruptedException {
      process.destroyForcibly();
      assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
      assertThat(process.exitValue()).as("killed by SIGKILL (128 + 9)").isEqualTo(137);
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }
  }

  private static DatasetOptions options() {
    return DatasetOptions.builder().storeOptions(Map.of("local.fsync", "false")).build();
  }

  /** Every id in the table, with how often it appears. */
  private static Map<Long, Integer> ids(String uri) throws Exception {
    Map<Long, Integer> counts = new TreeMap<>();
    try (RootAllocator allocator = new RootAllocator();
        Dataset ds = Dataset.open(uri, options().toBuilder().allocator(allocator).build());
        ArrowReader r = ds.newScan().columns("id").open()) {
      while (r.loadNextBatch()) {
        BigIntVector id = (BigIntVector) r.getVectorSchemaRoot().getVector("id");
        for (int i = 0; i < id.getValueCount(); i++) {
          counts.merge(id.get(i), 1, Integer::sum);
        }
      }
    }
    return counts;
  }

  private static CleanupReport cleanupEverythingUnreferenced(String uri) {
    try (Dataset ds = Dataset.open(uri, options())) {
      return ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).safetyWindow(Duration.ZERO).build());
    }
  }

  private void createTable(Path warehouse, String table) throws Exception {
    Path tableDir = warehouse.resolve("db").resolve(table);
    Files.createDirectories(tableDir.getParent());
    try (RootAllocator allocator = new RootAllocator();
        org.apache.arrow.vector.VectorSchemaRoot empty = org.apache.arrow.vector.VectorSchemaRoot.create(
            new org.apache.arrow.vector.types.pojo.Schema(List.of(org.apache.arrow.vector.types.pojo.Field.nullable(
                "id", new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true)))), allocator);
        Dataset ds = Dataset.create(tableDir.toUri().toString(), empty.getSchema(), List.of(empty), options())) {
      ds.version();
    }
  }

  @Test
  void aStreamingQueryKilledOverSeveralRoundsCommitsEveryInputRowOnce() throws Exception {
    Path warehouse = dir.resolve("wh");
    Path input = Files.createDirectories(dir.resolve("input"));
    Path checkpoint = dir.resolve("checkpoint");
    String table = "events";
    createTable(warehouse, table);
    String uri = warehouse.resolve("db").resolve(table).toUri().toString();
    int files = 10;
    int perFile = 40;
    for (int f = 0; f < files; f++) {
      StringBuilder json = new StringBuilder();
      for (int i = 0; i < perFile; i++) {
        json.append("{\"id\":").append(f * perFile + i).append("}\n");
      }
      Files.writeString(input.resolve(String.format("part-%03d.json", f)), json.toString());
    }
    // Round r: let the query commit (r % 2) + 1 batches with rows, SIGKILL it; rounds 1 and 3 clean up too.
    int rounds = 4;
    int cleanups = 0;
    for (int r = 0; r < rounds; r++) {
      try (Child child = new Child(List.of("stream", warehouse.toUri().toString(), table, input.toString(),
          checkpoint.toString(), "follow"), dir.resolve("stream-" + r + ".log"))) {
        child.await("STARTED");
        int batches = 0;
        while (batches < r % 2 + 1) {
          String line = child.await("BATCH ");
          if (!line.endsWith(" 0")) {
            batches++;
          }
        }
        child.kill();
      }
      Map<Long, Integer> now = ids(uri);
      assertThat(now.values()).as("after kill %d, no id twice", r).allMatch(n -> n == 1);
      if (r % 2 == 1) {
        CleanupReport report = cleanupEverythingUnreferenced(uri);
        cleanups++;
        assertThat(report.failed()).isEmpty();
        assertThat(ids(uri)).as("a cleanup changes no row").isEqualTo(now);
      }
    }
    assertThat(cleanups).isEqualTo(2);
    try (Child child = new Child(List.of("stream", warehouse.toUri().toString(), table, input.toString(),
        checkpoint.toString(), "drain"), dir.resolve("stream-drain.log"))) {
      child.await("DONE");
      assertThat(child.process.waitFor(1, TimeUnit.MINUTES)).isTrue();
    }
    Map<Long, Integer> all = ids(uri);
    assertThat(all.keySet()).hasSize(files * perFile);
    assertThat(all.values()).allMatch(n -> n == 1);
    assertThat(all).containsOnlyKeys(Stream.iterate(0L, i -> i + 1).limit((long) files * perFile).toList());
    try (Dataset ds = Dataset.open(uri, options())) {
      assertThat(ds.validate().isValid()).isTrue();
    }
  }

  /**
   * The deterministic crash window of a streaming write: the driver halts right after the table commit of its
   * second batch with rows, before Spark writes that batch to its commit log, so the restarted query runs the
   * batch again under the same epoch id; it then drains the input. Returns every id's count.
   */
  private Map<Long, Integer> streamHaltedAfterACommitAndDrained(String name, String faults, int files, int perFile)
      throws Exception {
    Path warehouse = dir.resolve(name);
    Path input = Files.createDirectories(dir.resolve(name + "-input"));
    Path checkpoint = dir.resolve(name + "-checkpoint");
    createTable(warehouse, name);
    for (int f = 0; f < files; f++) {
      StringBuilder json = new StringBuilder();
      for (int i = 0; i < perFile; i++) {
        json.append("{\"id\":").append(f * perFile + i).append("}\n");
      }
      Files.writeString(input.resolve(String.format("part-%03d.json", f)), json.toString());
    }
    List<String> args = List.of("stream", warehouse.toUri().toString(), name, input.toString(), checkpoint.toString(),
        "drain");
    String halting = faults.isEmpty() ? "halt-after=2" : "halt-after=2," + faults;
    try (Child child = new Child(args, dir.resolve(name + "-0.log"), halting)) {
      child.awaitHalt();
    }
    try (Child child = new Child(args, dir.resolve(name + "-1.log"), faults)) {
      child.await("DONE");
      assertThat(child.process.waitFor(1, TimeUnit.MINUTES)).isTrue();
    }
    return ids(warehouse.resolve("db").resolve(name).toUri().toString());
  }

  @Test
  void aStreamingQueryHaltedRightAfterATableCommitRunsTheBatchAgainWithoutADuplicate() throws Exception {
    Map<Long, Integer> all = streamHaltedAfterACommitAndDrained("halted", "", 5, 40);
    assertThat(all).containsOnlyKeys(Stream.iterate(0L, i -> i + 1).limit(200).toList());
    assertThat(all.values()).as("every id once").allMatch(n -> n == 1);
  }

  /** The failing variant: a streaming write without its ledger is caught committing the batch run again twice. */
  @Test
  void aStreamingWriteWithoutItsLedgerIsCaughtCommittingTheBatchTwice() throws Exception {
    Map<Long, Integer> all = streamHaltedAfterACommitAndDrained("no_ledger", "ignore-ledger", 5, 40);
    assertThat(all).containsOnlyKeys(Stream.iterate(0L, i -> i + 1).limit(200).toList());
    assertThat(all.values()).as("the exactly-once check catches the broken write: ids twice")
        .anyMatch(n -> n > 1);
  }

  /**
   * The failing variant: a batch write whose tasks commit their own files, its driver halted right after the
   * first task's commit, is caught by the all-or-none check.
   */
  @Test
  void aBatchWriteCommittingEachTaskIsCaughtLeavingPartOfTheJob() throws Exception {
    Path warehouse = dir.resolve("wh");
    String table = "per_task";
    createTable(warehouse, table);
    long rows = 4_000;
    try (Child child = new Child(List.of("insert", warehouse.toUri().toString(), table, Long.toString(rows), "8"),
        dir.resolve("per-task.log"), "commit-each-task,halt-after=1")) {
      child.awaitHalt();
    }
    Map<Long, Integer> after = ids(warehouse.resolve("db").resolve(table).toUri().toString());
    assertThat(after.size()).as("the all-or-none check catches the broken write").isNotIn(0, (int) rows);
  }

  @Test
  void aBatchInsertWhoseDriverIsKilledCommitsAllRowsOrNoneAndCleanupRemovesItsOrphans() throws Exception {
    Path warehouse = dir.resolve("wh");
    String table = "batch";
    createTable(warehouse, table);
    String uri = warehouse.resolve("db").resolve(table).toUri().toString();
    long rows = 4_000;
    try (Child child = new Child(List.of("insert", warehouse.toUri().toString(), table, Long.toString(rows), "8"),
        dir.resolve("insert.log"))) {
      child.await("TASK ");
      child.kill();
    }
    Map<Long, Integer> after = ids(uri);
    assertThat(after.size()).as("all of the job's rows or none").isIn(0, (int) rows);
    assertThat(after.values()).allMatch(n -> n == 1);
    CleanupReport report = cleanupEverythingUnreferenced(uri);
    assertThat(report.failed()).isEmpty();
    System.out.println("[kill] batch INSERT killed after its first task: " + after.size() + " rows committed, "
        + report.dataFilesRemoved() + " orphan data files removed");
    // What is left under data/ is exactly what the versions reference.
    Set<String> referenced = new HashSet<>();
    try (Dataset ds = Dataset.open(uri, options())) {
      for (Fragment f : ds.manifest().fragments()) {
        f.files().forEach(file -> referenced.add(Path.of(file.path()).getFileName().toString()));
      }
      assertThat(ds.validate().isValid()).isTrue();
    }
    Path data = warehouse.resolve("db").resolve(table).resolve("data");
    Set<String> present = new HashSet<>();
    if (Files.isDirectory(data)) {
      try (Stream<Path> s = Files.list(data)) {
        s.forEach(p -> present.add(p.getFileName().toString()));
      }
    }
    assertThat(present).isEqualTo(referenced);
    // The job run again to its end commits its rows once more, whole.
    try (Child child = new Child(List.of("insert", warehouse.toUri().toString(), table, Long.toString(rows), "8"),
        dir.resolve("insert-again.log"))) {
      child.await("DONE");
    }
    Map<Long, Integer> end = ids(uri);
    assertThat(end.keySet()).hasSize((int) rows);
    int expected = after.isEmpty() ? 1 : 2;
    assertThat(end.values()).allMatch(n -> n == expected);
  }

}
