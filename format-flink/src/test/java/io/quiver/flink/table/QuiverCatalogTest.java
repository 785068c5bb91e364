package io.quiver.flink.table;

import static io.quiver.flink.table.SqlFixtures.quote;
import static io.quiver.flink.table.SqlFixtures.rows;
import static io.quiver.flink.table.SqlFixtures.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.VersionInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Quiver catalog as a SQL user meets it: {@code CREATE CATALOG … WITH ('type' = 'quiver')}, databases as
 * prefixes of the warehouse, tables created, written, upserted, altered, read as of a time and dropped; and the
 * statements a Quiver table cannot honour, refused with what to do instead.
 */
class QuiverCatalogTest {
  @RegisterExtension
  static final MiniClusterExtension CLUSTER = SqlFixtures.cluster();

  @TempDir
  Path dir;

  private TableEnvironment t;

  private Path warehouse() {
    return dir.resolve("warehouse");
  }

  @BeforeEach
  void createCatalog() {
    t = SqlFixtures.batch();
    t.getConfig().set("table.local-time-zone", "UTC");
    t.executeSql("CREATE CATALOG q WITH ('type' = 'quiver', 'warehouse' = " + quote(warehouse().toUri().toString())
        + ", 'local.fsync' = 'false')");
    t.executeSql("USE CATALOG q");
  }

  private static List<String> column(TableEnvironment t, String query) {
    return rows(t, query).stream().map(r -> String.valueOf(r.getField(0))).toList();
  }

  @Test
  void tablesCreatedInTheCatalogAreQuiverTablesUnderTheWarehouse() throws Exception {
    assertThat(column(t, "SHOW DATABASES")).containsExactly("default");
    t.executeSql("CREATE DATABASE sales");
    assertThat(column(t, "SHOW DATABASES")).containsExactly("default", "sales");
    t.executeSql("USE sales");
    t.executeSql("CREATE TABLE orders (id BIGINT NOT NULL, customer STRING, amount DECIMAL(10, 2),"
        + " PRIMARY KEY (id) NOT ENFORCED) COMMENT 'one row per order' WITH ('sink.roll-rows' = '1000')");
    assertThat(column(t, "SHOW TABLES")).containsExactly("orders");
    run(t, "INSERT INTO orders VALUES (1, 'ann', 10.50), (2, 'bob', 3.00)");
    run(t, "INSERT INTO orders VALUES (2, 'bob', 4.25), (3, 'cy', 7.00)"); // upsert by the declared key
    assertThat(rows(t, "SELECT id, customer, CAST(amount AS STRING) FROM orders ORDER BY id")).containsExactly(
        Row.of(1L, "ann", "10.50"), Row.of(2L, "bob", "4.25"), Row.of(3L, "cy", "7.00"));

    // The same table through the Java API at <warehouse>/sales/orders, with the key and options as config.
    String uri = warehouse().resolve("sales").resolve("orders").toUri().toString();
    try (Dataset ds = Dataset.open(uri, TableFixtures.options())) {
      assertThat(ds.countRows()).isEqualTo(3);
      assertThat(ds.config()).containsEntry(QuiverCatalog.PRIMARY_KEY, "id").containsEntry("sink.roll-rows", "1000")
          .containsEntry(QuiverCatalog.COMMENT, "one row per order");
    }
    // A fresh session sees the key and the comment the catalog stored.
    TableEnvironment other = SqlFixtures.batch();
    other.executeSql("CREATE CATALOG q WITH ('type' = 'quiver', 'warehouse' = "
        + quote(warehouse().toUri().toString()) + ", 'local.fsync' = 'false')");
    String ddl = String.valueOf(rows(other, "SHOW CREATE TABLE q.sales.orders").get(0).getField(0));
    assertThat(ddl).contains("PRIMARY KEY (`id`) NOT ENFORCED").contains("COMMENT 'one row per order'")
        .contains("'sink.roll-rows' = '1000'");
    assertThat(rows(other, "SELECT COUNT(*) FROM q.sales.orders")).containsExactly(Row.of(3L));
  }

