package io.quiver.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.VersionInfo;
import io.quiver.flink.types.FlinkTypes;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upsert sink on a MiniCluster: a deterministic changelog (inserts, updates, deletes; keys repeated inside
 * and across checkpoints) must leave the table equal to a row-by-row model — each key once, or gone — through
 * an injected task failure after completed checkpoints, over rows the table held before (duplicate keys
 * included), and beside a Java writer's appends between checkpoints.
 */
class QuiverUpsertSinkTest {
  @RegisterExtension
  static final MiniClusterExtension CLUSTER = SinkFixtures.cluster();

  static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("v", FieldType.nullable(new ArrowType.Int(64, true)), null),
      new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
  static final RowType ROW_TYPE = new RowType(false, List.of(
      new RowType.RowField("id", new BigIntType(false)),
      new RowType.RowField("v", new BigIntType(true)),
      new RowType.RowField("s", new VarCharType(true, VarCharType.MAX_LENGTH))));

  @TempDir
  Path dir;

  @BeforeEach
  void reset() {
    Probe.reset();
  }

  private String table(List<long[]> rows) {
    String uri = dir.resolve("t").toUri().toString();
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = batch(rows, allocator);
        Dataset ds = Dataset.create(uri, SCHEMA, List.of(root), SinkFixtures.options(SinkFixtures.LOCAL))) {
      ds.version();
    }
    return uri;
  }

  private static VectorSchemaRoot batch(List<long[]> rows, RootAllocator allocator) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    BigIntVector id = (BigIntVector) root.getVector("id");
    BigIntVector v = (BigIntVector) root.getVector("v");
    VarCharVector s = (VarCharVector) root.getVector("s");
    for (int i = 0; i < rows.size(); i++) {
      id.setSafe(i, rows.get(i)[0]);
      v.setSafe(i, rows.get(i)[1]);
      s.setSafe(i, ("old" + rows.get(i)[1]).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    root.setRowCount(rows.size());
    return root;
  }

  /** Change {@code i}: key {@code (i * 7) % 23}; every 5th a delete, every 5th + 3 an update-after, else an insert. */
  static RowData change(long i) {
    long key = (i * 7) % 23;
    RowKind kind = i % 5 == 4 ? RowKind.DELETE : i % 5 == 3 ? RowKind.UPDATE_AFTER : RowKind.INSERT;
    GenericRowData row = GenericRowData.ofKind(kind, key, i, StringData.fromString("v" + i));
    return row;
  }

  /** The table after changes {@code [0, n)} applied one by one to {@code before} (key to value). */
  static Map<Long, Long> model(Map<Long, Long> before, long n) {
    Map<Long, Long> m = new TreeMap<>(before);
    for (long i = 0; i < n; i++) {
      RowData c = change(i);
      if (c.getRowKind() == RowKind.DELETE) {
        m.remove(c.getLong(0));
      } else {
        m.put(c.getLong(0), c.getLong(1));
      }
    }
    return m;
  }

  private static void run(String uri, long changes, int perCheckpoint, int restarts) throws Exception {
    Configuration conf = new Configuration();
    StreamExecutionEnvironment env = QuiverSinkCases.env(restarts, conf);
    TypeInformation<RowData> type = FlinkTypes.typeInfo(ROW_TYPE);
    env.fromSource(new DataGeneratorSource<>((GeneratorFunction<Long, RowData>) QuiverUpsertSinkTest::change,
                changes, RateLimiterStrategy.perCheckpoint(perCheckpoint), type),
            WatermarkStrategy.noWatermarks(), "changes").setParallelism(1).uid("changes")
        .map(new Probe<RowData>()).returns(type).setParallelism(1).uid("probe")
        .sinkTo(QuiverUpsertSink.forRowData(uri, ROW_TYPE, List.of("id")).storeOptions(SinkFixtures.LOCAL)
            .operatorUid("upserts").build())
        .uid("upserts");
    env.execute("upserts");
  }

  /** Every row of the table: key to values, and every key's number of rows. */
  record Read(Map<Long, Long> values, Map<Long, Integer> counts, Map<Long, String> strings) {}

  static Read read(String uri) throws Exception {
    Map<Long, Long> values = new TreeMap<>();
    Map<Long, Integer> counts = new TreeMap<>();
    Map<Long, String> strings = new HashMap<>();
    try (RootAllocator allocator = new RootAllocator();
        Dataset ds = Dataset.open(uri, DatasetOptions.builder().allocator(allocator).build());
        ArrowReader r = ds.newScan().open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot b = r.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) b.getVector("id");
        BigIntVector v = (BigIntVector) b.getVector("v");
        VarCharVector s = (VarCharVector) b.getVector("s");
        for (int i = 0; i < b.getRowCount(); i++) {
          values.put(id.get(i), v.isNull(i) ? null : v.get(i));
          counts.merge(id.get(i), 1, Integer::sum);
          strings.put(id.get(i), s.isNull(i) ? null : s.getObject(i).toString());
        }
      }
    }
    return new Read(values, counts, strings);
  }

  private static void assertModel(String uri, Map<Long, Long> expected) throws Exception {
    Read read = read(uri);
    assertThat(read.counts().values()).as("rows per key").allMatch(n -> n == 1);
    assertThat(read.values()).isEqualTo(expected);
    for (Map.Entry<Long, Long> e : expected.entrySet()) {
      if (e.getValue() >= 0 && read.strings().containsKey(e.getKey()) && !read.strings().get(e.getKey()).startsWith("old")) {
        assertThat(read.strings().get(e.getKey())).isEqualTo("v" + e.getValue());
      }
    }
  }

  private static List<VersionInfo> upsertVersions(String uri) {
    try (Dataset ds = Dataset.open(uri, SinkFixtures.options(SinkFixtures.LOCAL))) {
      List<VersionInfo> out = new ArrayList<>();
      for (VersionInfo v : ds.versions()) {
        if (v.operation().equals("row-delta")) {
          out.add(v);
        }
      }
      return out;
    }
  }

  @Test
  void aChangelogEqualsTheRowByRowModel() throws Exception {
    String uri = table(List.of());
    run(uri, 400, 40, 0);
    assertModel(uri, model(Map.of(), 400));
    // One commit per checkpoint that changed something (10 checkpoints of 40 changes), none per empty one.
    assertThat(upsertVersions(uri).size()).isBetween(5, 12);
  }

  @Test
  void aTaskFailureAfterCompletedCheckpointsCommitsEveryChangeOnce() throws Exception {
    String uri = table(List.of());
    Probe.failAfter = 3;
    run(uri, 400, 40, 1);
    assertThat(Probe.FAILURES.get()).isEqualTo(1);
    assertModel(uri, model(Map.of(), 400));
  }

  @Test
  void rowsTheTableHeldBeforeAreReplacedAndDuplicateKeysCollapse() throws Exception {
    // Key 1 twice and key 2 once before the job; the changelog touches keys 0..22.
    String uri = table(List.of(new long[] {1, -1}, new long[] {1, -2}, new long[] {2, -3}, new long[] {100, -4}));
    run(uri, 200, 50, 0);
    Map<Long, Long> before = new TreeMap<>(Map.of(1L, -1L, 2L, -3L, 100L, -4L));
    Map<Long, Long> expected = model(before, 200);
    Read read = read(uri);
    assertThat(read.counts()).allSatisfy((k, n) -> assertThat(n).as("rows of key %d", k).isEqualTo(1));
    assertThat(read.values()).isEqualTo(expected);
    assertThat(read.values()).containsEntry(100L, -4L); // a key the changelog never touched is kept
  }

  @Test
  void aJavaAppendBetweenCheckpointsIsUpsertedOverNotDuplicated() throws Exception {
    String uri = table(List.of());
    // After checkpoint 2, a Java writer appends key 5 (which later changes touch) and key 999 (which none do).
    Probe.hookAt = 2;
    Probe.hook = () -> {
      try (RootAllocator allocator = new RootAllocator();
          VectorSchemaRoot root = batch(List.of(new long[] {5, -50}, new long[] {999, -999}), allocator);
          Dataset ds = Dataset.open(uri, SinkFixtures.options(SinkFixtures.LOCAL))) {
        ds.append(List.of(root));
      }
    };
    run(uri, 400, 40, 0);
    assertThat(Probe.HOOK_RAN).isTrue();
    Read read = read(uri);
    assertThat(read.counts()).allSatisfy((k, n) -> assertThat(n).as("rows of key %d", k).isEqualTo(1));
    Map<Long, Long> expected = model(Map.of(), 400);
    expected.put(999L, -999L);
    // Key 5's last change in the model decides it, whether the append landed before or after its changes.
    assertThat(read.values()).isEqualTo(expected);
  }

}
