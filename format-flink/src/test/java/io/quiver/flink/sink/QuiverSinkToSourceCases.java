package io.quiver.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.Dataset;
import io.quiver.flink.source.QuiverSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connector end to end on one MiniCluster and the store a subclass names ({@link #store}: the local store
 * in {@link QuiverSinkToSourceTest}, S3Proxy in {@link QuiverSinkToSourceS3IT}): a continuous {@link
 * QuiverSource} follows the table a running {@link QuiverSink} job appends to — through a failure and restart
 * of the sink job, whose replayed checkpoints the committer recognises — and emits every row the sink wrote
 * exactly once.
 */
abstract class QuiverSinkToSourceCases {
  static final long ROWS = 1000;
  /** Waits are bounded by this; the whole test takes a few seconds. */
  static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = SinkFixtures.cluster();

  @TempDir
  Path dir;

  /** The store of this class's table; called once per case, after {@link #dir} is set. */
  abstract SinkStore store();

  /** Polls {@code condition} until it holds; fails naming {@code what} and {@code state} after {@link #WAIT}. */
  static void await(String what, BooleanSupplier condition, Supplier<String> state) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("waited " + WAIT.toSeconds() + " s for " + what + "; " + state.get());
      }
      Thread.sleep(10);
    }
  }

  @Test
  @Timeout(90)
  void aContinuousSourceEmitsEveryRowAConcurrentSinkJobCommitsOnceThroughTheSinksRestart() throws Exception {
    Probe.reset();
    SinkStore store = store();
    Map<String, String> options = store.options();
    String uri = store.newTableUri();
    SinkFixtures.createTable(uri, options);

    // The reader: parallelism 1, so it emits splits in the order the enumerator plans them (version order) —
    // which lets the sentinel below mark the end of everything planned before it.
    Configuration noRestart = new Configuration();
    noRestart.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment readEnv = StreamExecutionEnvironment.getExecutionEnvironment(noRestart);
    readEnv.setParallelism(1);
    QuiverSource source = QuiverSource.forRowData(uri).storeOptions(options).continuous(Duration.ofMillis(50))
        .batchSize(16).build();
    CloseableIterator<RowData> out =
        readEnv.fromSource(source, WatermarkStrategy.noWatermarks(), "quiver-source").collectAsync();
    JobClient reader = readEnv.executeAsync("follow the sink's table");
    List<Long> seen = new CopyOnWriteArrayList<>();
    AtomicReference<Throwable> readFailure = new AtomicReference<>();
    Thread collector = new Thread(() -> {
      try {
        while (out.hasNext()) {
          seen.add(out.next().getLong(0));
        }
      } catch (Throwable t) {
        readFailure.set(t);
      }
    }, "collect the source's rows");
    collector.setDaemon(true); // after the cancel, its hasNext() may wait for the collect client's next poll
    collector.start();
    try {
      // The writer: parallelism 2, a checkpoint every 50 ms, 100 rows per checkpoint; its map fails once
      // after checkpoint 3 completed and the job restarts at once from its last checkpoint.
      Probe.failAfter = 3;
      StreamExecutionEnvironment writeEnv = QuiverSinkCases.env(3, new Configuration());
      QuiverSinkCases.job(writeEnv, QuiverSinkCases.Input.ROW_DATA, uri, ROWS, 1, 100, options);
      JobClient writer = writeEnv.executeAsync("append while the source follows");

      Supplier<String> state = () -> seen.size() + " rows collected, reader failure " + readFailure.get();
      await("the source to emit the sink's first rows while the sink runs", () -> !seen.isEmpty()
          || readFailure.get() != null, state);
      assertThat(writer.getJobStatus().get(10, TimeUnit.SECONDS).isGloballyTerminalState())
          .as("the sink job still runs when the source emits its first rows").isFalse();
      writer.getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(Probe.FAILURES.get()).as("the sink job failed once and restarted").isEqualTo(1);
      assertThat(SinkFixtures.ids(uri, options)).as("the sink wrote every row once").isEqualTo(SinkFixtures.range(ROWS));

      await(ROWS + " rows from the source", () -> seen.size() >= ROWS || readFailure.get() != null, state);
      // A sentinel appended after the sink's last version: once it is out, every split planned before it is
      // (one reader, in order), so a row planned twice would be in `seen` by now.
      long sentinel = ROWS;
      long sentinelVersion = SinkFixtures.append(uri, options, sentinel, 1);
      await("the sentinel row appended at version " + sentinelVersion,
          () -> seen.contains(sentinel) || readFailure.get() != null, state);
      assertThat(readFailure.get()).as("the source job's failure").isNull();
      assertThat(seen.stream().sorted().toList()).as("every row the sink wrote, once, then the sentinel")
          .isEqualTo(SinkFixtures.range(ROWS + 1));
      try (Dataset ds = Dataset.open(uri, SinkFixtures.options(options))) {
        assertThat(ds.latestVersion()).isEqualTo(sentinelVersion);
      }
    } finally {
      reader.cancel().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      out.close();
      collector.join(TimeUnit.SECONDS.toMillis(5));
    }
  }
}
