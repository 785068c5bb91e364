package io.quiver.scenario;

import static io.quiver.predicate.Predicate.eq;
import static io.quiver.predicate.Predicate.ge;
import static io.quiver.predicate.Predicate.lt;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.ChangeScan;
import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.SampleTable;
import io.quiver.predicate.Predicate;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore.Op;
import io.quiver.store.ObjectStoreCommitStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Catalogue section H, history as data: stable row ids and the change feed (docs/format.md section 14) on any
 * store. Each scenario creates its table with {@code row-ids = true}; the helpers read a version's lineage and a
 * feed, and replay a feed, for format-core's own tests too.
 */
public final class RowIdScenarios {
  private RowIdScenarios() {}

  /** Table configuration the scenarios of this thread create their tables with, beside {@code row-ids}. */
  private static final ThreadLocal<Map<String, String>> EXTRA_CONFIG = ThreadLocal.withInitial(Map::of);

  /** Runs {@code scenario} with its tables created with {@code config} too (e.g. a lineage file threshold). */
  public static void withTableConfig(Map<String, String> config, Runnable scenario) {
    EXTRA_CONFIG.set(config);
    try {
      scenario.run();
    } finally {
      EXTRA_CONFIG.remove();
    }
  }

  /** Creates the table with row ids and the sample rows {@code [from, from + rows)} as version 1. */
  public static Dataset createWithRowIds(ScenarioTable t, long from, int rows) {
    Map<String, String> config = new java.util.HashMap<>(EXTRA_CONFIG.get());
    config.put("row-ids", "true");
    try (VectorSchemaRoot b = SampleTable.batch(t.allocator(), from, rows)) {
      return Dataset.create(t.uri(), SampleTable.SCHEMA, List.of(b), t.options(), config);
    }
  }

