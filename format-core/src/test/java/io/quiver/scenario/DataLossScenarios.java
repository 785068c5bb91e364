package io.quiver.scenario;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.internal.codec.MetadataCodec.ROOTS_PREFIX;
import static io.quiver.dataset.SampleTable.scanIds;
import static io.quiver.predicate.Predicate.and;
import static io.quiver.predicate.Predicate.eq;
import static io.quiver.predicate.Predicate.ge;
import static io.quiver.predicate.Predicate.in;
import static io.quiver.predicate.Predicate.lt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.CompactedGroup;
import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.CompactionPlan;
import io.quiver.dataset.CompactionTask;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.DistributedWriter;
import io.quiver.dataset.MergeInsertResult;
import io.quiver.dataset.RowDeltaResult;
import io.quiver.dataset.SampleTable;
import io.quiver.dataset.Session;
import io.quiver.dataset.ValidationReport;
import io.quiver.dataset.VersionInfo;
import io.quiver.dataset.WriteMode;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.exceptions.QuiverException;
import io.quiver.manifest.Segment;
import io.quiver.predicate.Predicate;
import io.quiver.schema.ReservedNames;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore.Op;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.TestStores;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Catalogue section F: the data-loss classes other table formats shipped in 2025–26
 * (docs/race-catalogue.md, section F), written once against a {@link ScenarioTable} so that format-core runs
 * them on the memory store and conformance-tests on every store fixture. Each scenario interleaves its handles
 * explicitly (fault hooks, store views switched on and off), then validates the table and scans what a user
 * would check.
 *
 * <p>Where a class is about a step a caller or an engine implements on top of Quiver (a rewrite, an upsert, a
 * delete by key, a retry, a clean-up after a failure), the scenario takes the step as an argument; the public
 * one-argument form runs it with Quiver's own implementation. conformance-tests' {@code broken} package runs
 * the same scenarios with broken steps and broken stores and checks that they fail.
 */
public final class DataLossScenarios {
  private DataLossScenarios() {}

  // ---------------------------------------------------------------- the steps a scenario can be given

  /** A rewrite of every live row of a version (compaction, overwrite): read at one handle, published from any. */
  public interface Rewrite {
    /** Reads {@code at}'s version and writes what the rewrite publishes; nothing is committed yet. */
    Publish prepare(ScenarioTable t, Dataset at);

    /** Publishes a prepared rewrite through {@code committer} (any handle on the table, at any version). */
    interface Publish {
      void from(Dataset committer);
    }
  }

  /** Quiver's distributed compaction: planned at the handle's version, tasks run as workers, committed later. */
  public static final Rewrite COMPACTION = (t, at) -> {
    CompactionPlan plan = at.compaction().plan(CompactionOptions.defaults());
    assertThat(plan.isEmpty()).as("the scenario's fragments qualify for compaction").isFalse();
    List<CompactedGroup> groups = plan.tasks().stream()
        .map(task -> CompactedGroup.decode(CompactionTask.decode(task.encode()).execute(t.options()).encode()))
        .toList();
    return committer -> committer.compaction().commit(plan, groups);
  };

  /** An upsert by the key {@code id} of the sample rows {@code [from, from + rows)}. */
  public interface Upsert {
    void upsert(ScenarioTable t, Dataset ds, long from, int rows);
  }

