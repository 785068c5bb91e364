package io.quiver.flink.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.ScanTask;
import io.quiver.flink.types.ArrowRowDataReader;
import io.quiver.predicate.Predicate;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The enumerator's planning and the reader's split reading, without a cluster. */
class PlannerTest {
  @TempDir
  Path dir;
  private RootAllocator allocator;
  private String uri;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    uri = dir.resolve("table").toString();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private SourceConfig continuous() {
    return QuiverSource.forRowData(uri).continuous(Duration.ofMillis(50)).build().config();
  }

  @Test
  void aVersionRemovedByCleanupBeforeTheSourceReadItIsAClearError() {
    try (Dataset ds = Tables.create(uri, allocator, 0, 10); Planner planner = new Planner(continuous())) {
      assertThat(planner.planAll(1)).hasSize(1);
      planner.resumeAfter(1);
      Tables.append(ds, allocator, 10, 10);
      Tables.append(ds, allocator, 20, 10);
      ds.cleanup(CleanupOptions.builder().before(Instant.now().plusSeconds(60)).safetyWindow(Duration.ZERO).build());
      QuiverSourceException e = assertThatExceptionOfType(QuiverSourceException.class)
          .isThrownBy(planner::discover).actual();
      assertThat(e.version()).isEqualTo(2);
      assertThat(e.operation()).isNull();
      assertThat(e.getMessage()).contains(uri).contains("cannot read version 2: it no longer exists")
          .contains("the latest version is 3").contains("olderThan").contains("version(3)");
    }
  }

  @Test
  void aDiscoveryScheduledAfterTheEnumeratorClosedPlansNothing() {
    try (Dataset ds = Tables.create(uri, allocator, 0, 10)) {
      Planner planner = new Planner(continuous());
      planner.planAll(1);
      planner.resumeAfter(1);
      planner.close(); // Flink closes the enumerator while its worker may still run a scheduled discovery
      Tables.append(ds, allocator, 10, 10);
      Planner.Discovery d = planner.discover();
      assertThat(d.splits()).isEmpty();
      assertThat(d.through()).isEqualTo(1);
      assertThat(planner.planAll(1)).isEmpty();
      planner.close();
    }
  }

  @Test
  void versionsThatAddNoRowsAreSkippedAndOthersFail() {
    try (Dataset ds = Tables.create(uri, allocator, 0, 10);
        Planner planner = new Planner(QuiverSource.forRowData(uri).columns("id", "name")
            .continuous(Duration.ofMillis(50)).build().config())) {
      planner.planAll(1);
      planner.resumeAfter(1);
      ds.updateConfig(Map.of("k", "v"), Set.of());
      long appended = Tables.append(ds, allocator, 10, 5);
      long dropped = ds.columns().drop("score"); // not read by the source
      assertThat(ds.versionInfo(dropped).operation()).isEqualTo("project");
      Planner.Discovery d = planner.discover();
      assertThat(d.through()).isEqualTo(dropped);
      assertThat(d.splits()).hasSize(1);
      assertThat(d.splits().get(0).task().version()).isEqualTo(appended);
      assertThat(d.splits().get(0).task().rowCount()).isEqualTo(5);
      assertThat(planner.discover().splits()).as("nothing new").isEmpty();

      ds.delete(Predicate.eq("id", 3L));
      QuiverSourceException e = assertThatExceptionOfType(QuiverSourceException.class)
          .isThrownBy(planner::discover).actual();
      assertThat(e.operation()).isEqualTo("delete");
      assertThat(e.version()).isEqualTo(ds.version());
      assertThat(e.getMessage()).contains("cannot follow version " + ds.version()).contains("'delete'")
          .contains("through version " + dropped);
    }
  }

  @Test
  void aSplitReadAgainSkipsTheRowsAlreadyEmitted() throws Exception {
    try (Dataset ds = Tables.create(uri, allocator, 0, 95)) {
      SourceConfig config = QuiverSource.forRowData(uri).batchSize(10).build().config();
      ScanTask task = ds.newScan().planTasks().get(0);
      for (long emitted : new long[] {0, 7, 10, 94, 95}) {
        QuiverSplit split = new QuiverSplit(task, 0).withRowsEmitted(emitted);
        QuiverSplit restored = Serializers.SplitSerializer.INSTANCE.deserialize(1,
            Serializers.SplitSerializer.INSTANCE.serialize(split));
        assertThat(restored).isEqualTo(split);
        assertThat(restored.splitId()).isEqualTo("v1-f" + task.fragmentId() + "-r0-95");
        List<Long> ids = new ArrayList<>();
        try (QuiverSourceReader.TaskReader reader = new QuiverSourceReader.TaskReader(config, new io.quiver.dataset.ScanMetrics())) {
          reader.handleSplitsChanges(new SplitsAddition<>(List.of(restored)));
          boolean finished = false;
          while (!finished) {
            RecordsWithSplitIds<RowData> records = reader.fetch();
            String id = records.nextSplit();
            if (id != null) {
              for (RowData r = records.nextRecordFromSplit(); r != null; r = records.nextRecordFromSplit()) {
                ids.add(r.getLong(0));
              }
            }
            finished = records.finishedSplits().contains(restored.splitId());
          }
        }
        assertThat(ids).as("emitted " + emitted).isEqualTo(
            java.util.stream.LongStream.range(emitted, 95).boxed().toList());
      }
    }
  }

  @Test
  void theEnumeratorStateRoundTrips() throws Exception {
    try (Dataset ds = Tables.create(uri, allocator, 0, 10)) {
      Tables.append(ds, allocator, 10, 10);
      List<QuiverSplit> splits = new ArrayList<>();
      for (ScanTask t : ds.newScan().planTasks()) {
        splits.add(new QuiverSplit(t, 3));
      }
      splits.add(QuiverSplit.changes(3, 1)); // a changelog source's split
      QuiverEnumeratorState state = new QuiverEnumeratorState(splits, 2);
      QuiverEnumeratorState back = Serializers.StateSerializer.INSTANCE.deserialize(
          Serializers.StateSerializer.INSTANCE.getVersion(), Serializers.StateSerializer.INSTANCE.serialize(state));
      assertThat(back).isEqualTo(state);
      assertThatExceptionOfType(io.quiver.exceptions.UnsupportedFormatException.class)
          .isThrownBy(() -> Serializers.StateSerializer.INSTANCE.deserialize(3, new byte[0]))
          .withMessageContaining("version 3");
      try (ArrowReader r = splits.get(1).task().open(ds)) {
        assertThat(r.loadNextBatch()).isTrue();
        assertThat(ArrowRowDataReader.of(r.getVectorSchemaRoot()).read(0).getLong(0)).isEqualTo(10);
      }
    }
  }
}
