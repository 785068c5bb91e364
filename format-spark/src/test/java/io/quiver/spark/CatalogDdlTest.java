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
}