  /** Quiver's merge-insert: matched rows updated, new keys inserted. */
  public static final Upsert MERGE_INSERT = (t, ds, from, rows) -> {
    try (ArrowReader source = reader(t, from, rows)) {
      ds.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(source);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  };

  /** A delete of every row whose {@code id} is {@code key}. */
  public interface DeleteByKey {
    void delete(Dataset ds, long key);
  }

  /** Quiver's delete by predicate. */
  public static final DeleteByKey DELETE_BY_PREDICATE = (ds, key) -> ds.delete(eq("id", key));

  /** An append of rows read from {@code input}, with whatever retries the appender makes. */
  public interface Appender {
    long append(Dataset ds, Iterable<VectorSchemaRoot> input);
  }

  /** Quiver's append: its commit loop retries the claim; it never reads its input twice. */
  public static final Appender APPEND = Dataset::append;

  /** What a caller does after a change failed, before other writers go on. */
  public interface AfterFailure {
    void cleanUp(ScenarioTable t, Dataset failed);
  }

  /** Nothing: Quiver deleted what the failed change wrote. */
  public static final AfterFailure NOTHING = (t, failed) -> { };

  /** A cleanup of old versions and unreferenced files, run through {@code ds}. */
  public interface Cleanup {
    void run(Dataset ds, CleanupOptions options);
  }

  /** Quiver's cleanup. */
  public static final Cleanup CLEANUP = Dataset::cleanup;

  /** Replaces the rows {@code [from, from + rows)} by new versions of themselves, in one change. */
  public interface Replace {
    void replace(ScenarioTable t, Dataset ds, long from, int rows);
  }

  /** Quiver's row delta: the old rows deleted by address and their new versions added, one transaction. */
  public static final Replace ROW_DELTA = (t, ds, from, rows) -> {
    long read = ds.version();
    long[] addresses = addresses(ds, and(ge("id", from), lt("id", from + rows)));
    WriteResult added;
    try (DistributedWriter w = DistributedWriter.open(t.uri(), t.options(), read);
        VectorSchemaRoot b = SampleTable.batch(t.allocator(), from, rows)) {
      added = w.write(List.of(b));
    }
    RowDeltaResult r = ds.distributed().newRowDelta(read).deleteRows(addresses).addRows(List.of(added))
        .commit(t.options().commitOptions());
    assertThat(r.deletedRows()).isEqualTo(rows);
    assertThat(r.addedRows()).isEqualTo(rows);
  };

  // ---------------------------------------------------------------- F1

  /** F1: a compaction planned at version v is committed after a concurrent delete, from a fresh handle at the latest. */
  public static void f1_compactionPlannedBeforeAConcurrentDeleteNeverBringsDeletedRowsBack(ScenarioTable t) {
    f1(t, COMPACTION);
  }

  public static void f1(ScenarioTable t, Rewrite rewrite) {
    try (Dataset ds = t.create(0, 30)) {
      t.append(ds, 30, 30);
      t.append(ds, 60, 30); // v3: three fragments of 30
    }
    Rewrite.Publish planned;
    try (Dataset planner = t.open()) {
      planned = rewrite.prepare(t, planner); // bound to version 3
    }
    try (Dataset deleter = t.open()) {
      deleter.delete(and(ge("id", 10L), lt("id", 20L)));
      deleter.delete(in("id", 45L, 75L)); // v5: rows of every planned fragment deleted
    }
    List<Long> expected = new ArrayList<>(range(0, 90));
    expected.removeIf(id -> (id >= 10 && id < 20) || id == 45 || id == 75);
    try (Dataset fresh = restarted(t)) {
      boolean rejected = publish(planned, fresh);
      if (rejected) {
        assertThat(fresh.latestVersion()).as("a rejected rewrite commits nothing").isEqualTo(5);
      }
    }
    assertThat(sortedLatestIds(t)).as("deleted rows stay deleted, no row doubled").isEqualTo(expected);
    // Planned again at the latest version, the rewrite commits and keeps the deletions.
    try (Dataset latest = restarted(t)) {
      rewrite.prepare(t, latest).from(latest);
      assertThat(latest.manifest().fragments().stream().allMatch(f -> f.deletionFile().isEmpty()))
          .as("the deletions were materialized").isTrue();
    }
    assertThat(sorted(t.validateAndScanLatest())).isEqualTo(expected);
  }

  /** Runs a prepared rewrite; true if it was rejected with a typed error (nothing committed). */
  private static boolean publish(Rewrite.Publish planned, Dataset committer) {
    try {
      planned.from(committer);
      return false;
    } catch (QuiverException typed) {
      return true;
    }
  }

  // ---------------------------------------------------------------- F2

  /** The F2 table: {@code id int64, s utf8, b binary}; a third of the values null, a third empty. */
  public static final Schema NULL_OR_EMPTY = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
      new Field("b", FieldType.nullable(ArrowType.Binary.INSTANCE), null)));

  /** The F2 value of a row: null, empty, or a few bytes naming it. */
  public static byte[] nullOrEmpty(long id, String column) {
    return switch ((int) (id % 3)) {
      case 0 -> null;
      case 1 -> new byte[0];
      default -> (column + id).getBytes(StandardCharsets.UTF_8);
    };
  }

  /** Rows {@code [from, from + rows)} of the F2 table. */
  public static VectorSchemaRoot nullOrEmptyBatch(ScenarioTable t, long from, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(NULL_OR_EMPTY, t.allocator());
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector s = (VarCharVector) root.getVector("s");
    VarBinaryVector b = (VarBinaryVector) root.getVector("b");
    for (int i = 0; i < rows; i++) {
      long v = from + i;
      id.setSafe(i, v);
      byte[] sv = nullOrEmpty(v, "s");
      byte[] bv = nullOrEmpty(v + 1, "b"); // b's pattern is shifted, so a row mixes null and empty
      if (sv == null) {
        s.setNull(i);
      } else {
        s.setSafe(i, sv);
      }
      if (bv == null) {
        b.setNull(i);
      } else {
        b.setSafe(i, bv);
      }
    }
    root.setRowCount(rows);
    return root;
  }

  /** F2: compaction of utf8 and binary columns holding nulls and empty values keeps null and empty apart. */
  public static void f2_compactionKeepsNullAndEmptyStringsAndBinariesApart(ScenarioTable t) {
    f2(t, COMPACTION);
  }

  public static void f2(ScenarioTable t, Rewrite rewrite) {
    Dataset ds;
    try (VectorSchemaRoot b = nullOrEmptyBatch(t, 0, 20)) {
      ds = Dataset.create(t.uri(), NULL_OR_EMPTY, List.of(b), t.options());
    }
    try (ds) {
      for (long from = 20; from < 80; from += 20) {
        try (VectorSchemaRoot b = nullOrEmptyBatch(t, from, 20)) {
          ds.append(List.of(b));
        }
      }
      ds.delete(in("id", 4L, 25L)); // a fragment with deletions, so the rewrite also filters rows
      List<Long> expected = new ArrayList<>(range(0, 80));
      expected.removeIf(id -> id == 4 || id == 25);
      assertThat(checkNullOrEmpty(ds)).as("before the rewrite").isEqualTo(expected);
      rewrite.prepare(t, ds).from(ds);
      try (Dataset latest = restarted(t)) {
        assertThat(latest.version()).as("the rewrite committed").isEqualTo(6);
        ValidationReport report = latest.validate();
        assertThat(report.isValid()).as(() -> "validate() after the rewrite: " + report).isTrue();
        assertThat(checkNullOrEmpty(latest)).as("after the rewrite").isEqualTo(expected);
        // A filter on each kind of value agrees with the values.
        assertThat(countWhere(latest, Predicate.isNull("s"))).isEqualTo(expected.stream().filter(id -> id % 3 == 0).count());
        assertThat(countWhere(latest, eq("s", ""))).isEqualTo(expected.stream().filter(id -> id % 3 == 1).count());
      }
    }
  }

  /** Scans the F2 table, checking every cell against its id (null stays null, empty stays empty); the sorted ids. */
  private static List<Long> checkNullOrEmpty(Dataset ds) {
    List<Long> ids = new ArrayList<>();
    try (ArrowReader r = ds.newScan().open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector s = (VarCharVector) root.getVector("s");
        VarBinaryVector b = (VarBinaryVector) root.getVector("b");
        for (int i = 0; i < root.getRowCount(); i++) {
          long v = id.get(i);
          ids.add(v);
          assertThat(s.isNull(i) ? null : s.get(i)).as("s of row %d", v).isEqualTo(nullOrEmpty(v, "s"));
          assertThat(b.isNull(i) ? null : b.get(i)).as("b of row %d", v).isEqualTo(nullOrEmpty(v + 1, "b"));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return sorted(ids);
  }

  private static long countWhere(Dataset ds, Predicate p) {
    long n = 0;
    try (ArrowReader r = ds.newScan().columns("id").filter(p).open()) {
      while (r.loadNextBatch()) {
        n += r.getVectorSchemaRoot().getRowCount();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return n;
  }

  // ---------------------------------------------------------------- F3

  /** F3: two writers merge-insert the same new keys, the second computed before the first commits. */
  public static void f3_concurrentMergeInsertsOfTheSameNewKeyNeverDuplicateIt(ScenarioTable t) {
    f3(t, MERGE_INSERT);
  }

  public static void f3(ScenarioTable t, Upsert upsert) {
    t.create(0, 10).close();
    try (Dataset a = t.open(); Dataset b = t.open()) {
      // b reads, writes and is about to claim version 2 when a's upsert of overlapping new keys commits it.
      interleaveAtClaim(t, 2, () -> upsert.upsert(t, a, 100, 3));
      upsert.upsert(t, b, 101, 3);
      assertThat(t.faults().pendingFaults()).as("a's upsert ran inside b's claim").isZero();
      // Again for one single new key, the other way round.
      long next = b.latestVersion() + 1;
      try (Dataset c = restarted(t); Dataset d = restarted(t)) {
        interleaveAtClaim(t, next, () -> upsert.upsert(t, d, 200, 1));
        upsert.upsert(t, c, 200, 1);
      }
    } finally {
      t.faults().schedule((i, op, key) -> null, () -> { });
    }
    List<Long> expected = new ArrayList<>(range(0, 10));
    expected.addAll(range(100, 104));
    expected.add(200L);
    assertThat(sorted(t.validateAndScanLatest())).as("every key once").isEqualTo(expected);
  }

  /** Runs {@code work} (another handle's change) on the calling thread just before the claim of {@code version}. */
  private static void interleaveAtClaim(ScenarioTable t, long version, Runnable work) {
    t.faults().schedule((i, op, key) -> null, work);
    t.faults().armOnce(Op.PUT_IF_ABSENT, ObjectStoreCommitStore.manifestKey(version), Fault.INTERLEAVE);
  }

  // ---------------------------------------------------------------- F4

  /** F4: an append whose input was half consumed when it failed never commits a fragment with fewer rows. */
  public static void f4_aRetryNeverCommitsTheRestOfAHalfConsumedInput(ScenarioTable t) {
    f4(t, APPEND);
  }

  public static void f4(ScenarioTable t, Appender appender) {
    t.create(0, 10).close();
    try (Dataset ds = t.open()) {
      // 1. The second of three data files fails to publish, after the input was read up to it.
      int[] dataFiles = {0};
      t.faults().arm(Op.OPEN_WRITER, k -> k.startsWith("data/") && ++dataFiles[0] == 2, Fault.FAIL_BEFORE, 1);
      long before = ds.latestVersion();
      try (OneShot input = new OneShot(t, 100, 120)) {
        try {
          appender.append(ds, input);
        } catch (QuiverException typed) {
          assertThat(ds.latestVersion()).as("a failed append commits nothing").isEqualTo(before);
        }
      }
      t.faults().disarmAll();
      try (Dataset latest = restarted(t)) {
        assertThat(latest.countRows()).as("all 120 rows or none").isIn(10L, 130L);
      }
      // 2. The claim fails transiently: the commit loop retries the claim, never the input.
      t.faults().arm(Op.PUT_IF_ABSENT, k -> k.startsWith(ObjectStoreCommitStore.VERSIONS_PREFIX), Fault.FAIL_BEFORE, 1);
      try (Dataset fresh = restarted(t); OneShot input = new OneShot(t, 300, 120)) {
        appender.append(fresh, input);
      }
      t.faults().disarmAll();
      // 3. A merge-insert that loses its claim re-runs on the latest version from the source it holds.
      try (Dataset merger = restarted(t); Dataset other = restarted(t);
          ArrowReader source = reader(t, 500, 40)) {
        // The concurrent append inserts one of the merge's new keys (539): the merge must re-run.
        interleaveAtClaim(t, merger.latestVersion() + 1, () -> t.append(other, 539, 2));
        MergeInsertResult r = merger.mergeInsert("id").whenNotMatchedInsertAll().execute(source);
        assertThat(r.attempts()).as("the first attempt lost its claim to a conflicting insert").isEqualTo(2);
        assertThat(r.rowsInserted()).as("every source row but the one inserted meanwhile").isEqualTo(39);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } finally {
        t.faults().schedule((i, op, key) -> null, () -> { });
      }
    }
    List<Long> ids = sorted(t.validateAndScanLatest());
    List<Long> expected = new ArrayList<>(range(0, 10));
    if (ids.contains(100L)) {
      expected.addAll(range(100, 220));
    }
    expected.addAll(range(300, 420));
    expected.addAll(range(500, 541));
    assertThat(ids).as("every input row exactly once, or the failed input not at all").isEqualTo(sorted(expected));
  }

  /** Input that can be read once, as an ArrowReader's batches can: every iterator() is the same iterator. */
  public static final class OneShot implements Iterable<VectorSchemaRoot>, AutoCloseable {
    private final List<VectorSchemaRoot> made = new ArrayList<>();
    private final Iterator<VectorSchemaRoot> iterator;

    public OneShot(ScenarioTable t, long from, int rows) {
      iterator = new Iterator<>() {
        long next = from;

        @Override
        public boolean hasNext() {
          return next < from + rows;
        }

        @Override
        public VectorSchemaRoot next() {
          int n = (int) Math.min(16, from + rows - next);
          VectorSchemaRoot b = SampleTable.batch(t.allocator(), next, n);
          made.add(b);
          next += n;
          return b;
        }
      };
    }

    @Override
    public Iterator<VectorSchemaRoot> iterator() {
      return iterator;
    }

    @Override
    public void close() {
      made.forEach(VectorSchemaRoot::close);
    }
  }

  // ---------------------------------------------------------------- F5

  /**
   * F5: cleanup keeps every file of a tagged version and of the latest version, also when the cleaner's
   * listing lags behind the newest version (a stale "latest") and that version's files are older than the
   * safety window (written by workers long before the commit).
   */
  public static void f5_cleanupKeepsTaggedVersionsAndNeverRootsAtAStaleLatest(ScenarioTable t) {
    f5(t, CLEANUP);
  }

  public static void f5(ScenarioTable t, Cleanup cleanup) {
    try (Dataset ds = t.create(0, 20)) {
      t.append(ds, 20, 10);
      ds.tags().create("release", 2);
      try (VectorSchemaRoot b = SampleTable.batch(t.allocator(), 100, 10)) {
        ds.overwrite(SampleTable.SCHEMA, List.of(b)); // v3: nothing of v1 or v2 is referenced by the latest
      }
      ds.delete(eq("id", 105L)); // v4
    }
    WriteResult late;
    try (DistributedWriter w = DistributedWriter.open(t.uri(), t.options(), 4);
        VectorSchemaRoot b = SampleTable.batch(t.allocator(), 200, 10)) {
      late = w.write(List.of(b)); // the workers' files, two hours before their commit
    }
    t.clock().advance(Duration.ofHours(2));
    try (Dataset ds = t.open()) {
      assertThat(ds.distributed().commit(List.of(late), WriteMode.APPEND, t.options().commitOptions())).isEqualTo(5);
    }
    StoreViews.LaggingListing lagging = new StoreViews.LaggingListing(t.faults());
    try (Dataset cleaner = openThrough(t, lagging)) {
      lagging.hide(1); // from here on the cleaner's listing does not show version 5
      cleanup.run(cleaner, CleanupOptions.builder().olderThan(Duration.ZERO).safetyWindow(Duration.ofHours(1)).build());
    } finally {
      lagging.hide(0);
    }
    try (Dataset latest = restarted(t)) {
      assertThat(latest.version()).isEqualTo(5);
      assertThat(latest.versions().stream().map(VersionInfo::version).toList())
          .as("the latest and the tagged version are kept").contains(5L, 2L);
      try (Dataset release = latest.checkout("release")) {
        ValidationReport report = release.validate();
        assertThat(report.isValid()).as(() -> "validate() of the tagged version: " + report).isTrue();
        assertThat(sorted(scanIds(release.newScan().open()))).isEqualTo(range(0, 30));
      }
    }
    List<Long> expected = new ArrayList<>(range(100, 110));
    expected.remove(105L);
    expected.addAll(range(200, 210));
    assertThat(sorted(t.validateAndScanLatest())).isEqualTo(expected);
  }

  // ---------------------------------------------------------------- F6

  /** F6: a failed compaction and a failed overwrite delete only the files they wrote. */
  public static void f6_anAbortedWriteDeletesOnlyTheFilesItWrote(ScenarioTable t) {
    f6(t, NOTHING);
  }

  public static void f6(ScenarioTable t, AfterFailure afterFailure) {
    try (Dataset ds = t.create(0, 30)) {
      t.append(ds, 30, 30); // v2
    }
    // Another writer's files, not committed yet.
    WriteResult pending;
    try (DistributedWriter w = DistributedWriter.open(t.uri(), t.options(), 2);
        VectorSchemaRoot b = SampleTable.batch(t.allocator(), 500, 5)) {
      pending = w.write(List.of(b));
    }
    Set<String> dataBefore = dataKeys(t);
    assertThat(dataBefore).containsAll(pending.files());
    try (Dataset compactor = t.open(); Dataset deleter = t.open()) {
      // A delete lands inside the compaction's claim: the compaction fails and deletes what it wrote.
      interleaveAtClaim(t, 3, () -> deleter.delete(eq("id", 3L)));
      assertThatExceptionOfType(QuiverException.class).isThrownBy(() -> compactor.compact(CompactionOptions.defaults()));
      t.faults().schedule((i, op, key) -> null, () -> { });
      afterFailure.cleanUp(t, compactor);
      assertThat(dataKeys(t)).as("the compacted fragments' files and the other writer's are all there")
          .isEqualTo(dataBefore);
    }
    try (Dataset stale = t.open(); Dataset appender = t.open()) {
      t.append(appender, 700, 3); // v4: the stale overwrite must not discard it
      Set<String> beforeOverwrite = dataKeys(t);
      try (VectorSchemaRoot b = SampleTable.batch(t.allocator(), 900, 5)) {
        // The stale handle is at version 3; its overwrite sees version 4 and fails.
        assertThatExceptionOfType(QuiverException.class).isThrownBy(() -> stale.overwrite(SampleTable.SCHEMA, List.of(b)));
      }
      afterFailure.cleanUp(t, stale);
      assertThat(dataKeys(t)).as("the failed overwrite removed only its own file").isEqualTo(beforeOverwrite);
    }
    try (Dataset ds = t.open()) {
      ds.distributed().commit(List.of(pending), WriteMode.APPEND, t.options().commitOptions());
    }
    List<Long> expected = new ArrayList<>(range(0, 60));
    expected.remove(3L);
    expected.addAll(range(500, 505));
    expected.addAll(range(700, 703));
    assertThat(sorted(t.validateAndScanLatest())).isEqualTo(sorted(expected));
  }

  private static Set<String> dataKeys(ScenarioTable t) {
    return t.store().listAll("data/").stream().map(ObjectInfo::key).collect(Collectors.toCollection(TreeSet::new));
  }

  // ---------------------------------------------------------------- F7

  /** F7: a rewrite of a table with deleted and updated rows keeps each live row exactly once. */
  public static void f7_aRewriteKeepsDeletionIdentityRowsNeitherReappearNorDouble(ScenarioTable t) {
    f7(t, COMPACTION);
  }

  public static void f7(ScenarioTable t, Rewrite rewrite) {
    long addressOf20;
    try (Dataset ds = t.create(0, 30)) {
      t.append(ds, 30, 30); // v2
      ds.delete(and(ge("id", 5L), lt("id", 9L))); // v3
      ds.update(eq("id", 33L), Map.of("name", SampleTable.expectedName(33))); // v4: an overlay on fragment 1
      ds.delete(eq("id", 40L)); // v5
      addressOf20 = addresses(ds, eq("id", 20L))[0];
    }
    List<Long> expected = new ArrayList<>(range(0, 60));
    expected.removeIf(id -> (id >= 5 && id < 9) || id == 40);
    try (Dataset stale = t.open(); Dataset ds = t.open()) {
      try {
        rewrite.prepare(t, ds).from(ds);
      } catch (QuiverException crashed) {
        // A rewrite that failed part-way must have left the table as it was.
      }
      assertThat(sortedLatestIds(t)).as("after the rewrite: each live row once").isEqualTo(expected);
      // A delete by an address of the version before the rewrite must not hit another row.
      try {
        stale.delete(new long[] {addressOf20});
        expected.remove(20L);
      } catch (QuiverException typed) {
        // refused: the address no longer names the row
      }
      assertThat(sortedLatestIds(t)).as("a stale delete by address removes its own row or nothing").isEqualTo(expected);
    }
    // A second round: a delete in the rewritten fragments, then the rewrite again.
    try (Dataset ds = restarted(t)) {
      ds.delete(eq("id", 50L));
      expected.remove(50L);
      rewrite.prepare(t, ds).from(ds);
    }
    assertThat(sorted(t.validateAndScanLatest())).isEqualTo(expected);
  }

  // ---------------------------------------------------------------- F8

  /**
   * F8: deletions committed in the transaction that adds the rows replacing them. Quiver's API cannot target a
   * row added by the same transaction (a row delta deletes by addresses of its read version, a merge-insert's
   * delete-by-source sees only target rows), so this checks the nearest: one transaction that deletes rows and
   * adds their new versions (row delta), and one that updates, inserts and deletes (merge-insert).
   */
  public static void f8_deletesCommittedWithTheRowsTheyReplaceApplyToTheOldRowsOnly(ScenarioTable t) {
    f8(t, ROW_DELTA);
  }

  public static void f8(ScenarioTable t, Replace replace) {
    try (Dataset ds = t.create(0, 40)) {
      t.append(ds, 40, 20); // v2
      replace.replace(t, ds, 30, 15); // spans both fragments
      assertThat(ds.countRows()).as("each replaced row once").isEqualTo(60);
      assertThat(sorted(scanIds(ds.newScan().open()))).isEqualTo(range(0, 60));
    }
    try (Dataset ds = restarted(t); ArrowReader source = reader(t, List.of(new long[] {0, 5}, new long[] {60, 5}))) {
      long version = ds.version();
      MergeInsertResult r = ds.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll()
          .whenNotMatchedBySourceDelete(lt("target.id", 10L)).execute(source);
      assertThat(r).isEqualTo(new MergeInsertResult(version + 1, 5, 5, 5, 1));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Long> expected = new ArrayList<>(range(0, 5));
    expected.addAll(range(10, 65));
    assertThat(sorted(t.validateAndScanLatest())).isEqualTo(expected);
  }

  // ---------------------------------------------------------------- F9

  /**
   * F9: cleanup keeps the version files of kept versions, and a listing that lags behind the newest version
   * makes a reader open an older, complete version and a committer land after the newest: never a lost commit.
   */
  public static void f9_laggingListingsAndMetadataCleanupNeverLoseAVersion(ScenarioTable t) {
    try (Dataset ds = t.create(0, 10)) {
      ds.tags().create("first", 1);
      for (int i = 0; i < 5; i++) {
        t.append(ds, 10 + i, 1); // v2..v6
      }
      t.clock().advance(Duration.ofHours(2));
      ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).build());
      assertThat(ds.versions().stream().map(VersionInfo::version).toList()).isEqualTo(List.of(6L, 1L));
      try (Dataset opened = restarted(t); Dataset first = opened.checkout(1)) {
        assertThat(first.validate().isValid()).isTrue();
        assertThat(sorted(scanIds(first.newScan().open()))).isEqualTo(range(0, 10));
      }
      t.append(ds, 100, 3); // v7
    }
    StoreViews.LaggingListing lagging = new StoreViews.LaggingListing(t.faults());
    lagging.hide(1);
    try (Dataset reader = openThrough(t, lagging)) {
      // An older version, but a whole one: exactly its rows.
      assertThat(reader.version()).isBetween(6L, 7L);
      List<Long> seen = sorted(scanIds(reader.newScan().open()));
      List<Long> v6 = new ArrayList<>(range(0, 15));
      List<Long> v7 = new ArrayList<>(v6);
      v7.addAll(range(100, 103));
      assertThat(seen).isEqualTo(reader.version() == 6 ? v6 : v7);
      // Its commit lands after version 7, which it could not list: version 7's rows stay.
      long committed = t.append(reader, 200, 2);
      assertThat(committed).isEqualTo(8);
    } finally {
      lagging.hide(0);
    }
    List<Long> expected = new ArrayList<>(range(0, 15));
    expected.addAll(range(100, 103));
    expected.addAll(range(200, 202));
    try (Dataset latest = restarted(t)) {
      assertThat(latest.version()).isEqualTo(8);
      assertThat(latest.versions().stream().map(VersionInfo::version).toList()).isEqualTo(List.of(8L, 7L, 6L, 1L));
    }
    assertThat(sorted(t.validateAndScanLatest())).isEqualTo(expected);
  }

  // ---------------------------------------------------------------- F10

  /** F10: a writer or reader whose manifest or data reads come back truncated fails typed and commits nothing. */
  public static void f10_truncatedManifestOrDataReadsFailTypedAndCommitNothing(ScenarioTable t) {
    f10(t, StoreViews.TruncatingReads::new);
  }

  /** F10 with the truncating view {@code views} makes over the scenario's store. */
  public static void f10(ScenarioTable t, java.util.function.Function<ObjectStore, StoreViews.TruncatingReads> views) {
    t.create(0, 40).close();
    StoreViews.TruncatingReads view = views.apply(t.faults());
    try (Dataset writer = openThrough(t, view); Dataset other = t.open()) {
      t.append(other, 40, 40); // v2, which the writer reads when it commits
      view.truncate(k -> k.startsWith(ObjectStoreCommitStore.VERSIONS_PREFIX) || k.startsWith("_transactions/"));
      try (VectorSchemaRoot b = SampleTable.batch(t.allocator(), 500, 5)) {
        assertThatExceptionOfType(QuiverException.class).isThrownBy(() -> writer.append(List.of(b)));
      }
      assertThatExceptionOfType(QuiverException.class).isThrownBy(() -> openThrough(t, view).close());
      assertThat(other.latestVersion()).as("nothing committed").isEqualTo(2);
    }
    StoreViews.TruncatingReads dataView = views.apply(t.faults());
    try (Dataset compactor = openThrough(t, dataView)) {
      dataView.truncate(k -> k.startsWith("data/"));
      assertThatExceptionOfType(QuiverException.class).isThrownBy(() -> compactor.compact(CompactionOptions.defaults()));
      assertThatExceptionOfType(QuiverException.class).isThrownBy(() -> scanIds(compactor.newScan().open()));
      assertThat(compactor.latestVersion()).as("nothing committed").isEqualTo(2);
    }
    assertThat(sorted(t.validateAndScanLatest())).isEqualTo(range(0, 80));
    partialManifestReads(t, 2, new ArrayList<>(range(0, 80)), (what, commit) -> commit.run());
  }

  /** The partial manifest reads of F10, named as {@link #partialManifestReadsOfF10} names them to its reader. */
  public static final List<String> PARTIAL_READS = List.of("a root without its last inline fragment",
      "a root without its last segment", "a segment without its last fragment",
      "a single-file version without its last fragment");

  /**
   * F10's partial reads on their own, on a new table of rows {@code [0, 80)} in two versions (see {@link
   * #partialManifestReads}), each commit on a partial read run by {@code reader} with the name of what was cut (one
   * of {@link #PARTIAL_READS}): a broken reader is the failing variant.
   */
  public static void partialManifestReadsOfF10(ScenarioTable t, java.util.function.BiConsumer<String, Runnable> reader) {
    t.create(0, 40).close();
    try (Dataset ds = t.open()) {
      t.append(ds, 40, 40);
    }
    partialManifestReads(t, 2, new ArrayList<>(range(0, 80)), reader);
  }

  /**
   * F10's reads that parse but are short, from a table at {@code version} holding {@code expected}: a root that
   * lost its last inline fragment, a root that lost its last segment, a segment that lost its last fragment, a
   * segment file that is gone, and a single-file version file that lost its last fragment. Each is read by a
   * writer that commits on top of it; each commit fails typed, and every row of every acknowledged commit is
   * still there. A reader that trusted any well-formed payload would publish the short state as the next version.
   */
  private static void partialManifestReads(ScenarioTable t, long version, List<Long> expected,
      java.util.function.BiConsumer<String, Runnable> reader) {
    // 1. The root of the version another writer commits under the writer's feet loses that writer's fragment.
    long v = version;
    StoreViews.PartialManifests view = new StoreViews.PartialManifests(t.faults());
    try (Dataset writer = openThrough(t, view); Dataset other = t.open()) {
      v = t.append(other, 300, 7);
      expected.addAll(range(300, 307));
      view.drop(StoreViews.PartialManifests.Entry.FRAGMENT, rootOf(v));
      v = committedOnAPartialRead(t, view, v, expected, PARTIAL_READS.get(0), reader,
          () -> t.append(writer, 900, 3));
    }
    // 2. and 3. Segments: fragments move out of the root two at a time.
    try (Dataset ds = t.open()) {
      ds.updateConfig(Map.of("manifest.segment.merge-factor", "2"), Set.of());
      for (int i = 0; i < 4; i++) {
        t.append(ds, 310 + 10 * i, 5);
        expected.addAll(range(310 + 10 * i, 315 + 10 * i));
      }
      v = ds.latestVersion();
    }
    view = new StoreViews.PartialManifests(t.faults());
    try (Dataset writer = openThrough(t, view); Dataset other = t.open()) {
      v = t.append(other, 400, 5);
      expected.addAll(range(400, 405));
      view.drop(StoreViews.PartialManifests.Entry.SEGMENT, rootOf(v));
      v = committedOnAPartialRead(t, view, v, expected, PARTIAL_READS.get(1), reader,
          () -> t.append(writer, 910, 3));
    }
    view = new StoreViews.PartialManifests(t.faults());
    view.drop(StoreViews.PartialManifests.Entry.FRAGMENT, k -> k.startsWith(Segment.PREFIX)
        && k.endsWith(".segment"));
    try (Dataset writer = openThrough(t, view)) {
      // Row 0 is in the oldest fragment, which is the first of a segment of two: the delete rewrites that segment.
      v = committedOnAPartialRead(t, view, v, expected, PARTIAL_READS.get(2), reader,
          () -> writer.delete(eq("id", 0L)));
    }
    StoreViews.TruncatingReads gone = new StoreViews.TruncatingReads(t.faults()) {
      @Override
      protected byte[] cut(String key, byte[] whole) {
        throw new ObjectNotFoundException(key);
      }
    }.truncate(k -> k.startsWith(Segment.PREFIX) && k.endsWith(".segment"));
    try (Dataset writer = openThrough(t, gone)) {
      long before = v;
      assertThatExceptionOfType(CorruptFileException.class)
          .isThrownBy(() -> writer.delete(eq("id", 0L)))
          .withMessageContaining("is missing");
      assertThat(restartedVersion(t)).as("nothing committed on a missing segment").isEqualTo(before);
    }
    // 4. A single-file version file loses its last fragment.
    try (Dataset ds = t.open()) {
      ds.updateConfig(Map.of("manifest.layout", "single"), Set.of());
    }
    view = new StoreViews.PartialManifests(t.faults());
    try (Dataset writer = openThrough(t, view); Dataset other = t.open()) {
      v = t.append(other, 500, 5);
      expected.addAll(range(500, 505));
      long single = v;
      assertThat(t.store().listAll(ROOTS_PREFIX).stream().map(ObjectInfo::key)
          .noneMatch(k -> k.startsWith(ROOTS_PREFIX + single + "-")))
          .as("version " + single + " is a single file").isTrue();
      view.drop(StoreViews.PartialManifests.Entry.FRAGMENT, k -> k.equals(ObjectStoreCommitStore.manifestKey(single)));
      committedOnAPartialRead(t, view, v, expected, PARTIAL_READS.get(3), reader,
          () -> t.append(writer, 920, 3));
    }
    assertThat(sorted(t.validateAndScanLatest())).isEqualTo(sorted(expected));
  }

  /** The root files of {@code version} (one per transaction that tried it; the winner's is the one read). */
  private static java.util.function.Predicate<String> rootOf(long version) {
    return k -> k.startsWith(ROOTS_PREFIX + version + "-");
  }

  /**
   * Runs {@code commit} (through {@code reader}) by a writer that reads through {@code view}, armed to cut a file of the table at {@code
   * version}: the cut file was read, every row of {@code expected} is still in the latest version and the commit
   * failed typed, committing nothing. Returns the latest version.
   */
  private static long committedOnAPartialRead(ScenarioTable t, StoreViews.PartialManifests view, long version,
      List<Long> expected, String what, java.util.function.BiConsumer<String, Runnable> reader, Runnable commit) {
    Throwable failure = org.assertj.core.api.Assertions.catchThrowable(() -> reader.accept(what, commit));
    view.truncate(k -> false);
    assertThat(view.cutKeys()).as("the writer read " + what).isNotEmpty();
    try (Dataset latest = restarted(t)) {
      assertThat(sorted(scanIds(latest.newScan().open())))
          .as("every row of every acknowledged commit is still there after a writer read " + what)
          .isEqualTo(sorted(expected));
      assertThat(latest.version()).as("nothing committed on " + what).isEqualTo(version);
    }
    assertThat(failure).as("a commit on " + what + " fails typed")
        .isInstanceOf(CorruptFileException.class);
    return version;
  }

  private static long restartedVersion(ScenarioTable t) {
    try (Dataset latest = restarted(t)) {
      return latest.version();
    }
  }

  // ---------------------------------------------------------------- F11

  /** F11 on a store with no parted conditional put: version files well above a single request's usual size. */
  public static void f11_largeVersionFilesKeepTheirClaimConditional(ScenarioTable t) {
    f11_largeVersionFilesKeepTheirClaimConditional(t, 0);
  }

  /**
   * F11: two writers race for a version with version files larger than {@code threshold}, the size above
   * which the store sends an object in parts: exactly one claims it, the other rebases after it.
   */
  public static void f11_largeVersionFilesKeepTheirClaimConditional(ScenarioTable t, int threshold) {
    int size = Math.max(2 * threshold, 96 * 1024);
    String bigA = "a".repeat(size);
    String bigB = "b".repeat(size);
    t.create(0, 10).close();
    try (Dataset a = t.open(); Dataset b = t.open()) {
      interleaveAtClaim(t, 2, () -> a.updateConfig(Map.of("f11.a", bigA), Set.of()));
      assertThat(b.updateConfig(Map.of("f11.b", bigB), Set.of())).isEqualTo(3);
      assertThat(t.faults().pendingFaults()).as("a's commit ran inside b's claim").isZero();
      interleaveAtClaim(t, 4, () -> t.append(a, 100, 5));
      assertThat(t.append(b, 200, 5)).isEqualTo(5);
    } finally {
      t.faults().schedule((i, op, key) -> null, () -> { });
    }
    assertThat(t.store().head(ObjectStoreCommitStore.manifestKey(2)).orElseThrow().size())
        .as("version 2's file is above the threshold").isGreaterThan(Math.max(threshold, size));
    try (Dataset latest = restarted(t); Dataset v2 = latest.checkout(2); Dataset v3 = latest.checkout(3)) {
      assertThat(latest.versions().stream().map(VersionInfo::version).toList()).isEqualTo(List.of(5L, 4L, 3L, 2L, 1L));
      assertThat(v2.config()).as("version 2 is the winner's alone").containsEntry("f11.a", bigA).doesNotContainKey("f11.b");
      assertThat(v3.config()).containsEntry("f11.a", bigA).containsEntry("f11.b", bigB);
      assertThat(latest.config()).containsEntry("f11.a", bigA).containsEntry("f11.b", bigB);
    }
    List<Long> expected = new ArrayList<>(range(0, 10));
    expected.addAll(range(100, 105));
    expected.addAll(range(200, 205));
    assertThat(sorted(t.validateAndScanLatest())).isEqualTo(expected);
  }

  // ---------------------------------------------------------------- F12

  /** F12: an ambiguous answer to a version claim is settled by reading the version back, with and without the write. */
  public static void f12_anAmbiguousClaimIsSettledByReadBackNeverAssumed(ScenarioTable t) {
    t.create(0, 10).close();
    StoreViews.AmbiguousClaims view = new StoreViews.AmbiguousClaims(t.faults());
    try (Dataset writer = openThrough(t, view); Dataset other = t.open()) {
      // 1. The create happened, the answer was lost: our own commit, not a lost one (no second version).
      view.loseNext(true, () -> { });
      assertThat(t.append(writer, 10, 5)).isEqualTo(2);
      // 2. The same while another writer commits right after: still ours, and theirs comes after.
      view.loseNext(true, () -> t.append(other, 100, 2));
      assertThat(t.append(writer, 20, 5)).isEqualTo(3);
      // 3. The create never arrived: not won; claimed again.
      view.loseNext(false, () -> { });
      assertThat(t.append(writer, 30, 5)).isEqualTo(5);
      // 4. The create never arrived and another writer took the version: not ours; the next one.
      view.loseNext(false, () -> t.append(other, 200, 2));
      assertThat(t.append(writer, 40, 5)).isEqualTo(7);
      assertThat(view.pending()).isFalse();
      assertThat(writer.versions().stream().map(VersionInfo::version).toList())
          .isEqualTo(List.of(7L, 6L, 5L, 4L, 3L, 2L, 1L));
    }
    List<Long> expected = new ArrayList<>(range(0, 15));
    expected.addAll(range(20, 25));
    expected.addAll(range(30, 35));
    expected.addAll(range(40, 45));
    expected.addAll(range(100, 102));
    expected.addAll(range(200, 202));
    assertThat(sorted(t.validateAndScanLatest())).as("every commit once").isEqualTo(expected);
  }

  // ---------------------------------------------------------------- F13

  /** F13: a delete by key removes the key from every fragment that holds it, duplicates in one fragment too. */
  public static void f13_deleteByKeyRemovesEveryDuplicateAcrossFragments(ScenarioTable t) {
    f13(t, DELETE_BY_PREDICATE);
  }

  public static void f13(ScenarioTable t, DeleteByKey deleteByKey) {
    try (Dataset ds = t.create(0, 20)) {
      t.append(ds, 7, 1);
      t.append(ds, 7, 1);
      try (VectorSchemaRoot a = SampleTable.batch(t.allocator(), 7, 1);
          VectorSchemaRoot b = SampleTable.batch(t.allocator(), 30, 5);
          VectorSchemaRoot c = SampleTable.batch(t.allocator(), 7, 1)) {
        ds.append(List.of(a, b, c)); // one fragment holding 7 twice
      }
      assertThat(countWhere(ds, eq("id", 7L))).isEqualTo(5);
      deleteByKey.delete(ds, 7);
      try (Dataset latest = restarted(t)) {
        assertThat(countWhere(latest, eq("id", 7L))).as("every row with the key is deleted").isZero();
      }
      deleteByKey.delete(ds, 31);
    }
    List<Long> expected = new ArrayList<>(range(0, 20));
    expected.remove(7L);
    expected.addAll(List.of(30L, 32L, 33L, 34L));
    assertThat(sorted(t.validateAndScanLatest())).isEqualTo(expected);
  }

  // ---------------------------------------------------------------- helpers

  /** A handle as a restarted process opens it: the latest version, nothing cached. */
  public static Dataset restarted(ScenarioTable t) {
    return Dataset.open(t.uri(), t.options().toBuilder().session(new Session(1 << 20)).build());
  }

  /** A handle at the latest version that sees the table through {@code view} (of {@link ScenarioTable#faults()}). */
  public static Dataset openThrough(ScenarioTable t, ObjectStore view) {
    DatasetOptions options = t.options().toBuilder()
        .registry(TestStores.registry("scenario", TestStores.keepOpen(view)))
        .session(new Session(1 << 20))
        .build();
    return Dataset.open(t.uri(), options);
  }

  /** The row addresses of the rows matching {@code p} at {@code ds}'s version. */
  public static long[] addresses(Dataset ds, Predicate p) {
    List<Long> out = new ArrayList<>();
    try (ArrowReader r = ds.newScan().columns("id").filter(p).withRowAddress(true).open()) {
      while (r.loadNextBatch()) {
        UInt8Vector a = (UInt8Vector) r.getVectorSchemaRoot().getVector(ReservedNames.ROW_ADDR);
        for (int i = 0; i < a.getValueCount(); i++) {
          out.add(a.get(i));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  /** The sample rows {@code [from, from + rows)} as an Arrow stream, for a merge-insert source. */
  public static ArrowReader reader(ScenarioTable t, long from, int rows) {
    return reader(t, List.of(new long[] {from, rows}));
  }

  /** The sample rows of each {@code {from, rows}} range, one batch a range, as an Arrow stream. */
  public static ArrowReader reader(ScenarioTable t, List<long[]> ranges) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(SampleTable.SCHEMA, t.allocator());
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
      writer.start();
      for (long[] r : ranges) {
        try (VectorSchemaRoot b = SampleTable.batch(t.allocator(), r[0], (int) r[1])) {
          try (org.apache.arrow.vector.ipc.message.ArrowRecordBatch batch =
              new org.apache.arrow.vector.VectorUnloader(b).getRecordBatch()) {
            new org.apache.arrow.vector.VectorLoader(root).load(batch);
          }
        }
        writer.writeBatch();
      }
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), t.allocator());
  }

  private static List<Long> sortedLatestIds(ScenarioTable t) {
    try (Dataset latest = restarted(t)) {
      return sorted(scanIds(latest.newScan().open()));
    }
  }

  private static List<Long> sorted(List<Long> ids) {
    return ids.stream().sorted().toList();
  }
}
