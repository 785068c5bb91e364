package io.quiver.flink.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.Dataset;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.predicate.Predicate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A changelog source ({@code QuiverSource.Builder.changelog()}): the start version as inserts, then every later
 * version's changes with their row kinds, in order, so that applying them by key mirrors the table exactly; plus
 * the serializers' old and new forms, and its typed errors.
 */
class QuiverChangelogSourceTest {
  @RegisterExtension
  static final MiniClusterExtension CLUSTER = new MiniClusterExtension(
      new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

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

  private static StreamExecutionEnvironment env() {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    return env;
  }

  /** Applies {@code n} changes from {@code it} to {@code mirror} (id -> name), checking each against it. */
  private static void apply(CloseableIterator<RowData> it, int n, Map<Long, String> mirror, List<String> log) {
    for (int i = 0; i < n && it.hasNext(); i++) {
      RowData r = it.next();
      long id = r.getLong(0);
      String name = r.isNullAt(1) ? null : r.getString(1).toString();
      log.add(r.getRowKind().shortString() + id);
      switch (r.getRowKind()) {
        case INSERT, UPDATE_AFTER -> assertThat(mirror.put(id, name)).as("%s of %d", r.getRowKind(), id).isNull();
        case DELETE, UPDATE_BEFORE -> assertThat(mirror.remove(id)).as("%s of %d", r.getRowKind(), id).isEqualTo(name);
        default -> throw new AssertionError(r.getRowKind());
      }
    }
  }

  private static Map<Long, String> table(Dataset ds) throws Exception {
    Map<Long, String> out = new TreeMap<>();
    try (org.apache.arrow.vector.ipc.ArrowReader r = ds.newScan().columns("id", "name").open()) {
      while (r.loadNextBatch()) {
        var root = r.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          out.put((Long) root.getVector(0).getObject(i), String.valueOf(root.getVector(1).getObject(i)));
        }
      }
    }
    return out;
  }

  @Test
  @org.junit.jupiter.api.Timeout(180)
  void aChangelogSourceMirrorsEveryInsertUpdateAndDeleteInOrder() throws Exception {
    try (Dataset ds = Tables.createWithRowIds(uri, allocator, 0, 20)) {
      QuiverSource source = QuiverSource.forRowData(uri).columns("id", "name").continuous(Duration.ofMillis(50))
          .changelog().batchSize(4).build();
      Map<Long, String> mirror = new TreeMap<>();
      List<String> log = new ArrayList<>();
      try (CloseableIterator<RowData> it =
          env().fromSource(source, WatermarkStrategy.noWatermarks(), "quiver").executeAndCollect()) {
        apply(it, 20, mirror, log);
        assertThat(log).allMatch(s -> s.startsWith("+I"));
        assertThat(mirror).isEqualTo(table(ds));

        Tables.append(ds, allocator, 20, 5); // 5 inserts
        ds.update(Predicate.in("id", List.of(3L, 21L)), Map.of("name", "changed")); // 2 x (-U, +U)
        ds.delete(Predicate.lt("id", 2L)); // 2 deletes
        ds.compact(CompactionOptions.defaults()); // nothing
        ds.updateConfig(Map.of("owner", "test"), java.util.Set.of()); // nothing
        Tables.append(ds, allocator, 100, 1); // 1 insert
        log.clear();
        apply(it, 5 + 4 + 2 + 1, mirror, log);
        assertThat(log).containsExactly("+I20", "+I21", "+I22", "+I23", "+I24", "-U3", "+U3", "-U21", "+U21",
            "-D0", "-D1", "+I100");
        assertThat(mirror).as("the mirror is the table").isEqualTo(table(ds));
      }
    }
  }

  @Test
  void aChangelogSourceNeedsRowIdsAFollowModeAndNoFilter() {
    try (Dataset ds = Tables.create(uri, allocator, 0, 5)) {
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> QuiverSource.forRowData(uri).continuous(Duration.ofSeconds(1)).changelog().build())
          .withMessageContaining("has no stable row ids");
      ds.updateConfig(Map.of("row-ids", "true"), java.util.Set.of());
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> QuiverSource.forRowData(uri).changelog().build())
          .withMessageContaining("a changelog source follows the table");
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> QuiverSource.forRowData(uri).continuous(Duration.ofSeconds(1)).changelog()
              .filter(Predicate.eq("id", 1L)).build())
          .withMessageContaining("does not take a filter");
    }
  }

  @Test
  void changeSplitsAndOldTaskSplitsRoundTripThroughTheSerializers() throws Exception {
    QuiverSplit changes = QuiverSplit.changes(7, 3);
    Serializers.SplitSerializer s = Serializers.SplitSerializer.INSTANCE;
    QuiverSplit back = s.deserialize(s.getVersion(), s.serialize(changes));
    assertThat(back).isEqualTo(changes);
    assertThat(back.splitId()).isEqualTo("c7");
    assertThat(back.rowsEmitted()).isEqualTo(3);
    // A version 1 split (before change splits): the task's bytes and the rows emitted, nothing more.
    try (Dataset ds = Tables.create(uri, allocator, 0, 5)) {
      QuiverSplit task = new QuiverSplit(ds.newScan().planTasks().get(0), 2);
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
        out.writeInt(task.encodedTask().length);
        out.write(task.encodedTask());
        out.writeLong(2);
      }
      QuiverSplit old = s.deserialize(1, bytes.toByteArray());
      assertThat(old).isEqualTo(task);
      assertThat(old.isChanges()).isFalse();
    }
  }
}
