package io.quiver.flink.table;

import static io.quiver.flink.table.SqlFixtures.quote;
import static io.quiver.flink.table.SqlFixtures.rows;
import static io.quiver.flink.table.SqlFixtures.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.dataset.Dataset;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writing Quiver tables from Flink SQL: upserts through a declared primary key (batch and streaming, an
 * aggregation's updates), insert-only appends at the end of a bounded streaming job, and the errors a user
 * meets: an unknown option, no path, a column the table lacks or types differently, a changelog into a table
 * without a primary key.
 */
class QuiverSqlWriteTest {
  @RegisterExtension
  static final MiniClusterExtension CLUSTER = SqlFixtures.cluster();

  @TempDir
  Path dir;

  private String uri(String name) {
    return dir.resolve(name).toUri().toString();
  }

  private static String with(String uri) {
    return " WITH ('connector' = 'quiver', 'path' = " + quote(uri) + ", 'local.fsync' = 'false')";
  }

  private static final String EVENTS = "(VALUES (1, 'a'), (2, 'b'), (1, 'c'), (3, 'd'), (1, 'e'), (2, 'f'))"
      + " AS e(k, v)";

  @Test
  void batchUpsertsLeaveOneRowPerKey() {
    TableEnvironment t = SqlFixtures.batch();
    String uri = uri("counts");
    t.executeSql("CREATE TABLE counts (k INT NOT NULL, n BIGINT, last_v STRING, PRIMARY KEY (k) NOT ENFORCED)"
        + with(uri));
    run(t, "INSERT INTO counts SELECT k, COUNT(*), MAX(v) FROM " + EVENTS + " GROUP BY k");
    assertThat(rows(t, "SELECT * FROM counts ORDER BY k"))
        .containsExactly(Row.of(1, 3L, "e"), Row.of(2, 2L, "f"), Row.of(3, 1L, "d"));
    // A second job upserts over the first one's rows: key 1 replaced, key 4 added, keys 2 and 3 kept.
    run(t, "INSERT INTO counts VALUES (1, 10, 'z'), (4, 1, 'y')");
    assertThat(rows(t, "SELECT * FROM counts ORDER BY k"))
        .containsExactly(Row.of(1, 10L, "z"), Row.of(2, 2L, "f"), Row.of(3, 1L, "d"), Row.of(4, 1L, "y"));
    try (Dataset ds = Dataset.open(uri, TableFixtures.options())) {
      assertThat(ds.versions().get(0).operation()).isEqualTo("row-delta");
      assertThat(ds.countRows()).isEqualTo(4);
    }
  }

  @Test
  void upsertsIntoATableWithRowIdsKeepTheIdOfTheRowTheyReplace() throws Exception {
    TableEnvironment t = SqlFixtures.batch();
    String uri = uri("tracked");
    t.executeSql("CREATE TABLE tracked (k INT NOT NULL, n BIGINT, last_v STRING, PRIMARY KEY (k) NOT ENFORCED)"
        + with(uri));
    run(t, "INSERT INTO tracked VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 1, 'c')");
    long first;
    try (Dataset ds = Dataset.open(uri, TableFixtures.options())) {
      ds.updateConfig(java.util.Map.of("row-ids", "true"), java.util.Set.of());
      first = ds.version();
    }
    run(t, "INSERT INTO tracked VALUES (1, 10, 'z'), (4, 1, 'y')"); // key 1 replaced, key 4 added
    try (Dataset ds = Dataset.open(uri, TableFixtures.options())) {
      java.util.Map<Integer, long[]> lineage = new java.util.TreeMap<>();
      try (org.apache.arrow.vector.ipc.ArrowReader r = ds.newScan().columns("k").withRowLineage(true).open()) {
        while (r.loadNextBatch()) {
          var root = r.getVectorSchemaRoot();
          for (int i = 0; i < root.getRowCount(); i++) {
            lineage.put((Integer) root.getVector(0).getObject(i), new long[] {(Long) root.getVector(1).getObject(i),
                (Long) root.getVector(2).getObject(i), (Long) root.getVector(3).getObject(i)});
          }
        }
      }
      try (Dataset before = ds.checkout(first)) {
        long idOfKey1;
        try (org.apache.arrow.vector.ipc.ArrowReader r = before.newScan().columns("k")
            .filter(io.quiver.predicate.Predicate.eq("k", 1)).withRowLineage(true).open()) {
          r.loadNextBatch();
          idOfKey1 = (Long) r.getVectorSchemaRoot().getVector(1).getObject(0);
        }
        assertThat(lineage.get(1)).as("key 1 keeps its row id, updated by the upsert")
            .containsExactly(idOfKey1, first, ds.version());
      }
      assertThat(lineage.get(4)[1]).isEqualTo(ds.version());
      assertThat(io.quiver.scenario.RowIdScenarios.feed(ds.changes(first, ds.version())))
          .extracting(c -> c.type()).containsExactlyInAnyOrder("update_preimage", "update_postimage", "insert");
    }
  }

  @Test
  void aStreamingAggregationsUpdatesAreUpsertedAndTheEndOfInputCommits() {
    StreamTableEnvironment t = SqlFixtures.streaming(100);
    String uri = uri("stream-counts");
    t.executeSql("CREATE TABLE counts (k INT NOT NULL, n BIGINT, PRIMARY KEY (k) NOT ENFORCED)" + with(uri));
    run(t, "INSERT INTO counts SELECT k, COUNT(*) FROM " + EVENTS + " GROUP BY k");
    TableEnvironment b = SqlFixtures.batch();
    b.executeSql("CREATE TABLE counts (k INT NOT NULL, n BIGINT) " + with(uri));
    assertThat(rows(b, "SELECT * FROM counts ORDER BY k")).containsExactly(Row.of(1, 3L), Row.of(2, 2L),
        Row.of(3, 1L));
  }

  @Test
  void aBoundedStreamingInsertIsAppendedOnceAtItsEnd() {
    StreamTableEnvironment t = SqlFixtures.streaming(100);
    String uri = uri("appends");
    t.executeSql("CREATE TABLE appends (k INT, v STRING)" + with(uri));
    run(t, "INSERT INTO appends SELECT k, v FROM " + EVENTS);
    run(t, "INSERT INTO appends SELECT k, v FROM " + EVENTS);
    TableEnvironment b = SqlFixtures.batch();
    b.executeSql("CREATE TABLE appends (k INT, v STRING)" + with(uri));
    assertThat(rows(b, "SELECT COUNT(*), COUNT(DISTINCT v) FROM appends")).containsExactly(Row.of(12L, 6L));
  }

  @Test
  void aChangelogIntoATableWithoutAPrimaryKeyIsRefused() {
    StreamTableEnvironment t = SqlFixtures.streaming(0);
    t.executeSql("CREATE TABLE plain (k INT, n BIGINT)" + with(uri("plain")));
    assertThatThrownBy(() -> t.executeSql("INSERT INTO plain SELECT k, COUNT(*) FROM " + EVENTS + " GROUP BY k"))
        .hasMessageContaining("has no PRIMARY KEY")
        .hasMessageContaining("Declare PRIMARY KEY (...) NOT ENFORCED");
  }

  @Test
  void anUnknownOptionIsRefusedWithTheValidOnes() {
    TableEnvironment t = SqlFixtures.batch();
    String uri = uri("typo");
    TableFixtures.create(uri, 3);
    t.executeSql("CREATE TABLE typo (id BIGINT, name STRING) WITH ('connector' = 'quiver', 'path' = " + quote(uri)
        + ", 'scan.modee' = 'follow')");
    assertThatThrownBy(() -> rows(t, "SELECT * FROM typo"))
        .rootCause().hasMessageContaining("Unsupported options").hasMessageContaining("scan.modee")
        .hasMessageContaining("scan.mode");
  }

  @Test
  void aMissingPathIsRefused() {
    TableEnvironment t = SqlFixtures.batch();
    t.executeSql("CREATE TABLE nopath (id BIGINT) WITH ('connector' = 'quiver')");
    assertThatThrownBy(() -> rows(t, "SELECT * FROM nopath"))
        .rootCause().hasMessageContaining("Missing required options").hasMessageContaining("path");
  }

  @Test
  void aSourceOnAPathWithoutATableIsRefused() {
    TableEnvironment t = SqlFixtures.batch();
    t.executeSql("CREATE TABLE absent (id BIGINT)" + with(uri("absent")));
    assertThatThrownBy(() -> rows(t, "SELECT * FROM absent"))
        .hasStackTraceContaining("no table is there").hasStackTraceContaining("Check 'path'");
  }

  @Test
  void aColumnTheTableLacksOrTypesDifferentlyIsNamed() {
    TableEnvironment t = SqlFixtures.batch();
    String uri = uri("schema");
    TableFixtures.create(uri, 3);
    t.executeSql("CREATE TABLE extra (id BIGINT, name STRING, age INT)" + with(uri));
    assertThatThrownBy(() -> rows(t, "SELECT * FROM extra"))
        .rootCause().hasMessageContaining("declares column 'age'").hasMessageContaining("has no such column")
        .hasMessageContaining("id BIGINT NOT NULL, name STRING");
    t.executeSql("CREATE TABLE retyped (id INT, name STRING)" + with(uri));
    assertThatThrownBy(() -> run(t, "INSERT INTO retyped VALUES (1, 'x')"))
        .rootCause().hasMessageContaining("declares column 'id' as INT").hasMessageContaining("it is BIGINT NOT NULL")
        .hasMessageContaining("Declare it as BIGINT");
    // VARCHAR(n) and nullability are not differences: Quiver stores every string as utf8.
    t.executeSql("CREATE TABLE narrow (id BIGINT, name VARCHAR(5))" + with(uri));
    assertThat(rows(t, "SELECT COUNT(*) FROM narrow")).containsExactly(Row.of(3L));
    // A sink must write every NOT NULL column.
    t.executeSql("CREATE TABLE partial (name STRING)" + with(uri));
    assertThatThrownBy(() -> run(t, "INSERT INTO partial VALUES ('x')"))
        .rootCause().hasMessageContaining("NOT NULL column 'id'");
  }

  @Test
  void anUpsertTableMustDeclareEveryColumn() {
    TableEnvironment t = SqlFixtures.batch();
    String uri = uri("wide");
    t.executeSql("CREATE TABLE wide (k INT NOT NULL, a STRING, b STRING, PRIMARY KEY (k) NOT ENFORCED)" + with(uri));
    run(t, "INSERT INTO wide VALUES (1, 'a', 'b')");
    t.executeSql("CREATE TABLE narrow (k INT NOT NULL, a STRING, PRIMARY KEY (k) NOT ENFORCED)" + with(uri));
    assertThatThrownBy(() -> run(t, "INSERT INTO narrow VALUES (1, 'x')"))
        .rootCause().hasMessageContaining("upsert").hasMessageContaining("'b'");
    assertThat(rows(t, "SELECT * FROM wide")).containsExactly(Row.of(1, "a", "b"));
  }

}