  @Test
  void alterTableEvolvesTheQuiverSchemaAndOptions() {
    t.executeSql("CREATE TABLE people (id INT NOT NULL, name STRING NOT NULL)");
    run(t, "INSERT INTO people VALUES (1, 'ann')");
    t.executeSql("ALTER TABLE people ADD email STRING");
    run(t, "INSERT INTO people VALUES (2, 'bob', 'bob@example.com')");
    assertThat(rows(t, "SELECT * FROM people ORDER BY id")).containsExactly(Row.of(1, "ann", null),
        Row.of(2, "bob", "bob@example.com"));

    t.executeSql("ALTER TABLE people RENAME email TO mail");
    t.executeSql("ALTER TABLE people MODIFY name STRING"); // nullability only
    run(t, "INSERT INTO people VALUES (3, CAST(NULL AS STRING), 'x@example.com')");
    assertThat(rows(t, "SELECT id, name, mail FROM people ORDER BY id")).containsExactly(Row.of(1, "ann", null),
        Row.of(2, "bob", "bob@example.com"), Row.of(3, null, "x@example.com"));

    t.executeSql("ALTER TABLE people DROP mail");
    t.executeSql("ALTER TABLE people SET ('sink.roll-rows' = '50')");
    assertThat(rows(t, "SELECT * FROM people ORDER BY id")).containsExactly(Row.of(1, "ann"), Row.of(2, "bob"),
        Row.of(3, null));
    String uri = warehouse().resolve("default").resolve("people").toUri().toString();
    try (Dataset ds = Dataset.open(uri, TableFixtures.options())) {
      assertThat(ds.schema().fields()).extracting(f -> f.name()).containsExactly("id", "name");
      assertThat(ds.config()).containsEntry("sink.roll-rows", "50");
    }
    t.executeSql("ALTER TABLE people RESET ('sink.roll-rows')");
    try (Dataset ds = Dataset.open(uri, TableFixtures.options())) {
      assertThat(ds.config()).doesNotContainKey("sink.roll-rows");
    }

    // A primary key added later turns inserts into upserts.
    t.executeSql("ALTER TABLE people ADD PRIMARY KEY (id) NOT ENFORCED");
    run(t, "INSERT INTO people VALUES (1, 'anne')");
    assertThat(rows(t, "SELECT * FROM people ORDER BY id")).containsExactly(Row.of(1, "anne"), Row.of(2, "bob"),
        Row.of(3, null));
    assertThatThrownBy(() -> t.executeSql("ALTER TABLE people DROP id")).hasStackTraceContaining(
        "is used as the primary key");
  }

