package io.quiver.flink.table;

import static io.quiver.flink.table.SqlFixtures.quote;
import static io.quiver.flink.table.SqlFixtures.rows;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.Dataset;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading Quiver tables from Flink SQL: projection, filters and limits pushed into Quiver's scan (proven by the
 * scan's own counters, reported as Flink metrics), time travel by version, tag and timestamp, and follow mode
 * seeing appends made after the query started.
 */
class QuiverSqlReadTest {
  static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = SqlFixtures.cluster(REPORTER.addToConfiguration(new Configuration()));

  @TempDir
  Path dir;

  private String uri;

  /** Ten fragments of 100 rows: ids 0..999, fragment f holding [100 f, 100 f + 100). */
  @BeforeEach
  void table() {
    uri = dir.resolve("t").toUri().toString();
    TableFixtures.create(uri, 100);
    for (int f = 1; f < 10; f++) {
      TableFixtures.append(uri, 100L * f, 100);
    }
  }

  private void declare(TableEnvironment t, String name, String extra) {
    t.executeSql("CREATE TABLE " + name + " (id BIGINT NOT NULL, name STRING) WITH ('connector' = 'quiver',"
        + " 'path' = " + quote(uri) + ", 'local.fsync' = 'false'" + extra + ")");
  }

  private static long metric(JobID job, String name) {
    long sum = 0;
    for (Metric m : REPORTER.findMetrics(job, name).values()) {
      sum += ((Number) ((Gauge<?>) m).getValue()).longValue();
    }
    return sum;
  }

  private static List<Row> collect(TableResult r) throws Exception {
    List<Row> out = new ArrayList<>();
    try (CloseableIterator<Row> it = r.collect()) {
      it.forEachRemaining(out::add);
    }
    return out;
  }

  @Test
  void filterProjectionAndLimitArePushedIntoTheScan() throws Exception {
    TableEnvironment t = SqlFixtures.batch();
    declare(t, "t", "");
    String query = "SELECT name FROM t WHERE id >= 250 AND id < 260";
    assertThat(t.explainSql(query)).contains("filter=[and(>=(id, 250), <(id, 260))], project=[name]");
    TableResult r = t.executeSql(query);
    List<Row> rows = collect(r);
    JobID job = r.getJobClient().orElseThrow().getJobID();
    assertThat(rows).extracting(row -> row.getField(0))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(250, 260).mapToObj(i -> "n" + i).toList());
    // The statistics ruled out 9 of the 10 fragments at planning; one task read 10 rows.
    assertThat(metric(job, "quiverFragmentsConsidered")).isEqualTo(10);
    assertThat(metric(job, "quiverFragmentsPruned")).isEqualTo(9);
    assertThat(metric(job, "quiverTasksPlanned")).isEqualTo(1);
    assertThat(metric(job, "quiverRowsReturned")).isEqualTo(10);

    // A filter Quiver cannot evaluate stays with the planner; the results are still exact.
    List<Row> like = rows(t, "SELECT id FROM t WHERE name LIKE 'n99%' AND id > 900");
    assertThat(like).extracting(row -> row.getField(0)).containsExactlyInAnyOrder(990L, 991L, 992L, 993L, 994L,
        995L, 996L, 997L, 998L, 999L);

