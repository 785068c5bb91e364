package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.predicate.Predicate.eq;
import static io.quiver.predicate.Predicate.lt;
import static io.quiver.scenario.RowIdScenarios.lineage;
import static io.quiver.scenario.RowIdScenarios.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.NotFoundException;
import io.quiver.scenario.DataLossScenarios;
import io.quiver.scenario.RowIdScenarios;
import io.quiver.scenario.ScenarioTable;
import io.quiver.store.MemoryObjectStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Stable row ids (format 1.4, table configuration {@code row-ids}): every row gets an id at insertion that it keeps
 * through deletes of other rows, updates, merge-inserts, compaction, restores and re-opened handles; ids are never
 * reused or duplicated, also by concurrent writers; {@code _row_created_at_version} and {@code
 * _row_last_updated_at_version} say which commit inserted a row and which last changed it.
 */
class RowIdsTest {
  private RootAllocator allocator;
  private ScenarioTable t;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    t = ScenarioTable.on(new MemoryObjectStore("memory://row-ids"), allocator);
  }

  @AfterEach
  void tearDown() {
    t.close();
    allocator.close();
  }

  private Dataset create(long from, int rows) {
    return RowIdScenarios.createWithRowIds(t, from, rows);
  }

  @Test
  void insertedRowsGetConsecutiveIdsThatTheyKeepThroughDeletesUpdatesMergesAndCompaction() {
    RowIdScenarios.h1_rowIdsSurviveEveryKindOfCommit(t);
  }

  @Test
  void concurrentAppendsRebasedOntoEachOtherNeverShareAnId() {
    RowIdScenarios.h2_concurrentWritersNeverShareARowId(t);
  }

  @Test
  void takeByRowIdsFindsTheRowsWhereverCompactionMovedThem() {
    try (Dataset ds = create(0, 20)) {
      t.append(ds, 20, 20);
      ds.delete(lt("id", 5L));
      ds.compact(CompactionOptions.defaults());
      try (VectorSchemaRoot rows = ds.takeByRowIds(new long[] {39, 5, 22}, List.of())) {
        assertThat(SampleTable.checkRows(rows)).containsExactly(39L, 5L, 22L);
      }
      assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> ds.takeByRowIds(new long[] {3}, List.of()))
          .withMessageContaining("row id 3 is not a row id of version 4");
      ds.delete(eq("id", 7L));
      assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> ds.takeByRowIds(new long[] {7}, List.of()))
          .withMessageContaining("row id 7 names a row deleted at version 5");
      assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> ds.takeByRowIds(new long[] {40}, List.of()))
          .withMessageContaining("is not a row id");
    }
  }

  @Test
  void aRowDeltaThatNamesTheRowsItReplacesKeepsTheirIds() {
    try (Dataset ds = create(0, 10)) {
      long v1 = ds.version();
      long[] addressOf7 = DataLossScenarios.addresses(ds, eq("id", 7L));
      WriteResult written;
      try (DistributedWriter w = DistributedWriter.open(t.uri(), t.options(), v1);
          VectorSchemaRoot b = SampleTable.batch(allocator, 7, 1);
          VectorSchemaRoot c = SampleTable.batch(allocator, 50, 1)) {
        written = w.write(List.of(b, c)); // the new version of id 7, and a new row
      }
      InvalidArgumentException notDeleted = org.assertj.core.api.Assertions.catchThrowableOfType(
          InvalidArgumentException.class, () -> ds.distributed().newRowDelta(v1)
              .addRows(written, new long[] {addressOf7[0], -1}).commit(CommitOptions.defaults()));
      assertThat(notDeleted).hasMessageContaining("which the delta does not delete");
      assertThat(ds.latestVersion()).isEqualTo(v1);
      RowDeltaResult r = ds.distributed().newRowDelta(v1).deleteRows(addressOf7)
          .addRows(written, new long[] {addressOf7[0], -1}).commit(CommitOptions.defaults());
      Map<Long, List<Long>> l = lineage(ds);
      assertThat(l.get(7L)).as("the replaced row's id, created at 1").isEqualTo(row(7, 1, r.version()));
      assertThat(l.get(50L)).isEqualTo(row(10, r.version(), r.version()));
      try (VectorSchemaRoot taken = ds.takeByRowIds(new long[] {7}, List.of("id"))) {
        assertThat(((BigIntVector) taken.getVector("id")).get(0)).as("the live version, not the deleted copy")
            .isEqualTo(7L);
      }
      assertThat(RowIdScenarios.feed(ds.changes(v1, r.version()))).extracting(c -> c.type() + " " + c.rowId())
          .containsExactly("update_preimage 7", "update_postimage 7", "insert 10");
      ds.compact(CompactionOptions.defaults());
      assertThat(lineage(ds)).isEqualTo(l);
    }
  }

  @Test
  void turningRowIdsOnGivesEveryRowAnIdAtThatVersionAndTheyCannotBeTurnedOff() {
    try (Dataset ds = t.create(0, 6)) {
      t.append(ds, 6, 4);
      assertThat(ds.manifest().hasRowIds()).isFalse();
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.newScan().withRowLineage(true).open())
          .withMessageContaining("has no stable row ids").withMessageContaining("'row-ids' = 'true'");
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.takeByRowIds(new long[] {0}, List.of())).withMessageContaining("has no stable row ids");
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.updateConfig(Map.of("row-ids", "yes"), Set.of()))
          .withMessageContaining("must be 'true' or 'false', found 'yes'");

      long on = ds.updateConfig(Map.of("row-ids", "true"), Set.of());
      Map<Long, List<Long>> l = lineage(ds);
      assertThat(l).hasSize(10);
      assertThat(l.values().stream().map(x -> x.get(0)).sorted().toList()).isEqualTo(range(0, 10));
      assertThat(l.values()).allSatisfy(x -> assertThat(x.subList(1, 3)).containsExactly(on, on));
      try (Dataset v2 = ds.checkout(2)) {
        assertThat(v2.manifest().hasRowIds()).as("versions before keep their format").isFalse();
      }

      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.updateConfig(Map.of("row-ids", "false"), Set.of()))
          .withMessageContaining("cannot be turned off");
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.updateConfig(Map.of(), Set.of("row-ids")))
          .withMessageContaining("cannot be turned off").withMessageContaining("absent");
      assertThat(ds.latestVersion()).isEqualTo(on);
    }
  }

  @Test
  void aRestoreBringsBackTheRowsWithTheIdsTheyHadAndTheCounterNeverGoesBack() {
    try (Dataset ds = create(0, 5)) {
      t.append(ds, 5, 5); // v2
      Map<Long, List<Long>> atV2 = lineage(ds);
      ds.delete(lt("id", 8L)); // v3
      t.append(ds, 50, 2); // v4: ids 10, 11
      ds.restore(2); // v5
      assertThat(lineage(ds)).isEqualTo(atV2);
      assertThat(ds.manifest().nextRowId()).hasValue(12);
      t.append(ds, 60, 1);
      assertThat(lineage(ds).get(60L).get(0)).as("not 10 again").isEqualTo(12L);
    }
  }

  @Test
  void scanTasksCarryTheLineageColumnsToTheirWorkers() throws IOException {
    try (Dataset ds = create(0, 50)) {
      t.append(ds, 50, 30);
      ds.update(eq("id", 60L), Map.of("name", "u"));
      List<ScanTask> tasks = ds.newScan().columns("id").withRowLineage(true).targetTaskBytes(1).planTasks();
      assertThat(tasks).hasSizeGreaterThan(1);
      Map<Long, List<Long>> fromTasks = new TreeMap<>();
      for (ScanTask task : tasks) {
        ScanTask decoded = ScanTask.decode(task.encode());
        assertThat(decoded.withRowLineage()).isTrue();
        try (Dataset worker = t.open(); ArrowReader r = decoded.open(worker)) {
          while (r.loadNextBatch()) {
            VectorSchemaRoot root = r.getVectorSchemaRoot();
            for (int i = 0; i < root.getRowCount(); i++) {
              fromTasks.put(((BigIntVector) root.getVector("id")).get(i), List.of(
                  ((UInt8Vector) root.getVector("_rowid")).get(i),
                  ((UInt8Vector) root.getVector("_row_created_at_version")).get(i),
                  ((UInt8Vector) root.getVector("_row_last_updated_at_version")).get(i)));
            }
          }
        }
      }
      assertThat(fromTasks).isEqualTo(lineage(ds)).containsEntry(60L, row(60, 2, 3));
    }
  }

  /**
   * A random history of appends, deletes, updates, merge-inserts, compactions, column additions and restores
   * against a model of each live row's lineage: after every step the table's lineage equals the model's, no id is
   * held twice, and every new id is above every id assigned before.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6})
  void aRandomHistoryMatchesTheLineageModel(long seed) throws IOException {
    Random random = new Random(seed);
    try (Dataset ds = create(0, 20)) {
      Map<Long, List<Long>> model = new TreeMap<>();
      for (long i = 0; i < 20; i++) {
        model.put(i, row(i, 1, 1));
      }
      Map<Long, Map<Long, List<Long>>> history = new HashMap<>();
      history.put(1L, new TreeMap<>(model));
      long nextId = 20;
      long nextKey = 1000;
      Set<Long> everAssigned = new HashSet<>(range(0, 20));
      for (int step = 0; step < 14; step++) {
        List<Long> keys = new ArrayList<>(model.keySet());
        int op = random.nextInt(6);
        long v = ds.version() + 1;
        if (op == 0 || keys.size() < 4) {
          int n = 1 + random.nextInt(5);
          t.append(ds, nextKey, n);
          for (int i = 0; i < n; i++) {
            model.put(nextKey + i, row(nextId + i, v, v));
            everAssigned.add(nextId + i);
          }
          nextKey += n;
          nextId += n;
        } else if (op == 1) {
          long key = keys.get(random.nextInt(keys.size()));
          ds.delete(eq("id", key));
          model.remove(key);
        } else if (op == 2) {
          long key = keys.get(random.nextInt(keys.size()));
          ds.update(eq("id", key), Map.of("name", "u" + step));
          List<Long> was = model.get(key);
          model.put(key, row(was.get(0), was.get(1), v));
        } else if (op == 3) {
          long key = keys.get(random.nextInt(keys.size()));
          try (ArrowReader source = DataLossScenarios.reader(t, List.of(new long[] {key, 1},
              new long[] {nextKey, 1}))) {
            ds.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(source);
          }
          List<Long> was = model.get(key);
          model.put(key, row(was.get(0), was.get(1), v));
          model.put(nextKey, row(nextId, v, v));
          everAssigned.add(nextId);
          nextKey++;
          nextId++;
        } else if (op == 4) {
          long before = ds.version();
          if (ds.compact(CompactionOptions.defaults()).fragmentsRemoved() == 0 || ds.version() == before) {
            continue;
          }
        } else {
          long back = 1 + random.nextInt((int) ds.version());
          ds.restore(back);
          model = new TreeMap<>(history.get(back));
        }
        history.put(ds.version(), new TreeMap<>(model));
        Map<Long, List<Long>> actual = lineage(ds);
        assertThat(actual).as("step %d (op %d) at version %d", step, op, ds.version()).isEqualTo(model);
        assertThat(actual.values().stream().map(x -> x.get(0)).distinct().count()).isEqualTo(actual.size());
        assertThat(ds.manifest().nextRowId()).hasValue(nextId);
        assertThat(everAssigned).containsAll(actual.values().stream().map(x -> x.get(0)).toList());
      }
    }
    try (Dataset latest = t.open()) {
      assertThat(latest.validate().isValid()).isTrue();
    }
  }
}
