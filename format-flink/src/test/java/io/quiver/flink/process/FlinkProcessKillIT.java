package io.quiver.flink.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.CleanupReport;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flink jobs killed with SIGKILL in a child JVM ({@link FlinkChild}) after completed checkpoints, and resubmitted
 * as new jobs from the latest retained checkpoint, over several rounds: the DataStream sink (with a cleanup of old
 * versions between a kill and the resubmission), a Flink SQL upsert job, and a follow-mode source feeding a sink.
 * The kill points are drawn from a fixed seed per round (in every assertion message); the parent acts on the
 * table's versions and the checkpoint directory, polled with a deadline.
 */
class FlinkProcessKillIT {
  static final Duration DEADLINE = Duration.ofMinutes(3);

  @TempDir
  Path dir;

  private static DatasetOptions options() {
    return DatasetOptions.builder().storeOptions(Map.of("local.fsync", "false")).build();
  }

  /** A running child job; its output goes to a log file. */
  static final class Child implements AutoCloseable {
    final Process process;
    final Path log;

    Child(List<String> args, Path log) throws IOException {
      this(args, log, "");
    }

    /** A child with {@code faults} ({@link FlinkChild}'s {@code quiver.kill.faults}). */
    Child(List<String> args, Path log, String faults) throws IOException {
      this.log = log;
      List<String> command = new ArrayList<>();
      command.add(ProcessHandle.current().info().command().orElse("java"));
      command.addAll(Arrays.asList(System.getProperty("quiver.flink.jvm-flags", "").trim().split("\\s+")));
      command.add("-Xmx768m");
      command.add("-Dquiver.kill.faults=" + faults);
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add(FlinkChild.class.getName());
      command.addAll(args);
      command.removeIf(String::isEmpty);
      process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Polls {@code condition} until it holds; fails if the child ended first or the deadline passed. */
    void await(String what, BooleanSupplier condition) throws Exception {
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (!condition.getAsBoolean()) {
        if (!process.isAlive()) {
          if (condition.getAsBoolean()) {
            return;
          }
          throw new AssertionError("the child ended (exit " + process.exitValue() + ") before " + what + "; log:\n"
              + tail());
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError("not " + what + " within " + DEADLINE + "; log:\n" + tail());
        }
        process.waitFor(50, TimeUnit.MILLISECONDS);
      }
    }

    String tail() {
      try {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
      } catch (IOException e) {
        return "(no log: " + e + ")";
      }
    }

    /** SIGKILL: no shutdown hook, no finally block runs in the child. */
    void kill() throws InterruptedException {
      process.destroyForcibly();
      assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
      assertThat(process.exitValue()).as("killed by SIGKILL (128 + 9)").isEqualTo(137);
    }

    /** Waits for the halt a {@code halt-after} fault causes: status 137, as SIGKILL leaves it. */
    void awaitHalt() throws Exception {
      await("the halt after a table commit", () -> !process.isAlive());
      assertThat(process.exitValue()).as("halted (137); log:\n%s", tail()).isEqualTo(137);
      assertThat(Files.readString(log)).contains("HALT after committing checkpoint");
    }

    void awaitExit() throws Exception {
      await("the job's end", () -> !process.isAlive());
      assertThat(process.exitValue()).as("exit status; log:\n%s", tail()).isZero();
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }
  }

  private static Path createIdTable(Path at) {
    Schema schema = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot empty = VectorSchemaRoot.create(schema, allocator);
        Dataset ds = Dataset.create(at.toString(), schema, List.of(empty), options())) {
      ds.version();
    }
    return at;
  }