    TableResult limited = t.executeSql("SELECT id FROM t LIMIT 5");
    assertThat(collect(limited)).hasSize(5);
    JobID limitJob = limited.getJobClient().orElseThrow().getJobID();
    long tasks = metric(limitJob, "quiverTasksPlanned");
    assertThat(metric(limitJob, "quiverRowsReturned")).isLessThanOrEqualTo(5 * tasks).isLessThan(1000);
  }

  @Test
  void nestedProjectionReadsOnlyTheStructMembersAsked() throws Exception {
    String nested = dir.resolve("nested").toUri().toString();
    TableEnvironment t = SqlFixtures.batch();
    t.executeSql("CREATE TABLE n (id BIGINT, s ROW<x INT, y STRING, z DOUBLE>) WITH ('connector' = 'quiver', 'path' = "
        + quote(nested) + ")");
    SqlFixtures.run(t, "INSERT INTO n VALUES (1, ROW(10, 'a', 1.5)), (2, ROW(20, 'b', 2.5)), (3, CAST(NULL AS"
        + " ROW<x INT, y STRING, z DOUBLE>))");
    List<Row> rows = rows(t, "SELECT id, n.s.y, n.s.x + 1 FROM n ORDER BY id");
    assertThat(rows).containsExactly(Row.of(1L, "a", 11), Row.of(2L, "b", 21), Row.of(3L, null, null));
    assertThat(t.explainSql("SELECT n.s.y FROM n")).contains("s_y");
  }

  @Test
  void timeTravelByVersionTagAndTimestamp() throws Exception {
    TableEnvironment t = SqlFixtures.batch();
    declare(t, "t", "");
    long v;
    Instant at;
    long atThree;
    try (Dataset ds = Dataset.open(uri, TableFixtures.options()); Dataset three = ds.checkout(3)) {
      v = ds.version();
      at = ds.versionInfo(3).timestamp();
      ds.tags().create("three", 3);
      atThree = three.countRows();
    }
    assertThat(atThree).isBetween(100L, 900L);
    TableFixtures.append(uri, 1000, 50);
    assertThat(rows(t, "SELECT COUNT(*) FROM t")).containsExactly(Row.of(1050L));
    assertThat(rows(t, "SELECT COUNT(*) FROM t /*+ OPTIONS('scan.version' = '" + v + "') */"))
        .containsExactly(Row.of(1000L));
    assertThat(rows(t, "SELECT COUNT(*) FROM t /*+ OPTIONS('scan.tag' = 'three') */"))
        .containsExactly(Row.of(atThree));
    assertThat(rows(t, "SELECT COUNT(*) FROM t /*+ OPTIONS('scan.timestamp' = '" + at + "') */"))
        .containsExactly(Row.of(atThree));
    assertThat(rows(t, "SELECT COUNT(*) FROM t /*+ OPTIONS('scan.timestamp' = '" + at.toEpochMilli() + "') */"))
        .containsExactly(Row.of(atThree));
  }

  @Test
  void followModeEmitsTheRowsOfLaterAppends() throws Exception {
    StreamTableEnvironment t = SqlFixtures.streaming(0);
    declare(t, "t", ", 'scan.mode' = 'follow', 'scan.follow.interval' = '50ms'");
    TableResult r = t.executeSql("SELECT id FROM t WHERE id >= 990");
    List<Long> seen = new ArrayList<>();
    try (CloseableIterator<Row> it = r.collect()) {
      while (seen.size() < 10) {
        seen.add((Long) it.next().getField(0));
      }
      TableFixtures.append(uri, 2000, 5);      // ids 2000..2004: all pass the filter
      TableFixtures.append(uri, 5, 3);         // ids 5..7: filtered out
      TableFixtures.append(uri, 3000, 2);
      while (seen.size() < 17) {
        seen.add((Long) it.next().getField(0));
      }
    }
    assertThat(seen).containsExactlyInAnyOrder(990L, 991L, 992L, 993L, 994L, 995L, 996L, 997L, 998L, 999L,
        2000L, 2001L, 2002L, 2003L, 2004L, 3000L, 3001L);
  }

  @Test
  void changelogModeEmitsEveryLaterChangeWithItsRowKind() throws Exception {
    try (io.quiver.dataset.Dataset ds = io.quiver.dataset.Dataset.open(uri, TableFixtures.options())) {
      ds.updateConfig(java.util.Map.of("row-ids", "true"), java.util.Set.of());
    }
    StreamTableEnvironment t = SqlFixtures.streaming(0);
    declare(t, "t", ", 'scan.mode' = 'changelog', 'scan.follow.interval' = '50ms'");
    TableResult r = t.executeSql("SELECT id, name FROM t WHERE id < 3 OR id >= 5000");
    List<String> seen = new ArrayList<>();
    try (CloseableIterator<Row> it = r.collect()) {
      while (seen.size() < 3) {
        Row row = it.next();
        seen.add(row.getKind().shortString() + row.getField(0));
      }
      try (io.quiver.dataset.Dataset ds = io.quiver.dataset.Dataset.open(uri, TableFixtures.options())) {
        ds.update(io.quiver.predicate.Predicate.eq("id", 1L), java.util.Map.of("name", "one"));
        ds.delete(io.quiver.predicate.Predicate.eq("id", 2L));
      }
      TableFixtures.append(uri, 5000, 2);
      while (seen.size() < 3 + 2 + 1 + 2) {
        Row row = it.next();
        seen.add(row.getKind().shortString() + row.getField(0) + (row.getField(0).equals(1L) ? ":" + row.getField(1) : ""));
      }
    }
    assertThat(seen.subList(0, 3)).containsExactlyInAnyOrder("+I0", "+I1", "+I2");
    assertThat(seen.subList(3, 8)).containsExactly("-U1:n1", "+U1:one", "-D2", "+I5000", "+I5001");
  }
}
