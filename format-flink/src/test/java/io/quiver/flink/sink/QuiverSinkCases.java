package io.quiver.flink.sink;

import static io.quiver.flink.sink.SinkFixtures.ids;
import static io.quiver.flink.sink.SinkFixtures.range;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.CleanupReport;
import io.quiver.dataset.Dataset;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.manifest.CommitLedger;
import io.quiver.manifest.Fragment;
import io.quiver.flink.source.QuiverSource;
import java.nio.file.Path;
import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import io.quiver.flink.types.FlinkTypes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sink's cases on a MiniCluster and the store a subclass names ({@link #store}: the local store in
 * {@link QuiverSinkTest}, S3Proxy in {@link QuiverSinkS3IT}): exactly once through task failures, a committer
 * dying after its commit, a cleanup while the job runs, stop-with-savepoint and resume, batch execution and
 * schema changes. Every job is driven by checkpoint notifications ({@link Probe}); nothing waits on the clock.
 */
abstract class QuiverSinkCases {
  static final String UID = "quiver-sink";

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = SinkFixtures.cluster();

  /** Savepoints (Flink's state, on the local file system whatever the table's store). */
  @TempDir
  Path dir;

  private SinkStore store;

  /** The store of this class's tables; called once per case, after {@link #dir} is set. */
  abstract SinkStore store();

  @BeforeEach
  void reset() {
    Probe.reset();
    CrashAfterCommitStoreProvider.reset();
    store = store();
  }

  private Map<String, String> options() {
    return store.options();
  }

  /** A new, empty table on the store. */
  private String table() {
    return created(store.newTableUri());
  }

  /** A new, empty table on the store behind {@link CrashAfterCommitStoreProvider}. */
  private String crashingTable() {
    return created(CrashAfterCommitStoreProvider.wrap(store.newTableUri()));
  }

  private String created(String uri) {
    SinkFixtures.createTable(uri, options());
    return uri;
  }

