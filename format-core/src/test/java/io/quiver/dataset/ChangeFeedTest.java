package io.quiver.dataset;

import static io.quiver.predicate.Predicate.eq;
import static io.quiver.predicate.Predicate.ge;
import static io.quiver.scenario.RowIdScenarios.feed;
import static io.quiver.scenario.RowIdScenarios.replay;
import static io.quiver.scenario.RowIdScenarios.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.scenario.DataLossScenarios;
import io.quiver.scenario.RowIdScenarios.Change;
import io.quiver.scenario.RowIdScenarios;
import io.quiver.scenario.ScenarioTable;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The change feed ({@link Dataset#changes}): for any two versions of a table with row ids, replaying the feed on
 * the first version's rows by {@code _rowid} gives the second's exactly; compactions change nothing; the feed's
 * errors are typed.
 */
class ChangeFeedTest {
  private RootAllocator allocator;
  private ScenarioTable t;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    t = ScenarioTable.on(new MemoryObjectStore("memory://changes"), allocator);
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
  void eachKindOfCommitShowsAsTheChangesAUserExpects() throws IOException {
    try (Dataset ds = create(0, 6)) {
      t.append(ds, 6, 2); // v2: insert ids 6, 7
      ds.delete(eq("id", 1L)); // v3: delete id 1
      ds.update(eq("id", 2L), Map.of("name", "two")); // v4: update id 2
      try (ArrowReader source = DataLossScenarios.reader(t, List.of(new long[] {3, 1}, new long[] {50, 1}))) {
        ds.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(source); // v5
      }
      ds.compact(CompactionOptions.defaults()); // v6: nothing changes
      assertThat(ds.version()).isEqualTo(6);
      List<Change> all = feed(ds.changes(1, 6).columns("id", "name"));
      assertThat(all.stream().map(c -> c.version() + " " + c.type() + " " + c.rowId()).toList()).containsExactly(
          "2 insert 6", "2 insert 7",
          "3 delete 1",
          "4 update_preimage 2", "4 update_postimage 2",
          "5 update_preimage 3", "5 update_postimage 3", "5 insert 8");
      assertThat(all.get(2).values()).isEqualTo("id=1,name=" + SampleTable.expectedName(1));
      assertThat(all.get(3).values()).isEqualTo("id=2,name=" + SampleTable.expectedName(2));
      assertThat(all.get(4).values()).isEqualTo("id=2,name=two");
      assertThat(all.get(7).values()).isEqualTo("id=50,name=" + SampleTable.expectedName(50));
      assertThat(ds.changes(5, 6).changeCounts()).as("a compaction is no change").containsExactly(Map.entry(6L, 0));
      try (Dataset v1 = ds.checkout(1)) {
        assertThat(replay(rows(v1), feed(ds.changes(1, 6)))).isEqualTo(rows(ds));
      }

      assertThat(feed(ds.changes(1, 6).columns("id").filter(ge("id", 6L)))).extracting(Change::rowId)
          .containsExactly(6L, 7L, 8L);
      assertThat(feed(ds.changes(1, 6).limit(3).batchSize(2))).hasSize(3);
      try (ArrowReader r = ds.changes(1, 6).columns("name").open()) {
        assertThat(r.getVectorSchemaRoot().getSchema().getFields().stream().map(Field::getName).toList())
            .containsExactly("name", "_change_type", "_commit_version", "_commit_timestamp", "_rowid");
      }
    }
  }

  @Test
  void aColumnAddedInTheRangeIsNullInTheImagesOfVersionsBeforeIt() {
    try (Dataset ds = create(0, 3)) {
      ds.columns().add(List.of(new Field("score", FieldType.nullable(new ArrowType.Int(32, true)), null))); // v2
      ds.update(eq("id", 0L), Map.of("score", 7)); // v3
      ds.columns().rename("name", "label"); // v4
      ds.delete(eq("id", 1L)); // v5
      List<Change> all = feed(ds.changes(1, 5).columns("id", "label", "score"));
      assertThat(all).extracting(Change::values).containsExactly(
          "id=0,label=" + SampleTable.expectedName(0) + ",score=null",
          "id=0,label=" + SampleTable.expectedName(0) + ",score=7",
          "id=1,label=" + SampleTable.expectedName(1) + ",score=null");
    }
  }

  @Test
  void aFeedOfOneVersionNamedAtALaterVersionHasTheLaterColumns() {
    try (Dataset ds = create(0, 3)) {
      ds.delete(eq("id", 2L)); // v2
      ds.columns().add(List.of(new Field("score", FieldType.nullable(new ArrowType.Int(32, true)), null))); // v3
      ds.columns().rename("name", "label"); // v4
      ds.update(eq("id", 0L), Map.of("score", 7)); // v5
      // v2's changes under v5's columns: the renamed column under its new name, the later one null
      assertThat(feed(ds.changes(1, 2).namedAt(5).columns("id", "label", "score"))).extracting(Change::values)
          .containsExactly("id=2,label=" + SampleTable.expectedName(2) + ",score=null");
      assertThat(feed(ds.changes(4, 5).namedAt(5))).extracting(Change::type)
          .containsExactly("update_preimage", "update_postimage");
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.changes(1, 2).columns("label").open())
          .withMessageContaining("label");
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.changes(1, 2).namedAt(0));
      assertThatExceptionOfType(VersionNotFoundException.class).isThrownBy(() -> ds.changes(1, 2).namedAt(9).open())
          .withMessageContaining("version 9 is gone");
    }
  }

  @Test
  void aRangeWithACleanedUpVersionOrWithoutRowIdsIsATypedError() {
    try (Dataset ds = t.create(0, 4)) {
      t.append(ds, 4, 1); // v2, no row ids
      ds.updateConfig(Map.of("row-ids", "true"), Set.of()); // v3
      t.append(ds, 5, 1); // v4
      t.append(ds, 6, 1); // v5
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.changes(2, 4).open())
          .withMessageContaining("version 2 of").withMessageContaining("has no stable row ids");
      assertThat(feed(ds.changes(3, 5))).extracting(Change::type).containsExactly("insert", "insert");
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.changes(4, 4))
          .withMessageContaining("got from 4 to 4");
      t.store().delete(ObjectStoreCommitStore.manifestKey(4));
      assertThatExceptionOfType(VersionNotFoundException.class).isThrownBy(() -> ds.changes(3, 5).open())
          .withMessageContaining("needs every version in between, but version 4 is gone");
      assertThatExceptionOfType(VersionNotFoundException.class).isThrownBy(() -> ds.changes(3, 9).open())
          .withMessageContaining("versions 4, 6-9 are gone");
    }
  }

  /** H3 with more histories than the conformance suite runs. */
  @ParameterizedTest
  @ValueSource(longs = {11, 12, 13, 14})
  void replayingTheFeedBetweenAnyTwoVersionsGivesTheLaterVersion(long seed) {
    RowIdScenarios.h3(t, seed);
  }
}