  private static void append(Path table, long from, int rows) {
    Schema schema = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator);
        Dataset ds = Dataset.open(table.toString(), options())) {
      BigIntVector id = (BigIntVector) batch.getVector("id");
      id.allocateNew(rows);
      for (int i = 0; i < rows; i++) {
        id.set(i, from + i);
      }
      batch.setRowCount(rows);
      ds.append(List.of(batch));
    }
  }

  private static long version(Path table) {
    try (Dataset ds = Dataset.open(table.toString(), options())) {
      return ds.version();
    }
  }

  private static long rows(Path table) {
    try (Dataset ds = Dataset.open(table.toString(), options())) {
      return ds.countRows();
    }
  }

  /** Every value of a BIGINT column, with how often it appears. */
  private static Map<Long, Integer> counts(Path table, String column) throws Exception {
    Map<Long, Integer> counts = new TreeMap<>();
    try (RootAllocator allocator = new RootAllocator();
        Dataset ds = Dataset.open(table.toString(), options().toBuilder().allocator(allocator).build());
        ArrowReader r = ds.newScan().columns(column).open()) {
      while (r.loadNextBatch()) {
        BigIntVector v = (BigIntVector) r.getVectorSchemaRoot().getVector(column);
        for (int i = 0; i < v.getValueCount(); i++) {
          counts.merge(v.get(i), 1, Integer::sum);
        }
      }
    }
    return counts;
  }

  /** The newest completed checkpoint ({@code chk-N} with its {@code _metadata}) under {@code checkpoints}. */
  private static Optional<Path> latestCheckpoint(Path checkpoints) throws IOException {
    if (!Files.isDirectory(checkpoints)) {
      return Optional.empty();
    }
    try (Stream<Path> s = Files.walk(checkpoints, 2)) {
      return s.filter(p -> p.getFileName().toString().startsWith("chk-") && Files.isRegularFile(p.resolve("_metadata")))
          .max((a, b) -> Long.compare(number(a), number(b)));
    }
  }

  private static long number(Path chk) {
    return Long.parseLong(chk.getFileName().toString().substring("chk-".length()));
  }

  private static String restoreFrom(Path previousCheckpoints) throws IOException {
    if (previousCheckpoints == null) {
      return "none";
    }
    return latestCheckpoint(previousCheckpoints).map(p -> p.toUri().toString())
        .orElseThrow(() -> new AssertionError("no completed checkpoint under " + previousCheckpoints));
  }

  private static String ids(Map<Long, Integer> counts, long total) {
    List<Long> missing = new ArrayList<>();
    List<Long> twice = new ArrayList<>();
    for (long i = 0; i < total; i++) {
      int n = counts.getOrDefault(i, 0);
      if (n == 0 && missing.size() < 20) {
        missing.add(i);
      } else if (n > 1 && twice.size() < 20) {
        twice.add(i);
      }
    }
    return "missing " + missing + ", more than once " + twice;
  }

  /** Empty when {@code counts} holds every id of {@code 0 .. total-1} exactly once, else what is wrong. */
  private static String exactlyOnceProblems(Map<Long, Integer> counts, long total) {
    boolean ok = counts.size() == total && counts.values().stream().allMatch(n -> n == 1)
        && counts.keySet().stream().allMatch(id -> id >= 0 && id < total);
    return ok ? "" : ids(counts, total);
  }

  /**
   * The deterministic crash window of a checkpoint committer: the child halts right after its second table
   * commit, before Flink hears of it, so the checkpoint it restores from re-delivers that committed checkpoint;
   * the resubmitted job runs to its end. Returns every id's count.
   */
  private Map<Long, Integer> sinkHaltedAfterACommitAndResumed(String name, String faults, long total)
      throws Exception {
    Path table = createIdTable(dir.resolve(name));
    haltAfterACommitThenResume("sink", table, name, faults, total, 50);
    return counts(table, "id");
  }

  /**
   * Runs {@link FlinkChild} in {@code mode} on {@code table} with {@code faults} until it halts right after its
   * second table commit, then resubmits it (with {@code faults}, without the halt) from its latest retained
   * checkpoint and waits for the end of the job.
   */
  private void haltAfterACommitThenResume(String mode, Path table, String name, String faults, long total,
      int perCheckpoint) throws Exception {
    Path first = dir.resolve(name + "-ckpt-0");
    String rows = Long.toString(total);
    String pace = Integer.toString(perCheckpoint);
    try (Child child = new Child(List.of(mode, table.toString(), first.toString(), "none", rows, pace),
        dir.resolve(name + "-0.log"), joined("halt-after=2", faults))) {
      child.awaitHalt();
    }
    try (Child child = new Child(List.of(mode, table.toString(), dir.resolve(name + "-ckpt-1").toString(),
        restoreFrom(first), rows, pace), dir.resolve(name + "-1.log"), faults)) {
      child.awaitExit();
    }
  }

  private static String joined(String a, String b) {
    return b.isEmpty() ? a : a + "," + b;
  }

  @Test
  void aDataStreamSinkHaltedRightAfterATableCommitIsRestoredWithoutADuplicate() throws Exception {
    Map<Long, Integer> all = sinkHaltedAfterACommitAndResumed("halted", "", 600);
    assertThat(exactlyOnceProblems(all, 600)).as("every id exactly once").isEmpty();
  }

  /** The failing variant: a sink that commits re-delivered committables again (no ledger) is caught. */
  @Test
  void aSinkWithoutItsLedgerIsCaughtCommittingTheRedeliveredCheckpointTwice() throws Exception {
    Map<Long, Integer> all = sinkHaltedAfterACommitAndResumed("no-ledger", "ignore-ledger", 600);
    assertThat(exactlyOnceProblems(all, 600)).as("the exactly-once check catches the broken sink")
        .contains("more than once [").doesNotContain("more than once []");
  }

  @Test
  void aDataStreamSinkKilledAndResubmittedFromRetainedCheckpointsWritesEveryRowOnce() throws Exception {
    Path table = createIdTable(dir.resolve("events"));
    long total = 3_000;
    int perCheckpoint = 50;
    Path previous = null;
    int rounds = 3;
    for (int r = 0; r < rounds; r++) {
      long seed = 41L + r;
      int commits = 1 + new Random(seed).nextInt(3); // commits to see before the kill
      Path checkpoints = dir.resolve("sink-ckpt-" + r);
      long before = version(table);
      try (Child child = new Child(List.of("sink", table.toString(), checkpoints.toString(), restoreFrom(previous),
          Long.toString(total), Integer.toString(perCheckpoint)), dir.resolve("sink-" + r + ".log"))) {
        child.await(commits + " commits and a retained checkpoint (round " + r + ", seed " + seed + ")",
            () -> version(table) >= before + commits && hasCheckpoint(checkpoints));
        child.kill();
      }
      Map<Long, Integer> now = counts(table, "id");
      assertThat(now.values()).as("round %d (seed %d): no id twice after the kill", r, seed).allMatch(n -> n == 1);
      if (r == 1) {
        // Old versions go (the watermark lives in the latest ledger); files younger than the window stay.
        try (Dataset ds = Dataset.open(table.toString(), options())) {
          CleanupReport report = ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).build());
          assertThat(report.versionsRemoved()).isNotEmpty();
        }
        assertThat(counts(table, "id")).as("a cleanup changes no row").isEqualTo(now);
      }
      previous = checkpoints;
    }
    try (Child child = new Child(List.of("sink", table.toString(), dir.resolve("sink-ckpt-last").toString(),
        restoreFrom(previous), Long.toString(total), Integer.toString(perCheckpoint)), dir.resolve("sink-last.log"))) {
      child.awaitExit();
    }
    Map<Long, Integer> all = counts(table, "id");
    assertThat(all.size() == total && all.values().stream().allMatch(n -> n == 1))
        .as("every id of 0..%d exactly once: %s", total - 1, ids(all, total)).isTrue();
    assertThat(all.keySet()).allMatch(id -> id >= 0 && id < total);
    try (Dataset ds = Dataset.open(table.toString(), options())) {
      assertThat(ds.validate().isValid()).isTrue();
    }
  }

  private static boolean hasCheckpoint(Path checkpoints) {
    try {
      return latestCheckpoint(checkpoints).isPresent();
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void aSqlUpsertJobKilledAndResubmittedEndsWithTheExactStatePerKey() throws Exception {
    Path table = dir.resolve("counts");
    long total = 2_000;
    int perCheckpoint = 40;
    Path previous = null;
    long countedBefore = 0;
    for (int r = 0; r < 3; r++) {
      long seed = 71L + r;
      int commits = 1 + new Random(seed).nextInt(3);
      Path checkpoints = dir.resolve("upsert-ckpt-" + r);
      // version 1 is the empty table the first job creates
      long before = Files.isDirectory(table.resolve("_versions")) ? version(table) : 1;
      try (Child child = new Child(List.of("upsert", table.toString(), checkpoints.toString(), restoreFrom(previous),
          Long.toString(total), Integer.toString(perCheckpoint)), dir.resolve("upsert-" + r + ".log"))) {
        child.await(commits + " upsert commits and a retained checkpoint (round " + r + ", seed " + seed + ")",
            () -> Files.isDirectory(table.resolve("_versions")) && version(table) >= before + commits
                && hasCheckpoint(checkpoints));
        child.kill();
      }
      Map<Long, Integer> keys = counts(table, "k");
      assertThat(keys.values()).as("round %d (seed %d): one row per key", r, seed).allMatch(n -> n == 1);
      // Restored, not restarted: the aggregation resumed from the checkpoint's counts, so the counted ids only
      // grow (a job started afresh would upsert small counts over them).
      long counted = counts(table, "n").entrySet().stream().mapToLong(e -> e.getKey() * e.getValue()).sum();
      assertThat(counted).as("round %d (seed %d): ids counted so far", r, seed).isGreaterThan(countedBefore);
      countedBefore = counted;
      previous = checkpoints;
    }
    try (Child child = new Child(List.of("upsert", table.toString(), dir.resolve("upsert-ckpt-last").toString(),
        restoreFrom(previous), Long.toString(total), Integer.toString(perCheckpoint)), dir.resolve("upsert-last.log"))) {
      child.awaitExit();
    }
    Map<Long, Integer> keys = counts(table, "k");
    assertThat(keys).hasSize(FlinkChild.KEYS).allSatisfy((k, n) -> assertThat(n).as("rows of key %d", k).isOne());
    Map<Long, Integer> lastIds = counts(table, "last_id");
    Map<Long, Integer> expectedLast = new TreeMap<>();
    for (long k = 0; k < FlinkChild.KEYS; k++) {
      expectedLast.put(total - FlinkChild.KEYS + k, 1);
    }
    assertThat(lastIds).as("each key's last id").isEqualTo(expectedLast);
    Map<Long, Integer> n = counts(table, "n");
    assertThat(n).as("each key counted every id once").isEqualTo(Map.of(total / FlinkChild.KEYS, FlinkChild.KEYS));
  }

  /**
   * The upsert job of {@link #aSqlUpsertJobKilledAndResubmittedEndsWithTheExactStatePerKey}, halted right after
   * its second table commit and resubmitted from the checkpoint that re-delivers it; returns what is wrong with
   * the table's final state per key (empty when it is exact).
   */
  private List<String> upsertHaltedAfterACommitAndResumed(String name, String faults, long total) throws Exception {
    Path table = dir.resolve(name);
    haltAfterACommitThenResume("upsert", table, name, faults, total, 40);
    List<String> problems = new ArrayList<>();
    Map<Long, Integer> keys = counts(table, "k");
    if (keys.size() != FlinkChild.KEYS || !keys.values().stream().allMatch(n -> n == 1)) {
      problems.add("rows per key " + keys);
    }
    Map<Long, Integer> expectedLast = new TreeMap<>();
    for (long k = 0; k < FlinkChild.KEYS; k++) {
      expectedLast.put(total - FlinkChild.KEYS + k, 1);
    }
    Map<Long, Integer> lastIds = counts(table, "last_id");
    if (!lastIds.equals(expectedLast)) {
      problems.add("last ids " + lastIds + ", expected " + expectedLast);
    }
    Map<Long, Integer> n = counts(table, "n");
    if (!n.equals(Map.of(total / FlinkChild.KEYS, FlinkChild.KEYS))) {
      problems.add("counts " + n);
    }
    return problems;
  }

  @Test
  void aSqlUpsertJobHaltedRightAfterATableCommitEndsWithTheExactStatePerKey() throws Exception {
    assertThat(upsertHaltedAfterACommitAndResumed("upsert-halted", "", 800)).isEmpty();
  }

  /** The failing variant: an upsert writer that keeps a key's first change of a checkpoint is caught. */
  @Test
  void anUpsertWriterKeepingTheFirstChangeOfAKeyIsCaught() throws Exception {
    assertThat(upsertHaltedAfterACommitAndResumed("upsert-first-wins", "first-change-wins", 800))
        .as("the final-state check catches the broken writer").isNotEmpty();
  }

  /** The failing variant: a source whose restored enumerator forgets its position is caught re-emitting rows. */
  @Test
  void aSourceThatForgetsItsRestoredPositionIsCaughtEmittingRowsTwice() throws Exception {
    Path source = createIdTable(dir.resolve("broken-source"));
    Path target = createIdTable(dir.resolve("broken-target"));
    append(source, 0, 100);
    append(source, 100, 100);
    Path first = dir.resolve("broken-follow-ckpt-0");
    try (Child child = new Child(List.of("follow", target.toString(), first.toString(), "none", "0", "1",
        source.toString()), dir.resolve("broken-follow-0.log"))) {
      child.await("every row downstream and a retained checkpoint", () -> rows(target) >= 200 && hasCheckpoint(first));
      child.kill();
    }
    assertThat(exactlyOnceProblems(counts(target, "id"), rows(target))).as("the correct source, before").isEmpty();
    append(source, 200, 100);
    try (Child child = new Child(List.of("follow", target.toString(), dir.resolve("broken-follow-ckpt-1").toString(),
        restoreFrom(first), "0", "1", source.toString()), dir.resolve("broken-follow-1.log"),
        "ignore-restored-state")) {
      child.await("more rows downstream than were appended", () -> rows(target) > 300);
      child.kill();
    }
    assertThat(exactlyOnceProblems(counts(target, "id"), 300)).as("the exactly-once check catches the broken source")
        .contains("more than once [").doesNotContain("more than once []");
  }

  @Test
  void aFollowModeSourceRestoredAfterSigkillEmitsEveryAppendedRowOnce() throws Exception {
    Path source = createIdTable(dir.resolve("source"));
    Path target = createIdTable(dir.resolve("target"));
    int batch = 100;
    long appended = 0;
    Path previous = null;
    for (int r = 0; r < 3; r++) {
      long seed = 97L + r;
      int batches = 1 + new Random(seed).nextInt(3);
      Path checkpoints = dir.resolve("follow-ckpt-" + r);
      try (Child child = new Child(List.of("follow", target.toString(), checkpoints.toString(), restoreFrom(previous),
          "0", "1", source.toString()), dir.resolve("follow-" + r + ".log"))) {
        for (int b = 0; b < batches; b++) {
          append(source, appended, batch);
          appended += batch;
        }
        long seen = appended - batch; // the kill comes once most of this round's rows are through
        child.await("rows up to " + seen + " downstream and a retained checkpoint (round " + r + ", seed " + seed
            + ")", () -> rows(target) >= seen && hasCheckpoint(checkpoints));
        child.kill();
      }
      Map<Long, Integer> now = counts(target, "id");
      assertThat(now.values()).as("round %d (seed %d): no row twice", r, seed).allMatch(n -> n == 1);
      append(source, appended, batch); // appended while no job runs
      appended += batch;
      previous = checkpoints;
    }
    long total = appended;
    try (Child child = new Child(List.of("follow", target.toString(), dir.resolve("follow-ckpt-last").toString(),
        restoreFrom(previous), "0", "1", source.toString()), dir.resolve("follow-last.log"))) {
      child.await("every appended row downstream", () -> rows(target) >= total);
      child.kill();
    }
    Map<Long, Integer> all = counts(target, "id");
    assertThat(all.size() == total && all.values().stream().allMatch(n -> n == 1))
        .as("every appended row exactly once: %s", ids(all, total)).isTrue();
  }
}