  /** Parallelism 2, a checkpoint every 50 ms, and restarts: at most {@code restarts}, without delay. */
  static StreamExecutionEnvironment env(int restarts, Configuration extra) {
    Configuration conf = new Configuration();
    if (restarts > 0) {
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restarts);
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ZERO);
    } else {
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    }
    conf.addAll(extra);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    env.enableCheckpointing(50);
    return env;
  }

  /** The sink's input: Flink rows (one row a record) or Arrow IPC batches. */
  enum Input { ROW_DATA, ARROW }

  /**
   * {@code records} records of {@code rowsPerRecord} rows ({@link Input#ROW_DATA}: 1), {@code perCheckpoint}
   * records per checkpoint, through a {@link Probe} into the sink (rolling files at 40 rows).
   */
  static void job(StreamExecutionEnvironment env, Input input, String uri, long records, int rowsPerRecord,
      int perCheckpoint, Map<String, String> storeOptions) {
    RateLimiterStrategy<?> rate = RateLimiterStrategy.perCheckpoint(perCheckpoint);
    if (input == Input.ROW_DATA) {
      TypeInformation<RowData> type = FlinkTypes.typeInfo(SinkFixtures.ROW_TYPE);
      env.fromSource(new DataGeneratorSource<>(SinkFixtures.rowData(), records, rate, type),
              WatermarkStrategy.noWatermarks(), "rows").uid("records")
          .map(new Probe<RowData>()).returns(type).uid("probe")
          .sinkTo(QuiverSink.forRowData(uri, SinkFixtures.ROW_TYPE).storeOptions(storeOptions).rollAtRows(40)
              .operatorUid(UID).build())
          .uid(UID);
      return;
    }
    TypeInformation<byte[]> type = PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO;
    env.fromSource(new DataGeneratorSource<>(SinkFixtures.records(rowsPerRecord), records, rate, type),
            WatermarkStrategy.noWatermarks(), "records").uid("records")
        .map(new Probe<byte[]>()).returns(type).uid("probe")
        .sinkTo(QuiverSink.forArrow(uri).storeOptions(storeOptions).rollAtRows(40).operatorUid(UID).build())
        .uid(UID);
  }

  /** Runs {@link #job} (400 one-row records, 40 a checkpoint) to its end, restarting at most {@code restarts} times. */
  private void run400(String name, Input input, String uri, int restarts) throws Exception {
    StreamExecutionEnvironment env = env(restarts, new Configuration());
    job(env, input, uri, 400, 1, 40, options());
    env.execute(name);
  }

  private Dataset open(String uri) {
    return Dataset.open(uri, SinkFixtures.options(options()));
  }

  @Test
  void aTaskFailureAfterTwoCheckpointsRestartsFromTheCheckpointAndEveryRecordIsInTheTableOnce() throws Exception {
    String uri = table();
    Probe.failAfter = 2;
    run400("exactly once through a failure", Input.ROW_DATA, uri, 3);
    assertThat(Probe.FAILURES.get()).as("the job failed once").isEqualTo(1);
    assertThat(ids(uri, options())).isEqualTo(range(400));

    // The source's journey: a bounded QuiverSource job reads the table back.
    QuiverSource source = QuiverSource.forRowData(uri).storeOptions(options()).batchSize(64).build();
    StreamExecutionEnvironment read = env(0, new Configuration());
    List<Long> readIds = new ArrayList<>();
    List<String> tags = new ArrayList<>();
    try (CloseableIterator<RowData> rows =
        read.fromSource(source, WatermarkStrategy.noWatermarks(), "quiver-source").executeAndCollect("read back")) {
      rows.forEachRemaining(r -> {
        readIds.add(r.getLong(0));
        tags.add(r.getString(1).toString());
      });
    }
    assertThat(readIds.stream().sorted().toList()).as("every row the sink wrote, once").isEqualTo(range(400));
    assertThat(tags).as("the rows' tags").containsExactlyInAnyOrderElementsOf(
        range(400).stream().map(i -> "t" + i).toList());
  }

  @Test
  void aCommitterThatDiesAfterTheTableCommitIsRecognisedAfterTheRestartNoDuplicate() throws Exception {
    String uri = crashingTable();
    Probe.hookAt = 2;
    Probe.hook = () -> CrashAfterCommitStoreProvider.ARMED.set(true);
    run400("committer dies after committing", Input.ROW_DATA, uri, 3);
    assertThat(CrashAfterCommitStoreProvider.CRASHES.get()).as("the injected crash happened").isEqualTo(1);
    assertThat(ids(uri, options())).isEqualTo(range(400));
  }

  @Test
  void aCleanupWhileTheJobRunsLosesNothingAndCommittablesRedeliveredAfterItAreRecognised() throws Exception {
    String uri = table();
    AtomicReference<CleanupReport> report = new AtomicReference<>();
    Probe.hookAt = 3;
    // Every version but the latest goes; files younger than the safety window (1 h, far above the 50 ms
    // checkpoint interval + restart + commit time) stay, so in-flight files survive.
    Probe.hook = () -> {
      try (Dataset ds = open(uri)) {
        report.set(ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).safetyWindow(Duration.ofHours(1))
            .build()));
      }
    };
    Probe.failAfter = 5;
    run400("cleanup while running", Input.ARROW, uri, 3);
    assertThat(report.get()).isNotNull();
    assertThat(report.get().versionsRemoved()).as("the cleanup removed versions").isNotEmpty();
    assertThat(Probe.FAILURES.get()).isEqualTo(1);
    assertThat(ids(uri, options())).isEqualTo(range(400));
  }

  @Test
  void stopWithSavepointAndResumeUnderANewJobIdCommitsEveryRecordOnce() throws Exception {
    String uri = table();
    Probe.latchAt = 3;
    StreamExecutionEnvironment first = env(0, new Configuration());
    job(first, Input.ROW_DATA, uri, 600, 1, 20, options());
    JobClient running = first.executeAsync("before the savepoint");
    assertThat(Probe.reached.await(60, TimeUnit.SECONDS)).as("3 checkpoints completed").isTrue();
    String savepoint = running.stopWithSavepoint(false, dir.resolve("savepoints").toUri().toString(),
        SavepointFormatType.CANONICAL).get(60, TimeUnit.SECONDS);
    JobID firstJob = running.getJobID();
    long before = ids(uri, options()).size();
    assertThat(before).as("the first job committed part of the input").isBetween(1L, 599L);

    Configuration restore = new Configuration();
    restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
    StreamExecutionEnvironment second = env(0, restore);
    job(second, Input.ROW_DATA, uri, 600, 1, 20, options());
    JobID secondJob = second.execute("after the savepoint").getJobID();

    assertThat(ids(uri, options())).isEqualTo(range(600));
    try (Dataset ds = open(uri)) {
      assertThat(ds.distributed().applicationWatermark(QuiverCommittable.applicationId(firstJob.toHexString(), UID)))
          .isPresent();
      assertThat(ds.distributed().applicationWatermark(QuiverCommittable.applicationId(secondJob.toHexString(), UID)))
          .isPresent();
    }
  }

  @Test
  void batchExecutionCommitsOnceAtTheEnd() throws Exception {
    String uri = table();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(2);
    DataGeneratorSource<byte[]> source = new DataGeneratorSource<>(SinkFixtures.records(5), 100,
        PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "records")
        .sinkTo(QuiverSink.forArrow(uri).storeOptions(options()).rollAtRows(100).build()).uid(UID);
    JobID job = env.execute("batch").getJobID();
    assertThat(ids(uri, options())).isEqualTo(range(500));
    try (Dataset ds = open(uri)) {
      assertThat(ds.latestVersion()).as("one commit after the table's creation").isEqualTo(2);
      CommitLedger.SequenceWatermark mark =
          ds.distributed().applicationWatermark(QuiverCommittable.applicationId(job.toHexString(), UID)).orElseThrow();
      // Flink 2.3 numbers a batch job's only commit 1 (Flink 1.x used Long.MAX_VALUE; QuiverCommitterTest
      // covers that id).
      assertThat(mark.sequence()).isEqualTo(1);
      assertThat(mark.version()).isEqualTo(2);
    }
  }

  @Test
  void aNullableColumnAddedWhileTheJobRunsReadsNullForItsRowsAndLaterAppendsCommit() throws Exception {
    String uri = table();
    Probe.hookAt = 2;
    Probe.hook = () -> {
      retryingConflicts(() -> {
        try (Dataset ds = open(uri)) {
          ds.columns().add(List.of(new Field("score", FieldType.nullable(new ArrowType.Int(32, true)), null)));
        }
      });
    };
    run400("column added", Input.ROW_DATA, uri, 0);
    assertThat(Probe.HOOK_RAN.get()).isTrue();
    Map<String, List<Object>> table = SinkFixtures.read(uri, options());
    assertThat(ids(uri, options())).isEqualTo(range(400));
    assertThat(table.get("score")).hasSize(400).containsOnlyNulls();
    assertThat(table.get("tag")).doesNotContainNull();
  }

  @Test
  void aColumnDroppedWhileTheJobRunsFailsTheJobWithQuiversMessage() {
    String uri = table();
    Probe.hookAt = 2;
    Probe.hook = () -> {
      retryingConflicts(() -> {
        try (Dataset ds = open(uri)) {
          ds.columns().drop("tag");
        }
      });
    };
    assertThatThrownBy(() -> run400("column dropped", Input.ARROW, uri, 0))
        .satisfies(e -> assertThat(causeOf(e, SchemaMismatchException.class)).isNotNull()
            .satisfies(m -> assertThat(m.getMessage()).contains("'tag'").contains("Nothing")));
  }

  @Test
  void arrowBatchesAreWrittenInFilesRolledByRows() throws Exception {
    String uri = table();
    StreamExecutionEnvironment env = env(0, new Configuration());
    job(env, Input.ARROW, uri, 100, 10, 10, options());
    env.execute("arrow batches");
    assertThat(ids(uri, options())).isEqualTo(range(1000));
    try (Dataset ds = open(uri)) {
      List<Fragment> fragments = ds.manifest().fragments();
      assertThat(fragments).allSatisfy(f -> assertThat(f.physicalRows()).isLessThanOrEqualTo(40 + 10 - 1));
      assertThat(fragments.size()).isGreaterThanOrEqualTo(1000 / (40 + 10 - 1));
    }
  }

  /** Runs a schema change that races with the sink's appends, again when it loses (a retryable conflict). */
  static void retryingConflicts(Runnable change) {
    for (int attempt = 1; ; attempt++) {
      try {
        change.run();
        return;
      } catch (RetryableConflictException e) {
        if (attempt == 20) {
          throw e;
        }
      }
    }
  }

  static <T extends Throwable> T causeOf(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }
}
