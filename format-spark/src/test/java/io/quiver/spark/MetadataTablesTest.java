package io.quiver.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.VersionInfo;
import java.util.List;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A table's history from SQL: the metadata tables {@code <table>.history}, {@code .versions}, {@code .fragments},
 * {@code .files} and {@code .tags}, and the procedures that act on the history (rollback, tags, cleanup).
 */
class MetadataTablesTest {
  static SparkTests spark;

  @BeforeAll
  static void start() {
    spark = SparkTests.start();
  }

  @AfterAll
  static void stop() {
    spark.close();
  }

  private static List<String> rows(String sql) {
    return spark.spark().sql(sql).collectAsList().stream().map(Row::toString).toList();
  }

  private static String uri(String ns, String table) {
    return spark.warehouse().resolve(ns).resolve(table).toUri().toString();
  }

  @Test
  void theChangeFeedAndRowLineageOfATableWithRowIdsReadFromSqlAndTheDataFrameApi() {
    spark.spark().sql("CREATE TABLE quiver.cdf.items (id BIGINT NOT NULL, name STRING) TBLPROPERTIES ('row-ids' = 'true')");
    spark.spark().sql("INSERT INTO quiver.cdf.items VALUES (1, 'a'), (2, 'b'), (3, 'c')"); // v3 (v2: the property)
    long inserted;
    try (Dataset ds = Dataset.open(uri("cdf", "items"))) {
      inserted = ds.version();
      ds.update(io.quiver.predicate.Predicate.eq("id", 2L), java.util.Map.of("name", "B")); // keeps the row id
    }
    spark.spark().sql("DELETE FROM quiver.cdf.items WHERE id = 3");
    long latest = inserted + 2;

    // the lineage as metadata columns
    assertThat(rows("SELECT id, _rowid, _row_created_at_version, _row_last_updated_at_version"
        + " FROM quiver.cdf.items ORDER BY id")).containsExactly(
            "[1,0," + inserted + "," + inserted + "]", "[2,1," + inserted + "," + (inserted + 1) + "]");

    // <table>.changes: every change the table's row ids know of
    assertThat(rows("SELECT _commit_version, _change_type, _rowid, id, name FROM quiver.cdf.items.changes"
        + " ORDER BY _commit_version, _rowid, _change_type")).containsExactly(
            "[" + inserted + ",insert,0,1,a]", "[" + inserted + ",insert,1,2,b]", "[" + inserted + ",insert,2,3,c]",
            "[" + (inserted + 1) + ",update_postimage,1,2,B]", "[" + (inserted + 1) + ",update_preimage,1,2,b]",
            "[" + latest + ",delete,2,3,c]");

    // spark.read with readChangeFeed and a range (both ends inclusive)
    List<Row> feed = spark.spark().read().format("quiver").option("readChangeFeed", "true")
        .option("startingVersion", inserted + 1).option("endingVersion", latest).load(uri("cdf", "items"))
        .select("_change_type", "id", "_commit_timestamp").collectAsList();
    assertThat(feed).extracting(r -> r.getString(0) + ":" + r.getLong(1))
        .containsExactly("update_preimage:2", "update_postimage:2", "delete:3");
    assertThat(feed.get(0).getTimestamp(2)).isNotNull();
    assertThatThrownBy(() -> spark.spark().read().format("quiver").option("readChangeFeed", "true")
        .option("startingVersion", "x").load(uri("cdf", "items")).collectAsList())
        .hasMessageContaining("startingVersion must be a version number, got 'x'");

    // Spark's UPDATE and MERGE commit row deltas whose new rows keep the ids of the rows they replace
    spark.spark().sql("UPDATE quiver.cdf.items SET name = 'A' WHERE id = 1");
    spark.spark().sql("MERGE INTO quiver.cdf.items t USING (SELECT 2L AS id, 'BB' AS name UNION ALL"
        + " SELECT 9L AS id, 'new' AS name) s ON t.id = s.id"
        + " WHEN MATCHED THEN UPDATE SET name = s.name WHEN NOT MATCHED THEN INSERT *");
    assertThat(rows("SELECT id, name, _rowid, _row_created_at_version, _row_last_updated_at_version"
        + " FROM quiver.cdf.items ORDER BY id")).containsExactly(
            "[1,A,0," + inserted + "," + (latest + 1) + "]", "[2,BB,1," + inserted + "," + (latest + 2) + "]",
            "[9,new,3," + (latest + 2) + "," + (latest + 2) + "]");
    assertThat(rows("SELECT _commit_version, _change_type, _rowid, id, name FROM quiver.cdf.items.changes"
        + " WHERE _commit_version > " + latest + " ORDER BY _commit_version, _rowid, _change_type")).containsExactly(
            "[" + (latest + 1) + ",update_postimage,0,1,A]", "[" + (latest + 1) + ",update_preimage,0,1,a]",
            "[" + (latest + 2) + ",update_postimage,1,2,BB]", "[" + (latest + 2) + ",update_preimage,1,2,B]",
            "[" + (latest + 2) + ",insert,3,9,new]");

    // a table without row ids has no change feed, and says how to get one
    spark.spark().sql("CREATE TABLE quiver.cdf.plain (id BIGINT)");
    assertThatThrownBy(() -> spark.spark().sql("SELECT * FROM quiver.cdf.plain.changes").collectAsList())
        .hasMessageContaining("has no stable row ids");
  }

