package io.quiver.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.Dataset;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A continuous source restored from a checkpoint after a failure: no row repeated, none missed. */
class QuiverSourceRestoreTest {
  @RegisterExtension
  static final MiniClusterExtension CLUSTER = new MiniClusterExtension(
      new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

  static final AtomicBoolean ARMED = new AtomicBoolean();
  static final AtomicBoolean FAILED = new AtomicBoolean();
  static final AtomicLong SEEN_ARMED = new AtomicLong();

  /** Fails the job once, at the 150th row it sees after the test arms it. */
  static final class FailOnce implements MapFunction<RowData, Long> {
    @Override
    public Long map(RowData row) {
      if (ARMED.get() && SEEN_ARMED.incrementAndGet() >= 150 && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("the test's one failure");
      }
      return row.getLong(0);
    }
  }

  /** {@link FailOnce} for a changelog: each change as {@code kind * 1,000,000 + id}. */
  static final class FailOnceChanges implements MapFunction<RowData, Long> {
    @Override
    public Long map(RowData row) {
      if (ARMED.get() && SEEN_ARMED.incrementAndGet() >= 150 && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("the test's one failure");
      }
      return row.getRowKind().toByteValue() * 1_000_000L + row.getLong(0);
    }
  }

  @TempDir
  Path dir;

  /** Waits for {@code condition}, polling; the test's timeout bounds the wait. */
  private static void await(BooleanSupplier condition) throws InterruptedException {
    while (!condition.getAsBoolean()) {
      Thread.sleep(10);
    }
  }

  @Test
  @Timeout(180)
  void aRestoredContinuousSourceNeitherRepeatsNorMissesRows() throws Exception {
    String uri = dir.resolve("table").toString();
    String key = "restore-" + System.nanoTime();
    try (RootAllocator allocator = new RootAllocator(); Dataset ds = Tables.create(uri, allocator, 0, 200)) {
      Tables.append(ds, allocator, 200, 200);
      Tables.append(ds, allocator, 400, 200);

      Configuration conf = new Configuration();
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ZERO);
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
      env.setParallelism(2);
      env.enableCheckpointing(100);
      QuiverSource source = QuiverSource.forRowData(uri).continuous(Duration.ofMillis(50)).batchSize(10).build();
      env.fromSource(source, WatermarkStrategy.noWatermarks(), "quiver")
          .map(new FailOnce()).returns(Types.LONG)
          .sinkTo(new CommittedRows(key));
      JobClient job = env.executeAsync("restore");
      try {
        await(() -> CommittedRows.committed(key).size() >= 600);
        ARMED.set(true);
        Tables.append(ds, allocator, 600, 200);
        Tables.append(ds, allocator, 800, 200);
        await(() -> CommittedRows.committed(key).size() >= 1000);
        assertThat(FAILED).as("the job failed once and was restored").isTrue();
        Tables.append(ds, allocator, 1000, 10);
        await(() -> CommittedRows.committed(key).size() >= 1010);
        List<Long> rows = CommittedRows.committed(key);
        assertThat(new HashSet<>(rows)).as("no row twice").hasSize(rows.size());
        assertThat(rows.stream().sorted().toList()).isEqualTo(LongStream.range(0, 1010).boxed().toList());
      } finally {
        job.cancel().get();
        await(() -> job.getJobStatus().join().isGloballyTerminalState());
      }
    }
  }

  @Test
  @Timeout(180)
  void aRestoredChangelogSourceNeitherRepeatsNorMissesAChange() throws Exception {
    ARMED.set(false);
    FAILED.set(false);
    SEEN_ARMED.set(0);
    String uri = dir.resolve("changelog").toString();
    String key = "changelog-" + System.nanoTime();
    try (RootAllocator allocator = new RootAllocator();
        Dataset ds = Tables.createWithRowIds(uri, allocator, 0, 150)) {
      Tables.append(ds, allocator, 150, 150);
      Configuration conf = new Configuration();
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ZERO);
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
      env.setParallelism(2);
      env.enableCheckpointing(100);
      QuiverSource source = QuiverSource.forRowData(uri).columns("id", "name").continuous(Duration.ofMillis(50))
          .changelog().batchSize(10).build();
      env.fromSource(source, WatermarkStrategy.noWatermarks(), "quiver")
          .map(new FailOnceChanges()).returns(Types.LONG)
          .sinkTo(new CommittedRows(key));
      JobClient job = env.executeAsync("changelog-restore");
      try {
        await(() -> CommittedRows.committed(key).size() >= 300);
        ARMED.set(true);
        ds.update(io.quiver.predicate.Predicate.lt("id", 200L), java.util.Map.of("name", "changed"));
        ds.delete(io.quiver.predicate.Predicate.and(io.quiver.predicate.Predicate.ge("id", 200L),
            io.quiver.predicate.Predicate.lt("id", 250L)));
        Tables.append(ds, allocator, 300, 100);
        await(() -> CommittedRows.committed(key).size() >= 300 + 400 + 50 + 100);
        assertThat(FAILED).as("the job failed once and was restored").isTrue();
        List<Long> expected = new java.util.ArrayList<>();
        for (long id = 0; id < 400; id++) { // the start version's 300 rows, then the appended 100
          expected.add(org.apache.flink.types.RowKind.INSERT.toByteValue() * 1_000_000L + id);
        }
        for (long id = 0; id < 200; id++) {
          expected.add(org.apache.flink.types.RowKind.UPDATE_BEFORE.toByteValue() * 1_000_000L + id);
          expected.add(org.apache.flink.types.RowKind.UPDATE_AFTER.toByteValue() * 1_000_000L + id);
        }
        for (long id = 200; id < 250; id++) {
          expected.add(org.apache.flink.types.RowKind.DELETE.toByteValue() * 1_000_000L + id);
        }
        List<Long> changes = CommittedRows.committed(key);
        assertThat(changes.stream().sorted().toList()).as("every change once")
            .isEqualTo(expected.stream().sorted().toList());
      } finally {
        job.cancel().get();
        await(() -> job.getJobStatus().join().isGloballyTerminalState());
      }
    }
  }
}
