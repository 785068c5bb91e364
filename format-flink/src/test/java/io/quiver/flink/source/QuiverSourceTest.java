package io.quiver.flink.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.Dataset;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.TagNotFoundException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.predicate.Predicate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.LongStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The source on a MiniCluster of parallelism 2: bounded reads, time travel, following appends. */
class QuiverSourceTest {
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
    allocator.close(); // throws if a test leaked Arrow memory
  }

  private static StreamExecutionEnvironment env() {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    return env;
  }

  private static List<RowData> collect(QuiverSource source) throws Exception {
    List<RowData> rows = new ArrayList<>();
    try (CloseableIterator<RowData> it =
        env().fromSource(source, WatermarkStrategy.noWatermarks(), "quiver").executeAndCollect()) {
      it.forEachRemaining(rows::add);
    }
    return rows;
  }

  private static List<Long> ids(List<RowData> rows) {
    return rows.stream().map(r -> r.getLong(0)).sorted().toList();
  }

  private static List<Long> range(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }

  @Test
  void aBoundedReadReturnsTheTablesRows() throws Exception {
    try (Dataset ds = Tables.create(uri, allocator, 0, 100)) {
      Tables.append(ds, allocator, 100, 50);
      Tables.append(ds, allocator, 150, 7);
    }
    QuiverSource source = QuiverSource.forRowData(uri).batchSize(16).build();
    assertThat(source.version()).isEqualTo(3);
    assertThat(source.rowType().asSummaryString()).isEqualTo("ROW<`id` BIGINT NOT NULL, `name` STRING, `score` DOUBLE> NOT NULL");
    List<RowData> rows = collect(source);
    assertThat(ids(rows)).isEqualTo(range(0, 157));
    RowData r = rows.stream().filter(x -> x.getLong(0) == 123).findFirst().orElseThrow();
    assertThat(r.getString(1).toString()).isEqualTo("n123");
    assertThat(r.getDouble(2)).isEqualTo(61.5);
  }

  @Test
  void projectionAndFilterArePushedIntoTheScan() throws Exception {
    try (Dataset ds = Tables.create(uri, allocator, 0, 100)) {
      Tables.append(ds, allocator, 100, 100);
    }
    QuiverSource source = QuiverSource.forRowData(uri)
        .columns("name", "id")
        .filter(Predicate.and(Predicate.ge("id", 90L), Predicate.lt("score", 60.0)))
        .build();
    assertThat(source.rowType().getFieldNames()).containsExactly("name", "id");
    List<RowData> rows = collect(source);
    assertThat(rows).allSatisfy(r -> assertThat(r.getArity()).isEqualTo(2));
    assertThat(rows.stream().map(r -> r.getLong(1)).sorted().toList()).isEqualTo(range(90, 120));
    assertThat(rows.stream().map(r -> r.getString(0).toString()).sorted().toList())
        .isEqualTo(range(90, 120).stream().map(i -> "n" + i).sorted().toList());
  }

  @Test
  void badColumnsAndFiltersAreTypedErrorsWhenTheSourceIsBuilt() {
    Tables.create(uri, allocator, 0, 1).close();
    assertThatExceptionOfType(InvalidArgumentException.class)
        .isThrownBy(() -> QuiverSource.forRowData(uri).columns("nope").build())
        .withMessageContaining("nope");
    assertThatExceptionOfType(InvalidArgumentException.class)
        .isThrownBy(() -> QuiverSource.forRowData(uri).filter(Predicate.gt("name", 5L)).build())
        .withMessageContaining("name");
  }

  @Test
  void timeTravelByVersionTagAndInstant() throws Exception {
    java.time.Instant afterFirst;
    try (Dataset ds = Tables.create(uri, allocator, 0, 10)) {
      ds.tags().create("first", 1);
      afterFirst = ds.versionInfo(1).timestamp();
      Tables.append(ds, allocator, 10, 10);
    }
    assertThat(ids(collect(QuiverSource.forRowData(uri).version(1).build()))).isEqualTo(range(0, 10));
    assertThat(ids(collect(QuiverSource.forRowData(uri).tag("first").build()))).isEqualTo(range(0, 10));
    assertThat(ids(collect(QuiverSource.forRowData(uri).asOf(afterFirst).build()))).isEqualTo(range(0, 10));
    assertThat(ids(collect(QuiverSource.forRowData(uri).build()))).isEqualTo(range(0, 20));
    assertThatExceptionOfType(VersionNotFoundException.class)
        .isThrownBy(() -> QuiverSource.forRowData(uri).version(7).build()).withMessageContaining("version 7");
    assertThatExceptionOfType(TagNotFoundException.class)
        .isThrownBy(() -> QuiverSource.forRowData(uri).tag("nope").build());
    assertThatExceptionOfType(VersionNotFoundException.class)
        .isThrownBy(() -> QuiverSource.forRowData(uri).asOf(afterFirst.minusSeconds(3600)).build())
        .withMessageContaining("no version committed at or before");
  }

  /** Takes {@code n} rows from the job's output (blocks until they arrive; the test's timeout bounds it). */
  private static List<Long> take(CloseableIterator<RowData> it, int n) {
    List<Long> out = new ArrayList<>();
    while (out.size() < n && it.hasNext()) {
      out.add(it.next().getLong(0));
    }
    return out;
  }

  @Test
  @org.junit.jupiter.api.Timeout(180)
  void aContinuousSourceEmitsEveryAppendedRowOnceThroughCompactionAndFailsOnAnOverwrite() throws Exception {
    Dataset ds = Tables.create(uri, allocator, 0, 40);
    try {
      QuiverSource source = QuiverSource.forRowData(uri).continuous(Duration.ofMillis(50)).batchSize(8).build();
      List<Long> seen = new ArrayList<>();
      CloseableIterator<RowData> it =
          env().fromSource(source, WatermarkStrategy.noWatermarks(), "quiver").executeAndCollect();
      try {
        seen.addAll(take(it, 40));
        assertThat(seen).hasSize(40);
        long next = 40;
        for (int round = 0; round < 4; round++) {
          Tables.append(ds, allocator, next, 25);
          Tables.append(ds, allocator, next + 25, 5); // two versions between two discoveries, or one each
          next += 30;
          seen.addAll(take(it, 30));
          assertThat(seen).as("round " + round).hasSize((int) next);
        }
        // A compaction rewrites every row into new fragments: nothing is emitted again.
        ds.compact(CompactionOptions.defaults());
        assertThat(ds.versionInfo(ds.version()).operation()).isEqualTo("rewrite");
        ds.updateConfig(java.util.Map.of("owner", "test"), Set.of());
        Tables.append(ds, allocator, next, 3);
        next += 3;
        seen.addAll(take(it, 3));
        assertThat(seen).hasSize((int) next);

        long overwritten = Tables.overwrite(ds, allocator, 1000, 5);
        List<Long> after = new ArrayList<>();
        Throwable failure = null;
        try {
          while (it.hasNext()) {
            after.add(it.next().getLong(0));
          }
        } catch (RuntimeException e) {
          failure = e;
        }
        assertThat(after).as("nothing more, and nothing again").isEmpty();
        assertThat(failure).as("the job fails").isNotNull();
        QuiverSourceException cause = findCause(failure, QuiverSourceException.class);
        assertThat(cause).as("the cause chain of " + failure).isNotNull();
        assertThat(cause.version()).isEqualTo(overwritten);
        assertThat(cause.operation()).isEqualTo("overwrite");
        assertThat(cause.getMessage()).contains(uri).contains("version " + overwritten)
            .contains("'overwrite'").contains("version(" + overwritten + ")");
      } finally {
        it.close();
      }
      assertThat(seen.stream().sorted().toList()).isEqualTo(range(0, seen.size()));
      assertThat(new HashSet<>(seen)).hasSize(seen.size());
    } finally {
      ds.close();
    }
  }

  static <T extends Throwable> T findCause(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
      for (Throwable s : c.getSuppressed()) {
        T found = findCause(s, type);
        if (found != null) {
          return found;
        }
      }
    }
    return null;
  }
}