  private static long versionOf(String uri) {
    try (Dataset ds = Dataset.open(uri)) {
      return ds.version();
    }
  }

  @Test
  void aBatchReadOfTheFeedPlansOnePartitionPerVersionAndNamesColumnsAsTheLatestVersion() {
    spark.spark().sql("CREATE TABLE quiver.cdf.evolving (id BIGINT NOT NULL, name STRING)"
        + " TBLPROPERTIES ('row-ids' = 'true')");
    String uri = uri("cdf", "evolving");
    spark.spark().sql("INSERT INTO quiver.cdf.evolving VALUES (1, 'a'), (2, 'b')");
    long inserted = versionOf(uri);
    spark.spark().sql("ALTER TABLE quiver.cdf.evolving ADD COLUMN score INT"); // no row changes
    spark.spark().sql("INSERT INTO quiver.cdf.evolving VALUES (3, 'c', 30)");
    spark.spark().sql("DELETE FROM quiver.cdf.evolving WHERE id = 1");
    long latest = versionOf(uri);
    org.apache.spark.sql.Dataset<Row> feed = spark.spark().read().format("quiver").option("readChangeFeed", "true")
        .option("startingVersion", inserted).load(uri);
    assertThat(feed.rdd().getNumPartitions()).isEqualTo((int) (latest - inserted + 1));
    assertThat(feed.select("_commit_version", "_change_type", "id", "name", "score").collectAsList())
        .extracting(Row::toString).containsExactly(
            "[" + inserted + ",insert,1,a,null]", "[" + inserted + ",insert,2,b,null]",
            "[" + (latest - 1) + ",insert,3,c,30]", "[" + latest + ",delete,1,a,null]");
    assertThatThrownBy(() -> spark.spark().read().format("quiver").option("readChangeFeed", "true")
        .option("startingVersion", inserted).option("endingVersion", latest + 5).load(uri).collectAsList())
        .hasMessageContaining("after the table's latest version " + latest);
  }

  /** Each micro-batch's changes by batch id: a batch Spark runs again replaces its entry, as an idempotent sink does. */
  static final java.util.Map<Long, List<String>> BATCHES = new java.util.concurrent.ConcurrentSkipListMap<>();

  /** Runs the change stream of {@code uri} until it has read every available version, from {@code checkpoint}. */
  private static void drainChangeStream(String uri, String checkpoint) throws Exception {
    org.apache.spark.sql.streaming.StreamingQuery q = spark.spark().readStream().format("quiver")
        .option("readChangeFeed", "true").load(uri)
        .writeStream().option("checkpointLocation", checkpoint)
        .trigger(org.apache.spark.sql.streaming.Trigger.AvailableNow())
        .foreachBatch((org.apache.spark.api.java.function.VoidFunction2<org.apache.spark.sql.Dataset<Row>, Long>)
            (df, id) -> BATCHES.put(id, df.selectExpr("concat(_commit_version, ' ', _change_type, ' ', id)")
                .collectAsList().stream().map(r -> r.getString(0)).sorted().toList()))
        .start();
    q.awaitTermination();
  }

