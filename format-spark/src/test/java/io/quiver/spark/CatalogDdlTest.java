package io.quiver.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.dataset.Dataset;
import java.util.List;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class CatalogDdlTest {
  static SparkTests spark;

  @BeforeAll
  static void start() {
    spark = SparkTests.start();
  }

  @AfterAll
  static void stop() {
    spark.close();
  }

  private String uri(String ns, String table) {
    return spark.warehouse().resolve(ns).resolve(table).toUri().toString();
  }

  @Test
  void createAlterShowAndDropATable() {
    spark.spark().sql("CREATE TABLE quiver.db.events (id BIGINT NOT NULL, name STRING, score DOUBLE)"
        + " TBLPROPERTIES ('idempotence.retention' = 'P3D')");
    try (Dataset ds = Dataset.open(uri("db", "events"))) {
      assertThat(ds.schema().fields()).extracting(f -> f.name()).containsExactly("id", "name", "score");
      assertThat(ds.config()).containsEntry("idempotence.retention", "P3D");
    }
    List<Row> props = spark.spark().sql("SHOW TBLPROPERTIES quiver.db.events").collectAsList();
    assertThat(props).extracting(r -> r.getString(0) + "=" + r.getString(1))
        .contains("idempotence.retention=P3D");
    assertThat(spark.spark().sql("SHOW TABLES IN quiver.db").collectAsList())
        .extracting(r -> r.getString(1)).containsExactly("events");

    spark.spark().sql("ALTER TABLE quiver.db.events ADD COLUMN tag STRING");
    spark.spark().sql("ALTER TABLE quiver.db.events RENAME COLUMN name TO label");
    spark.spark().sql("ALTER TABLE quiver.db.events DROP COLUMN score");
    try (Dataset ds = Dataset.open(uri("db", "events"))) {
      assertThat(ds.schema().fields()).extracting(f -> f.name()).containsExactly("id", "label", "tag");
    }
    assertThat(spark.spark().table("quiver.db.events").schema().fieldNames()).containsExactly("id", "label", "tag");

    spark.spark().sql("DROP TABLE quiver.db.events");
    assertThat(spark.spark().sql("SHOW TABLES IN quiver.db").collectAsList()).isEmpty();
    assertThatThrownBy(() -> Dataset.open(uri("db", "events")))
        .isInstanceOf(io.quiver.exceptions.QuiverException.class);
  }

  @Test
  void partitionedTablesAreRefusedWithTheReason() {
    assertThatThrownBy(() -> spark.spark().sql("CREATE TABLE quiver.db.p (id BIGINT, d STRING) PARTITIONED BY (d)"))
        .hasMessageContaining("not partitioned");
  }

  private static java.util.List<String> rows(String sql) {
    return spark.spark().sql(sql).collectAsList().stream().map(Row::toString).toList();
  }

  @Test
  void replaceTableAsSelectIsOneOverwriteAndAFailedOneLeavesTheTableAsItWas() {
    spark.spark().sql("CREATE TABLE quiver.rtas.t AS SELECT id, CAST(id AS STRING) AS name FROM range(3)");
    long created;
    try (Dataset ds = Dataset.open(uri("rtas", "t"))) {
      created = ds.version();
    }
    spark.spark().sql("REPLACE TABLE quiver.rtas.t AS SELECT id + 10 AS id, 'new' AS name FROM range(2)");
    assertThat(rows("SELECT * FROM quiver.rtas.t ORDER BY id")).containsExactly("[10,new]", "[11,new]");
    try (Dataset ds = Dataset.open(uri("rtas", "t"))) {
      assertThat(ds.version()).isEqualTo(created + 1);   // one commit, history kept
    }
    assertThat(rows("SELECT * FROM quiver.rtas.t VERSION AS OF " + created + " ORDER BY id"))
        .containsExactly("[0,0]", "[1,1]", "[2,2]");

    // A query that fails half-way: the table keeps every row it had (Spark's non-staged REPLACE drops it first).
    assertThatThrownBy(() -> spark.spark().sql("REPLACE TABLE quiver.rtas.t AS SELECT id,"
        + " CAST(IF(id = 3, raise_error('boom'), 'x') AS STRING) AS name FROM range(5)"))
        .hasMessageContaining("boom");
    assertThat(rows("SELECT * FROM quiver.rtas.t ORDER BY id")).containsExactly("[10,new]", "[11,new]");

    // Another schema cannot be swapped in atomically: refused before anything is written.
    assertThatThrownBy(() -> spark.spark().sql("REPLACE TABLE quiver.rtas.t AS SELECT id, 1.5D AS score FROM range(2)"))
        .isInstanceOf(io.quiver.exceptions.SchemaMismatchException.class)
        .hasMessageContaining("would change its schema").hasMessageContaining("Nothing was changed");
    assertThat(rows("SELECT * FROM quiver.rtas.t ORDER BY id")).containsExactly("[10,new]", "[11,new]");

    spark.spark().sql("CREATE OR REPLACE TABLE quiver.rtas.fresh AS SELECT id FROM range(4)");
    assertThat(rows("SELECT count(*) FROM quiver.rtas.fresh")).containsExactly("[4]");
  }
}
