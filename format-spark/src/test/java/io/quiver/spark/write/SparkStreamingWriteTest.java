package io.quiver.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.CleanupReport;
import io.quiver.dataset.Dataset;
import io.quiver.manifest.CommitLedger;
import io.quiver.spark.SparkTests;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The Structured Streaming sink: epochs committed exactly once across restarts from the checkpoint, after a
 * cleanup, and after a crash between the table commit and Spark's own commit; each epoch written against the
 * latest version; complete and update output modes refused.
 */
class SparkStreamingWriteTest {
  static SparkTests spark;
  static final AtomicInteger TABLES = new AtomicInteger();

  @BeforeAll
  static void start() {
    spark = SparkTests.start();
  }

  @AfterAll
  static void stop() {
    spark.close();
  }

  @AfterEach
  void resetHooks() {
    WriteHooks.set(null);
  }

  private static String newTable() {
    String name = "s" + TABLES.incrementAndGet();
    spark.spark().sql("CREATE TABLE quiver.db." + name + " (id BIGINT)");
    return name;
  }

  private static String uri(String table) {
    return spark.warehouse().resolve("db").resolve(table).toUri().toString();
  }

  private static Path file(String table, String key) {
    return spark.warehouse().resolve("db").resolve(table).resolve(key);
  }

  private static String checkpoint(String table) {
    return spark.warehouse().resolve("checkpoints").resolve(table).toString();
  }

  private static List<Long> ids(String table) {
    return QuiverReadBack.column(uri(table), 0).stream().map(o -> (Long) o).toList();
  }

  private static List<Long> range(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }

  private static void add(MemoryStream<Long> stream, long from, long to) {
    stream.addData(CollectionConverters.asScala(range(from, to)).toSeq());
  }

  private static StreamingQuery start(MemoryStream<Long> stream, String table) throws Exception {
    return stream.toDS().toDF("id").writeStream()
        .option("checkpointLocation", checkpoint(table))
        .outputMode("append")
        .toTable("quiver.db." + table);
  }