  @Test
  void aStreamingQueryOverTheChangeFeedReadsEachChangeOnceAcrossRestarts() throws Exception {
    spark.spark().sql("CREATE TABLE quiver.cdf.stream (id BIGINT NOT NULL, name STRING)"
        + " TBLPROPERTIES ('row-ids' = 'true')");
    spark.spark().sql("INSERT INTO quiver.cdf.stream VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    String uri = uri("cdf", "stream");
    String checkpoint = spark.warehouse().resolve("cdf-stream-checkpoint").toString();
    BATCHES.clear();
    drainChangeStream(uri, checkpoint); // starts at the latest version: nothing yet
    long started;
    try (Dataset ds = Dataset.open(uri)) {
      started = ds.version();
    }
    spark.spark().sql("UPDATE quiver.cdf.stream SET name = 'A' WHERE id = 1");
    spark.spark().sql("DELETE FROM quiver.cdf.stream WHERE id = 2");
    drainChangeStream(uri, checkpoint); // a restart from the checkpoint: the two new versions
    spark.spark().sql("INSERT INTO quiver.cdf.stream VALUES (4, 'd')");
    drainChangeStream(uri, checkpoint);
    List<String> all = BATCHES.values().stream().flatMap(List::stream).toList();
    assertThat(all).containsExactlyInAnyOrder(
        (started + 1) + " update_preimage 1", (started + 1) + " update_postimage 1", (started + 2) + " delete 2",
        (started + 3) + " insert 4");
    assertThatThrownBy(() -> spark.spark().readStream().format("quiver").option("readChangeFeed", "true")
        .option("endingVersion", "5").load(uri).writeStream().format("console")
        .trigger(org.apache.spark.sql.streaming.Trigger.AvailableNow()).start().awaitTermination())
        .hasMessageContaining("a streaming change feed has no endingVersion");
  }

  @Test
  void historyVersionsFragmentsFilesAndTagsAreTablesOfTheCatalog() {
    spark.spark().sql("CREATE TABLE quiver.meta.events (id BIGINT NOT NULL, kind STRING)");
    spark.spark().sql("INSERT INTO quiver.meta.events VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    spark.spark().sql("INSERT INTO quiver.meta.events VALUES (4, 'd')");
    spark.spark().sql("DELETE FROM quiver.meta.events WHERE id = 2");
    List<VersionInfo> versions;
    try (Dataset ds = Dataset.open(uri("meta", "events"))) {
      versions = ds.versions().stream().sorted(java.util.Comparator.comparingLong(VersionInfo::version)).toList();
      ds.tags().create("two-inserts", versions.get(2).version());
    }
    assertThat(versions).hasSize(4); // create, two appends, a delete

    // history: the commit log, one row per version, as the Java API reports it
    List<Row> history = spark.spark().sql("SELECT version, operation, read_version, committed_at"
        + " FROM quiver.meta.events.history ORDER BY version").collectAsList();
    assertThat(history).extracting(r -> r.getLong(0)).containsExactlyElementsOf(
        versions.stream().map(VersionInfo::version).toList());
    assertThat(history).extracting(r -> r.getString(1)).containsExactlyElementsOf(
        versions.stream().map(VersionInfo::operation).toList());
    assertThat(history.get(3).getLong(2)).isEqualTo(versions.get(3).readVersion());
    assertThat(history.get(3).getTimestamp(3).toInstant()).isEqualTo(versions.get(3).timestamp());

    // versions: rows and fragments per version, the tags naming it, the latest marked
    assertThat(rows("SELECT version, rows, tags, is_latest FROM quiver.meta.events.versions ORDER BY version"))
        .containsExactly(
            "[" + versions.get(0).version() + ",0,ArraySeq(),false]",
            "[" + versions.get(1).version() + ",3,ArraySeq(),false]",
            "[" + versions.get(2).version() + ",4,ArraySeq(two-inserts),false]",
            "[" + versions.get(3).version() + ",3,ArraySeq(),true]");

    // fragments and files of the latest version, and of an earlier one by VERSION AS OF
    int fragments;
    long withDeletions;
    List<Integer> fieldIds;
    try (Dataset ds = Dataset.open(uri("meta", "events"))) {
      fragments = ds.manifest().fragments().size();
      fieldIds = ds.manifest().fragments().get(0).files().get(0).fieldIds();
      withDeletions = ds.manifest().fragments().stream().filter(f -> f.deletionFile().isPresent())
          .count();
    }
    assertThat(fragments).isGreaterThanOrEqualTo(2); // one insert per task
    assertThat(rows("SELECT SUM(live_rows), SUM(deleted_rows), COUNT(*) FROM quiver.meta.events.fragments"))
        .containsExactly("[3,1," + fragments + "]");
    assertThat(rows("SELECT kind, COUNT(*) FROM quiver.meta.events.files GROUP BY kind ORDER BY kind"))
        .containsExactly("[data," + fragments + "]", "[deletion," + withDeletions + "]");
    assertThat(withDeletions).isEqualTo(1);
    assertThat(rows("SELECT SUM(live_rows), SUM(deleted_rows) FROM quiver.meta.events.fragments VERSION AS OF "
        + versions.get(2).version())).containsExactly("[4,0]");
    long bytes = spark.spark().sql("SELECT SUM(size_bytes) FROM quiver.meta.events.files").first().getLong(0);
    assertThat(bytes).isEqualTo(spark.spark().sql("SELECT SUM(size_bytes) FROM quiver.meta.events.fragments")
        .first().getLong(0)).isPositive();
    List<Row> dataFiles = spark.spark().sql("SELECT path, field_ids FROM quiver.meta.events.files"
        + " WHERE kind = 'data'").collectAsList();
    assertThat(dataFiles).allSatisfy(r -> {
      assertThat(r.getString(0)).startsWith("data/");
      assertThat(r.<Integer>getList(1)).containsExactlyElementsOf(fieldIds).hasSize(2);
    });

    assertThat(rows("SELECT * FROM quiver.meta.events.tags"))
        .containsExactly("[two-inserts," + versions.get(2).version() + "]");

    // the table itself is untouched, and a metadata table is not a write target
    assertThat(rows("SELECT id FROM quiver.meta.events ORDER BY id")).containsExactly("[1]", "[3]", "[4]");
    assertThatThrownBy(() -> spark.spark().sql("INSERT INTO quiver.meta.events.history SELECT * FROM"
        + " quiver.meta.events.history").collect()).hasMessageContaining("history");
    assertThatThrownBy(() -> spark.spark().sql("SELECT * FROM quiver.meta.events.nonsense").collect())
        .hasMessageContaining("nonsense");
    assertThatThrownBy(() -> spark.spark().sql("SELECT * FROM quiver.meta.missing.history").collect())
        .hasMessageContaining("missing");
  }

  @Test
  void proceduresRollBackTagAndCleanUp() {
    spark.spark().sql("CREATE TABLE quiver.proc.t (id BIGINT NOT NULL)");
    spark.spark().sql("INSERT INTO quiver.proc.t VALUES (1), (2)");
    long two;
    try (Dataset ds = Dataset.open(uri("proc", "t"))) {
      two = ds.version();
    }
    spark.spark().sql("INSERT INTO quiver.proc.t VALUES (3)");

    assertThat(rows("CALL quiver.system.create_tag(table => 'proc.t', tag => 'before-three', version => " + two
        + ")")).containsExactly("[before-three," + two + "]");
    List<Row> rolled = spark.spark().sql("CALL quiver.system.rollback_to_version(table => 'proc.t', version => "
        + two + ")").collectAsList();
    assertThat(rolled.get(0).getLong(1)).isEqualTo(two);
    long restored = rolled.get(0).getLong(0);
    assertThat(restored).isGreaterThan(two + 1);
    assertThat(rows("SELECT id FROM quiver.proc.t ORDER BY id")).containsExactly("[1]", "[2]");
    assertThat(rows("SELECT operation FROM quiver.proc.t.history WHERE version = " + restored))
        .containsExactly("[restore]");

    // A tag on the latest version by default; cleanup keeps the latest and the tagged versions.
    assertThat(rows("CALL quiver.system.create_tag(table => 'proc.t', tag => 'now')"))
        .containsExactly("[now," + restored + "]");
    List<Row> dry = spark.spark().sql("CALL quiver.system.cleanup(table => 'proc.t', older_than_hours => 0,"
        + " safety_window_minutes => 0, dry_run => true)").collectAsList();
    assertThat(dry.get(0).getBoolean(3)).isTrue();
    long before = spark.spark().sql("SELECT COUNT(*) FROM quiver.proc.t.versions").first().getLong(0);
    assertThat(dry.get(0).getInt(0)).isEqualTo(before - 2); // all but `two` (tagged) and the latest
    assertThat(spark.spark().sql("SELECT COUNT(*) FROM quiver.proc.t.versions").first().getLong(0))
        .as("a dry run removes nothing").isEqualTo(before);
    List<Row> cleaned = spark.spark().sql("CALL quiver.system.cleanup(table => 'proc.t', older_than_hours => 0,"
        + " safety_window_minutes => 0)").collectAsList();
    assertThat(cleaned.get(0).getInt(0)).isEqualTo(before - 2);
    assertThat(cleaned.get(0).getLong(1)).isPositive();
    assertThat(rows("SELECT version, tags FROM quiver.proc.t.versions ORDER BY version")).containsExactly(
        "[" + two + ",ArraySeq(before-three)]", "[" + restored + ",ArraySeq(now)]");
    assertThat(rows("SELECT id FROM quiver.proc.t VERSION AS OF 'before-three' ORDER BY id"))
        .containsExactly("[1]", "[2]");

    assertThat(rows("CALL quiver.system.drop_tag(table => 'proc.t', tag => 'before-three')"))
        .containsExactly("[before-three," + two + "]");
    assertThat(rows("SELECT name FROM quiver.proc.t.tags")).containsExactly("[now]");
    assertThatThrownBy(() -> spark.spark().sql("CALL quiver.system.drop_tag(table => 'proc.t', tag => 'gone')")
        .collect()).hasMessageContaining("gone");
    assertThatThrownBy(() -> spark.spark().sql("CALL quiver.system.rollback_to_version(table => 'proc.t',"
        + " version => 999)").collect()).hasMessageContaining("999");
    assertThatThrownBy(() -> spark.spark().sql("CALL quiver.system.cleanup(table => 'proc.t',"
        + " older_than_hours => -1)").collect()).hasMessageContaining("must be 0 or more");
  }
}