  @Test
  void timeTravelReadsTheVersionCommittedAtOrBeforeTheInstant() {
    t.executeSql("CREATE TABLE events (id INT, v STRING)");
    run(t, "INSERT INTO events VALUES (1, 'a')");
    run(t, "INSERT INTO events VALUES (2, 'b')");
    String uri = warehouse().resolve("default").resolve("events").toUri().toString();
    VersionInfo first;
    VersionInfo second;
    try (Dataset ds = Dataset.open(uri, TableFixtures.options())) {
      List<VersionInfo> versions = ds.versions().stream().sorted(Comparator.comparingLong(VersionInfo::version))
          .toList();
      first = versions.get(versions.size() - 2);
      second = versions.get(versions.size() - 1);
    }
    assertThat(second.timestamp()).as("two Flink jobs apart").isAfter(first.timestamp());
    DateTimeFormatter f = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);
    assertThat(rows(t, "SELECT id FROM events FOR SYSTEM_TIME AS OF TIMESTAMP '" + f.format(first.timestamp())
        + "'")).containsExactly(Row.of(1));
    assertThat(rows(t, "SELECT id FROM events FOR SYSTEM_TIME AS OF TIMESTAMP '" + f.format(second.timestamp())
        + "' ORDER BY id")).containsExactly(Row.of(1), Row.of(2));
  }

  @Test
  void dropTableAndDropDatabaseCascadeRemoveTheirObjects() throws Exception {
    t.executeSql("CREATE DATABASE scratch");
    t.executeSql("CREATE TABLE scratch.a (id INT)");
    t.executeSql("CREATE TABLE scratch.b (id INT)");
    run(t, "INSERT INTO scratch.a VALUES (1)");
    assertThat(column(t, "SHOW TABLES IN scratch")).containsExactly("a", "b");
    t.executeSql("DROP TABLE scratch.a");
    assertThat(column(t, "SHOW TABLES IN scratch")).containsExactly("b");
    try (var files = Files.walk(warehouse().resolve("scratch").resolve("a"))) {
      assertThat(files.filter(Files::isRegularFile)).as("objects left of the dropped table").isEmpty();
    }
    t.executeSql("CREATE TABLE scratch.a (other STRING)"); // the name is free again
    assertThat(rows(t, "SELECT * FROM scratch.a")).isEmpty();
    assertThatThrownBy(() -> t.executeSql("DROP DATABASE scratch")).hasStackTraceContaining("is not empty");
    t.executeSql("DROP DATABASE scratch CASCADE");
    assertThat(column(t, "SHOW DATABASES")).containsExactly("default");
    assertThatThrownBy(() -> rows(t, "SELECT * FROM scratch.b")).hasStackTraceContaining("scratch");
  }

  @Test
  void statementsAQuiverTableCannotHonourAreRefusedWithWhatToDo() {
    t.executeSql("CREATE TABLE base (id INT, v STRING, ts TIMESTAMP(3))");
    assertThatThrownBy(() -> t.executeSql("CREATE TABLE p (id INT, d STRING) PARTITIONED BY (d)"))
        .hasStackTraceContaining("Quiver tables have no partitions");
    assertThatThrownBy(() -> t.executeSql("CREATE TABLE w (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)"))
        .hasStackTraceContaining("CREATE TEMPORARY TABLE");
    assertThatThrownBy(() -> t.executeSql("CREATE TABLE elsewhere (id INT) WITH ('path' = '/tmp/x')"))
        .hasStackTraceContaining("'connector' = 'quiver' and 'path'");
    assertThatThrownBy(() -> t.executeSql("CREATE TABLE creds (id INT) WITH ('s3.secret-key' = 'x')"))
        .hasStackTraceContaining("store options belong to the catalog");
    assertThatThrownBy(() -> t.executeSql("CREATE TABLE k (f DOUBLE NOT NULL, PRIMARY KEY (f) NOT ENFORCED)"))
        .hasStackTraceContaining("cannot be a key");
    assertThatThrownBy(() -> t.executeSql("ALTER TABLE base RENAME TO base2"))
        .hasStackTraceContaining("cannot be renamed");
    assertThatThrownBy(() -> t.executeSql("ALTER TABLE base MODIFY id BIGINT"))
        .hasStackTraceContaining("does not change a column's type");
    assertThatThrownBy(() -> t.executeSql("ALTER TABLE base ADD n INT NOT NULL"))
        .hasStackTraceContaining("existing rows would have no value");
    assertThatThrownBy(() -> t.executeSql("ALTER TABLE base ADD n INT FIRST"))
        .hasStackTraceContaining("Quiver adds columns at the end");
    assertThatThrownBy(() -> t.executeSql("CREATE DATABASE _hidden"))
        .hasStackTraceContaining("not start with '_'");
    // The table refused above was never created; the one that was is untouched.
    assertThat(column(t, "SHOW TABLES")).containsExactly("base");
    assertThat(rows(t, "DESCRIBE base")).extracting(r -> r.getField(0)).containsExactly("id", "v", "ts");
  }

  @Test
  void theCatalogFactoryRefusesUnknownOptionsAndNeedsAWarehouse() {
    TableEnvironment b = SqlFixtures.batch();
    assertThatThrownBy(() -> b.executeSql("CREATE CATALOG bad WITH ('type' = 'quiver')"))
        .isInstanceOf(ValidationException.class).hasStackTraceContaining("warehouse");
    assertThatThrownBy(() -> b.executeSql("CREATE CATALOG bad WITH ('type' = 'quiver', 'warehouse' = '/tmp/w',"
        + " 'warehuose' = 'x')")).hasStackTraceContaining("warehuose");
  }
}