  private static CleanupReport cleanupAllButLatest(String table) {
    try (Dataset ds = Dataset.open(uri(table))) {
      return ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).safetyWindow(Duration.ZERO).build());
    }
  }

  private static long latestVersion(String table) {
    try (Dataset ds = Dataset.open(uri(table))) {
      return ds.version();
    }
  }

  private static java.util.Optional<CommitLedger.SequenceWatermark> watermark(String table, String queryId) {
    try (Dataset ds = Dataset.open(uri(table))) {
      return ds.distributed().applicationWatermark(queryId);
    }
  }

  private static void javaAppend(String table, long id) {
    try (Dataset ds = Dataset.open(uri(table));
        RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(ds.schema().toArrow(), allocator)) {
      root.allocateNew();
      ((BigIntVector) root.getVector("id")).setSafe(0, id);
      root.setRowCount(1);
      ds.append(List.of(root));
    }
  }

  @Test
  void aQueryRestartedFromItsCheckpointAfterACleanupCommitsEveryEpochOnce() throws Exception {
    String t = newTable();
    Map<String, Long> readVersions = new ConcurrentHashMap<>();
    WriteHooks.set(new WriteHooks() {
      @Override
      public void beforeTableCommit(String key, long readVersion) {
        readVersions.put(key, readVersion);
      }
    });
    MemoryStream<Long> stream = MemoryStream.apply(Encoders.LONG(), spark.spark());
    StreamingQuery q1 = start(stream, t);
    String queryId = q1.id().toString();
    add(stream, 0, 10);
    q1.processAllAvailable();
    javaAppend(t, 1000);           // a concurrent writer between epochs
    long afterJava = latestVersion(t);
    add(stream, 10, 20);
    q1.processAllAvailable();
    q1.stop();
    assertThat(ids(t)).containsExactlyElementsOf(concat(range(0, 20), List.of(1000L)));
    assertThat(watermark(t, queryId)).get().extracting(CommitLedger.SequenceWatermark::sequence).isEqualTo(1L);
    // Each epoch wrote against the latest version when it started, not the version the query started at.
    assertThat(readVersions).containsEntry("spark/" + queryId + "/epoch/1", afterJava);

    assertThat(cleanupAllButLatest(t).versionsRemoved()).isNotEmpty();

    StreamingQuery q2 = start(stream, t);
    // The persistent query id (kept in the checkpoint) is the application id across restarts.
    assertThat(q2.id().toString()).isEqualTo(queryId);
    add(stream, 20, 30);
    q2.processAllAvailable();
    q2.stop();
    assertThat(ids(t)).containsExactlyElementsOf(concat(range(0, 30), List.of(1000L)));
    assertThat(readVersions.keySet()).allSatisfy(k -> assertThat(k).startsWith("spark/" + queryId + "/epoch/"));
    assertThat(watermark(t, queryId)).get().extracting(CommitLedger.SequenceWatermark::sequence).isEqualTo(2L);
  }

  @Test
  void anEpochReplayedAfterACrashBetweenTheTableCommitAndSparksCommitIsNotCommittedTwice() throws Exception {
    String t = newTable();
    AtomicBoolean crashed = new AtomicBoolean();
    List<String> replayedFiles = Collections.synchronizedList(new ArrayList<>());
    WriteHooks.set(new WriteHooks() {
      @Override
      public void afterFilesWritten(int partitionId, int attemptNumber, long epochId, List<String> files) {
        if (epochId == 1 && crashed.get()) {
          replayedFiles.addAll(files);
        }
      }

      @Override
      public void afterTableCommit(String key, long version) {
        if (key.endsWith("/epoch/1") && crashed.compareAndSet(false, true)) {
          throw new IllegalStateException("injected crash after the table commit of " + key);
        }
      }
    });
    MemoryStream<Long> stream = MemoryStream.apply(Encoders.LONG(), spark.spark());
    StreamingQuery q1 = start(stream, t);
    String queryId = q1.id().toString();
    add(stream, 0, 10);
    q1.processAllAvailable();
    add(stream, 10, 20);
    assertThatThrownBy(q1::processAllAvailable).hasStackTraceContaining("injected crash");
    q1.stop();
    assertThat(crashed).isTrue();
    // The epoch is in the table; Spark did not record it as done.
    assertThat(ids(t)).containsExactlyElementsOf(range(0, 20));
    long committed = latestVersion(t);
    assertThat(cleanupAllButLatest(t).versionsRemoved()).isNotEmpty();

    StreamingQuery q2 = start(stream, t);
    q2.processAllAvailable();     // Spark replays epoch 1: at the watermark, so it publishes nothing
    assertThat(latestVersion(t)).isEqualTo(committed);
    assertThat(replayedFiles).isNotEmpty().allSatisfy(f -> assertThat(file(t, f)).doesNotExist());
    add(stream, 20, 30);
    q2.processAllAvailable();
    q2.stop();
    assertThat(ids(t)).containsExactlyElementsOf(range(0, 30));
    assertThat(watermark(t, queryId)).get().extracting(CommitLedger.SequenceWatermark::sequence).isEqualTo(2L);
  }

  @Test
  void completeAndUpdateOutputModesAreRefused() throws Exception {
    String t = newTable();
    MemoryStream<Long> stream = MemoryStream.apply(Encoders.LONG(), spark.spark());
    for (String mode : List.of("complete", "update")) {
      assertThatThrownBy(() -> {
        StreamingQuery q = stream.toDS().toDF("id").groupBy("id").count().select("id").writeStream()
            .option("checkpointLocation", checkpoint(t) + "-" + mode).outputMode(mode).toTable("quiver.db." + t);
        try {
          add(stream, 0, 3);
          q.processAllAvailable();
        } finally {
          q.stop();
        }
      }).as(mode).hasStackTraceContaining(mode.equals("complete") ? "append output mode only" : "Update mode");
    }
    assertThat(ids(t)).isEmpty();
  }

  private static List<Long> concat(List<Long> a, List<Long> b) {
    List<Long> out = new ArrayList<>(a);
    out.addAll(b);
    Collections.sort(out);
    return out;
  }
}