  /** Each live row's lineage by its sample id: {row id, created at, last updated at}. */
  public static Map<Long, List<Long>> lineage(Dataset ds) {
    Map<Long, List<Long>> out = new TreeMap<>();
    try (ArrowReader r = ds.newScan().columns("id").withRowLineage(true).open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        assertThat(root.getSchema().getFields().stream().map(f -> f.getName()).toList())
            .containsExactly("id", "_rowid", "_row_created_at_version", "_row_last_updated_at_version");
        BigIntVector id = (BigIntVector) root.getVector("id");
        UInt8Vector rowId = (UInt8Vector) root.getVector("_rowid");
        UInt8Vector created = (UInt8Vector) root.getVector("_row_created_at_version");
        UInt8Vector updated = (UInt8Vector) root.getVector("_row_last_updated_at_version");
        for (int i = 0; i < root.getRowCount(); i++) {
          assertThat(out.put(id.get(i), List.of(rowId.get(i), created.get(i), updated.get(i))))
              .as("sample id %d once", id.get(i)).isNull();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** A lineage entry: {row id, created at, last updated at}. */
  public static List<Long> row(long rowId, long created, long updated) {
    return List.of(rowId, created, updated);
  }

  /** A change as the scenarios compare it: version, type, row id, and the row's values rendered. */
  public record Change(long version, String type, long rowId, String values) {}

  /** Every change {@code scan} returns, in order. */
  public static List<Change> feed(ChangeScan scan) {
    List<Change> out = new ArrayList<>();
    try (ArrowReader r = scan.open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        int user = root.getFieldVectors().size() - 4;
        for (int i = 0; i < root.getRowCount(); i++) {
          out.add(new Change((Long) root.getVector(ChangeScan.COMMIT_VERSION).getObject(i),
              root.getVector(ChangeScan.CHANGE_TYPE).getObject(i).toString(),
              (Long) root.getVector("_rowid").getObject(i), render(root, user, i)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static String render(VectorSchemaRoot root, int columns, int row) {
    List<String> cells = new ArrayList<>();
    for (int c = 0; c < columns; c++) {
      FieldVector v = root.getVector(c);
      cells.add(v.getField().getName() + "=" + v.getObject(row));
    }
    return String.join(",", cells);
  }

  /** The rows of {@code ds} by row id, every column rendered as {@link #feed} renders them. */
  public static Map<Long, String> rows(Dataset ds) {
    Map<Long, String> out = new TreeMap<>();
    try (ArrowReader r = ds.newScan().withRowLineage(true).open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        int user = root.getFieldVectors().size() - 3;
        for (int i = 0; i < root.getRowCount(); i++) {
          out.put((Long) root.getVector("_rowid").getObject(i), render(root, user, i));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** {@code start} with {@code feed} applied by row id; each delete's and pre-image's values must match. */
  public static Map<Long, String> replay(Map<Long, String> start, List<Change> feed) {
    Map<Long, String> rows = new TreeMap<>(start);
    for (Change c : feed) {
      switch (c.type()) {
        case ChangeScan.INSERT -> assertThat(rows.put(c.rowId(), c.values())).as("insert of a new id %s", c).isNull();
        case ChangeScan.DELETE, ChangeScan.UPDATE_PREIMAGE ->
            assertThat(rows.remove(c.rowId())).as("the image of %s", c).isEqualTo(c.values());
        case ChangeScan.UPDATE_POSTIMAGE -> assertThat(rows.put(c.rowId(), c.values())).isNull();
        default -> throw new AssertionError("unknown change type " + c.type());
      }
    }
    return rows;
  }

  /** The sample ids of the live rows of {@code ds}, ascending. */
  public static List<Long> ids(Dataset ds) {
    List<Long> out = new ArrayList<>(lineage(ds).keySet());
    out.sort(null);
    return out;
  }

  // ---------------------------------------------------------------- H1

  /**
   * H1: rows keep their ids and creation versions through deletes of other rows, updates, merge-inserts,
   * compaction and a re-open; updates stamp the rows they change; deleted rows' ids are never reused.
   */
  public static void h1_rowIdsSurviveEveryKindOfCommit(ScenarioTable t) {
    try (Dataset ds = createWithRowIds(t, 0, 10)) {
      t.append(ds, 10, 5); // v2: ids 10..14
      Map<Long, List<Long>> expected = new TreeMap<>();
      for (long i = 0; i < 15; i++) {
        expected.put(i, i < 10 ? row(i, 1, 1) : row(i, 2, 2));
      }
      assertThat(lineage(ds)).isEqualTo(expected);
      ds.delete(eq("id", 3L)); // v3
      expected.remove(3L);
      ds.update(Predicate.in("id", List.of(4L, 12L)), Map.of("name", "changed")); // v4
      expected.put(4L, row(4, 1, 4));
      expected.put(12L, row(12, 2, 4));
      try (ArrowReader source = DataLossScenarios.reader(t, List.of(new long[] {8, 4}, new long[] {100, 2}))) {
        ds.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(source); // v5
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      for (long i = 8; i < 12; i++) {
        expected.put(i, row(expected.get(i).get(0), expected.get(i).get(1), 5));
      }
      expected.put(100L, row(15, 5, 5));
      expected.put(101L, row(16, 5, 5));
      assertThat(lineage(ds)).isEqualTo(expected);
      ds.compact(CompactionOptions.defaults()); // v6
      assertThat(ds.manifest().fragments()).hasSize(1);
      assertThat(lineage(ds)).as("compaction keeps every id and version").isEqualTo(expected);
      ds.delete(ge("id", 100L)); // v7
      expected.remove(100L);
      expected.remove(101L);
      t.append(ds, 200, 2); // v8
      expected.put(200L, row(17, 8, 8));
      expected.put(201L, row(18, 8, 8));
      assertThat(lineage(ds)).as("deleted rows' ids are never reused").isEqualTo(expected);
    }
    try (Dataset reopened = DataLossScenarios.restarted(t)) {
      assertThat(reopened.manifest().nextRowId()).hasValue(19);
      assertThat(lineage(reopened)).as("the lineage is in the files, not the handle").hasSize(16)
          .containsEntry(4L, row(4, 1, 4)).containsEntry(200L, row(17, 8, 8));
      try (VectorSchemaRoot taken = reopened.takeByRowIds(new long[] {18, 4}, List.of("id"))) {
        assertThat(((BigIntVector) taken.getVector("id")).get(0)).isEqualTo(201L);
        assertThat(((BigIntVector) taken.getVector("id")).get(1)).isEqualTo(4L);
      }
      assertThat(reopened.validate().isValid()).isTrue();
    }
  }

  // ---------------------------------------------------------------- H2

  /**
   * H2: two writers append from the same version, the second inside the first's claim: the second rebases and
   * its rows get ids after the first's, never the same ones.
   */
  public static void h2_concurrentWritersNeverShareARowId(ScenarioTable t) {
    createWithRowIds(t, 0, 4).close();
    try (Dataset a = t.open(); Dataset b = t.open()) {
      t.faults().schedule((i, op, key) -> null, () -> t.append(a, 100, 3));
      t.faults().armOnce(Op.PUT_IF_ABSENT, ObjectStoreCommitStore.manifestKey(2), Fault.INTERLEAVE);
      assertThat(t.append(b, 200, 3)).isEqualTo(3); // a took version 2 inside b's claim of it
    } finally {
      t.faults().schedule((i, op, key) -> null, () -> { });
    }
    try (Dataset latest = DataLossScenarios.restarted(t)) {
      Map<Long, List<Long>> l = lineage(latest);
      assertThat(l.values().stream().map(x -> x.get(0)).sorted().toList()).isEqualTo(SampleTable.range(0, 10));
      assertThat(l.get(100L)).isEqualTo(row(4, 2, 2));
      assertThat(l.get(200L)).as("rebased: ids after the winner's").isEqualTo(row(7, 3, 3));
      assertThat(latest.manifest().nextRowId()).hasValue(10);
    }
  }

  // ---------------------------------------------------------------- H3

  /**
   * H3: a history of appends, deletes, updates, merge-inserts, compactions and restores; between every two of its
   * versions, replaying the change feed on the first's rows gives the second's, and a compaction is no change.
   */
  public static void h3_theChangeFeedReplaysBetweenEveryTwoVersions(ScenarioTable t) {
    h3(t, 7);
  }

  /** H3 with the history of {@code seed}. */
  public static void h3(ScenarioTable t, long seed) {
    Random random = new Random(seed);
    try (Dataset ds = createWithRowIds(t, 0, 12)) {
      long nextKey = 1000;
      for (int step = 0; step < 10; step++) {
        List<Long> keys = ids(ds);
        int op = random.nextInt(6);
        if (op == 0 || keys.size() < 4) {
          t.append(ds, nextKey, 1 + random.nextInt(4));
          nextKey += 10;
        } else if (op == 1) {
          ds.delete(eq("id", keys.get(random.nextInt(keys.size()))));
        } else if (op == 2) {
          ds.update(lt("id", keys.get(random.nextInt(keys.size()))), Map.of("name", "u" + step));
        } else if (op == 3) {
          try (ArrowReader source = DataLossScenarios.reader(t, List.of(
              new long[] {keys.get(random.nextInt(keys.size())), 1}, new long[] {nextKey, 1}))) {
            ds.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(source);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          nextKey += 10;
        } else if (op == 4) {
          long before = ds.version();
          ds.compact(CompactionOptions.defaults());
          if (ds.version() > before) {
            assertThat(ds.changes(before, ds.version()).changeCounts())
                .as("a compaction is no change").containsExactly(Map.entry(ds.version(), 0));
          }
        } else {
          ds.restore(1 + random.nextInt((int) ds.version()));
        }
      }
      long latest = ds.version();
      Map<Long, Map<Long, String>> rows = new TreeMap<>();
      for (long v = 1; v <= latest; v++) {
        try (Dataset at = ds.checkout(v)) {
          rows.put(v, rows(at));
        }
      }
      for (long a = 1; a < latest; a++) {
        for (long b = a + 1; b <= latest; b++) {
          assertThat(replay(rows.get(a), feed(ds.changes(a, b)))).as("changes(%d, %d)", a, b).isEqualTo(rows.get(b));
        }
      }
    }
  }
}
