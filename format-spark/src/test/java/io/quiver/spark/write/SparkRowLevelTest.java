package io.quiver.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.dataset.Dataset;
import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.predicate.Predicate;
import io.quiver.spark.SparkTests;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MERGE INTO, UPDATE and row-level DELETE: the rows Spark changes are one Quiver row delta at the scanned
 * version, committed once; injected task and driver failures, and concurrent commits, never publish a change
 * twice or lose one.
 */
class SparkRowLevelTest {
  static SparkTests spark;
  static final AtomicInteger TABLES = new AtomicInteger();

  @BeforeAll
  static void start() {
    // local[2,4]: a failed task is retried (up to 4 attempts), as on a cluster.
    spark = SparkTests.start(b -> b.master("local[2,4]"));
  }

  @AfterAll
  static void stop() {
    spark.close();
  }

  @AfterEach
  void resetHooks() {
    WriteHooks.set(null);
  }

  /** A table of ids 0..9 (name n<id>) in two fragments (0..4, 5..9): versions 1 (create), 2 and 3. */
  private static String table(String properties) {
    String t = "r" + TABLES.incrementAndGet();
    spark.spark().sql("CREATE TABLE quiver.db." + t + " (id BIGINT NOT NULL, name STRING)"
        + (properties.isEmpty() ? "" : " TBLPROPERTIES (" + properties + ")"));
    spark.spark().sql("INSERT INTO quiver.db." + t + " SELECT id, concat('n', id) FROM range(0, 5, 1, 1)");
    spark.spark().sql("INSERT INTO quiver.db." + t + " SELECT id, concat('n', id) FROM range(5, 10, 1, 1)");
    return t;
  }

  private static String uri(String t) {
    return spark.warehouse().resolve("db").resolve(t).toUri().toString();
  }

  private static Path file(String t, String key) {
    return spark.warehouse().resolve("db").resolve(t).resolve(key);
  }

  private static long version(String t) {
    try (Dataset ds = Dataset.open(uri(t))) {
      return ds.version();
    }
  }

  private static String operation(String t, long version) {
    try (Dataset ds = Dataset.open(uri(t))) {
      return ds.versionInfo(version).operation();
    }
  }

  /** The rows as "id:name", ordered by id (duplicates show). */
  private static List<String> rows(String t) {
    List<String> out = new ArrayList<>();
    for (Row r : spark.spark().sql("SELECT id, name FROM quiver.db." + t + " ORDER BY id, name").collectAsList()) {
      out.add(r.getLong(0) + ":" + r.getString(1));
    }
    return out;
  }

  private static List<String> expected(long from, long to) {
    List<String> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      out.add(i + ":n" + i);
    }
    return out;
  }

  private static void source(String rows) {
    spark.spark().sql("CREATE OR REPLACE TEMP VIEW src AS SELECT * FROM VALUES " + rows + " AS s(id, name)");
  }

  private static final String MERGE = " AS t USING src AS s ON t.id = s.id"
      + " WHEN MATCHED AND s.name = 'delete' THEN DELETE"
      + " WHEN MATCHED THEN UPDATE SET t.name = s.name"
      + " WHEN NOT MATCHED THEN INSERT *";

  /** After the standard merge: 2 updated, 8 deleted, 20 inserted. */
  private static List<String> merged() {
    List<String> out = new ArrayList<>(expected(0, 10));
    out.set(2, "2:two");
    out.remove("8:n8");
    out.add("20:twenty");
    return out;
  }

  private static void standardMerge(String t) {
    source("(CAST(2 AS BIGINT), 'two'), (CAST(8 AS BIGINT), 'delete'), (CAST(20 AS BIGINT), 'twenty')");
    spark.spark().sql("MERGE INTO quiver.db." + t + MERGE);
  }

  private static void javaDelete(String t, long id) {
    try (Dataset ds = Dataset.open(uri(t))) {
      ds.delete(Predicate.eq("id", id));
    }
  }

  private static void javaAppend(String t, long id, String name) {
    try (Dataset ds = Dataset.open(uri(t));
        RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(ds.schema().toArrow(), allocator)) {
      root.allocateNew();
      ((BigIntVector) root.getVector("id")).setSafe(0, id);
      ((VarCharVector) root.getVector("name")).setSafe(0, name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      root.setRowCount(1);
      ds.append(List.of(root));
    }
  }

  private static List<String> recordFiles(WriteHooks failing) {
    return SparkWriteTest.recordFiles(failing);
  }

  // ---------------------------------------------------------------- the commands

  @Test
  void mergeIntoUpdatesDeletesAndInsertsInOneVersion() {
    String t = table("");
    long before = version(t);
    standardMerge(t);
    assertThat(rows(t)).containsExactlyElementsOf(merged());
    assertThat(version(t)).isEqualTo(before + 1);
    assertThat(operation(t, before + 1)).isEqualTo("row-delta");
    try (Dataset ds = Dataset.open(uri(t))) {
      assertThat(ds.validate().isValid()).isTrue();
    }
    // The version before still reads the old rows.
    assertThat(spark.spark().sql("SELECT count(*) FROM quiver.db." + t + " VERSION AS OF " + before).first().getLong(0))
        .isEqualTo(10);
  }

  @Test
  void updateSetWhereRewritesOnlyTheMatchingRows() {
    String t = table("");
    long before = version(t);
    spark.spark().sql("UPDATE quiver.db." + t + " SET name = upper(name) WHERE id % 3 = 0");
    List<String> expected = new ArrayList<>(expected(0, 10));
    for (int i = 0; i < 10; i += 3) {
      expected.set(i, i + ":N" + i);
    }
    assertThat(rows(t)).containsExactlyElementsOf(expected);
    assertThat(version(t)).isEqualTo(before + 1);
    // An UPDATE matching nothing commits nothing.
    spark.spark().sql("UPDATE quiver.db." + t + " SET name = 'x' WHERE id > 100");
    assertThat(version(t)).isEqualTo(before + 1);
  }

  @Test
  void aDeleteWithAConditionQuiverCannotEvaluateRunsAsARowLevelDelete() {
    String t = table("");
    long before = version(t);
    spark.spark().sql("DELETE FROM quiver.db." + t + " WHERE length(name) = 2 AND id IN (SELECT id FROM range(3, 8))");
    assertThat(rows(t)).containsExactly("0:n0", "1:n1", "2:n2", "8:n8", "9:n9");
    assertThat(version(t)).isEqualTo(before + 1);
    assertThat(operation(t, before + 1)).isEqualTo("row-delta");
  }

  // ---------------------------------------------------------------- exactly once

  @Test
  void aTaskFailingAfterWritingItsFilesIsRetriedAndTheMergeLandsOnce() {
    String t = table("");
    long before = version(t);
    List<String> failed = Collections.synchronizedList(new ArrayList<>());
    recordFiles(new WriteHooks() {
      @Override
      public void afterFilesWritten(int partitionId, int attemptNumber, long epochId, List<String> files) {
        if (attemptNumber == 0 && !files.isEmpty() && failed.isEmpty()) {
          failed.addAll(files);
          throw new IllegalStateException("injected task failure after writing " + files);
        }
      }
    });
    standardMerge(t);
    assertThat(failed).as("a task wrote files and then failed").isNotEmpty();
    assertThat(failed).allSatisfy(f -> assertThat(file(t, f)).doesNotExist());
    assertThat(rows(t)).containsExactlyElementsOf(merged());
    assertThat(version(t)).isEqualTo(before + 1);
  }

  @Test
  void aDriverFailureAfterTheTableCommitKeepsTheMergeAndItsFiles() {
    String t = table("");
    long before = version(t);
    List<String> written = recordFiles(new WriteHooks() {
      @Override
      public void afterTableCommit(String key, long version) {
        throw new IllegalStateException("injected: driver failure after the commit");
      }
    });
    assertThatThrownBy(() -> standardMerge(t)).hasMessageContaining("injected");
    WriteHooks.set(null);
    assertThat(written).isNotEmpty().allSatisfy(f -> assertThat(file(t, f)).exists());
    assertThat(version(t)).isEqualTo(before + 1);
    assertThat(rows(t)).containsExactlyElementsOf(merged());
    try (Dataset ds = Dataset.open(uri(t))) {
      assertThat(ds.validate().isValid()).isTrue();
    }
  }

  @Test
  void aCommitOfUnknownOutcomeDeletesNothingAndACertainFailureDeletesTheFiles() {
    String t = table("");
    long before = version(t);
    List<String> unknown = recordFiles(new WriteHooks() {
      @Override
      public void beforeTableCommit(String key, long readVersion) {
        throw new CommitStateUnknownException(uri(t), "_versions/x", "injected: the store timed out on the put",
            new java.io.IOException("timeout"));
      }
    });
    assertThatThrownBy(() -> standardMerge(t)).isInstanceOf(CommitStateUnknownException.class);
    assertThat(unknown).isNotEmpty().allSatisfy(f -> assertThat(file(t, f)).exists());

    List<String> certain = recordFiles(new WriteHooks() {
      @Override
      public void beforeTableCommit(String key, long readVersion) {
        throw new IllegalStateException("injected: driver failure before the commit");
      }
    });
    assertThatThrownBy(() -> standardMerge(t)).hasMessageContaining("injected");
    assertThat(certain).isNotEmpty().allSatisfy(f -> assertThat(file(t, f)).doesNotExist());
    WriteHooks.set(null);
    assertThat(version(t)).isEqualTo(before);
    assertThat(rows(t)).containsExactlyElementsOf(expected(0, 10));
  }

  private static org.apache.spark.sql.connector.write.LogicalWriteInfo info(String queryId) {
    return new org.apache.spark.sql.connector.write.LogicalWriteInfo() {
      @Override
      public org.apache.spark.sql.util.CaseInsensitiveStringMap options() {
        return org.apache.spark.sql.util.CaseInsensitiveStringMap.empty();
      }

      @Override
      public String queryId() {
        return queryId;
      }

      @Override
      public org.apache.spark.sql.types.StructType schema() {
        return null;
      }
    };
  }

  private static QuiverDeltaWrite deltaWrite(String t, String queryId) {
    io.quiver.spark.QuiverTable table = io.quiver.spark.QuiverTable.load("quiver.db." + t,
        new io.quiver.spark.TableRef(uri(t), java.util.Map.of()), new io.quiver.spark.VersionRef.Latest());
    return (QuiverDeltaWrite) new QuiverRowLevelOperation(table,
        org.apache.spark.sql.connector.write.RowLevelOperation.Command.MERGE).newWriteBuilder(info(queryId)).build();
  }

  private static org.apache.spark.sql.catalyst.InternalRow row(long id, String name) {
    return new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(
        new Object[] {id, org.apache.spark.unsafe.types.UTF8String.fromString(name)});
  }

  private static org.apache.spark.sql.catalyst.InternalRow address(long fragment, long offset) {
    return new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(
        new Object[] {io.quiver.dataset.RowAddress.of(fragment, offset)});
  }

  /** One task attempt of partition {@code p}: updates id 2 (fragment 0, offset 2) or deletes id 8 and inserts id 20. */
  private static org.apache.spark.sql.connector.write.WriterCommitMessage task(QuiverDeltaWrite write, int p, long taskId)
      throws Exception {
    try (org.apache.spark.sql.connector.write.DeltaWriter<org.apache.spark.sql.catalyst.InternalRow> w =
        write.createBatchWriterFactory(() -> 2).createWriter(p, taskId)) {
      if (p == 0) {
        w.update(null, address(0, 2), row(2, "two"));
      } else {
        w.delete(null, address(1, 3));
        w.insert(row(20, "twenty"));
      }
      return w.commit();
    }
  }

  @Test
  void duplicateTaskAttemptsAndARetriedOrRestartedDriverCommitPublishOnce() throws Exception {
    String t = table("");
    long before = version(t);
    String queryId = java.util.UUID.randomUUID().toString();
    QuiverDeltaWrite write = deltaWrite(t, queryId);
    assertThat(write.useCommitCoordinator()).isFalse();
    org.apache.spark.sql.connector.write.WriterCommitMessage[] messages = {
        task(write, 0, 1), task(write, 1, 2), task(write, 0, 3)}; // partition 0 twice (speculation)
    write.commit(messages);
    assertThat(write.committed().version()).isEqualTo(before + 1);
    assertThat(write.committed().deletedRows()).isEqualTo(2);
    assertThat(rows(t)).containsExactlyElementsOf(merged());

    write.commit(messages); // the driver retries its commit
    assertThat(write.committed().alreadyCommitted()).isTrue();
    javaAppend(t, 30, "later"); // a commit after it
    QuiverDeltaWrite restarted = deltaWrite(t, queryId); // a new driver, same query, loaded at the newer version
    restarted.commit(messages);
    assertThat(restarted.committed().alreadyCommitted()).isTrue();
    assertThat(restarted.committed().version()).isEqualTo(before + 1);
    restarted.abort(messages); // an abort after the commit happened deletes nothing
    List<String> expected = new ArrayList<>(merged());
    expected.add("30:later");
    assertThat(rows(t)).containsExactlyElementsOf(expected);
    try (Dataset ds = Dataset.open(uri(t))) {
      assertThat(ds.validate().isValid()).isTrue();
      assertThat(ds.version()).isEqualTo(before + 2);
    }
  }

  // ---------------------------------------------------------------- concurrency

  @Test
  void aMergeWhoseScanWasFilteredIgnoresConcurrentRowsOutsideTheFilter() {
    String t = table("");
    WriteHooks.set(new WriteHooks() {
      @Override
      public void beforeTableCommit(String key, long readVersion) {
        javaAppend(t, 50, "java"); // outside "t.id < 10": the merge could not have read it
      }
    });
    source("(CAST(2 AS BIGINT), 'two'), (CAST(8 AS BIGINT), 'delete'), (CAST(20 AS BIGINT), 'twenty')");
    spark.spark().sql("MERGE INTO quiver.db." + t + " AS t USING src AS s ON t.id = s.id AND t.id < 10"
        + " WHEN MATCHED AND s.name = 'delete' THEN DELETE WHEN MATCHED THEN UPDATE SET t.name = s.name"
        + " WHEN NOT MATCHED THEN INSERT *");
    List<String> expected = new ArrayList<>(merged());
    expected.add("50:java");
    assertThat(rows(t)).containsExactlyElementsOf(expected);
  }

  @Test
  void aConcurrentDeleteOfARowTheMergeReadFailsItWithARetryableConflict() {
    String t = table("");
    List<String> written = recordFiles(new WriteHooks() {
      @Override
      public void beforeTableCommit(String key, long readVersion) {
        javaDelete(t, 7); // same fragment as the merge's id 8
      }
    });
    long before = version(t);
    assertThatThrownBy(() -> standardMerge(t)).isInstanceOf(RetryableConflictException.class)
        .hasMessageContaining("row-delta").hasMessageContaining("Nothing was committed");
    WriteHooks.set(null);
    assertThat(written).isNotEmpty().allSatisfy(f -> assertThat(file(t, f)).doesNotExist());
    assertThat(version(t)).isEqualTo(before + 1); // the concurrent delete only
    List<String> expected = new ArrayList<>(expected(0, 10));
    expected.remove("7:n7");
    assertThat(rows(t)).containsExactlyElementsOf(expected);
    // Re-running the command on the new version succeeds.
    standardMerge(t);
    List<String> merged = new ArrayList<>(merged());
    merged.remove("7:n7");
    assertThat(rows(t)).containsExactlyElementsOf(merged);
  }

  @Test
  void aConcurrentInsertOfTheMergedKeyConflictsUnderSerializableAndNotUnderSnapshot() {
    String serial = table("");
    WriteHooks.set(new WriteHooks() {
      @Override
      public void beforeTableCommit(String key, long readVersion) {
        javaAppend(serial, 20, "java");
      }
    });
    assertThatThrownBy(() -> standardMerge(serial)).isInstanceOf(RetryableConflictException.class)
        .hasMessageContaining("append");
    WriteHooks.set(null);
    List<String> expected = new ArrayList<>(expected(0, 10));
    expected.add("20:java");
    assertThat(rows(serial)).as("serially, the merge would have matched id 20: refused").containsExactlyElementsOf(expected);

    String snapshot = table("'row-delta.isolation' = 'snapshot'");
    WriteHooks.set(new WriteHooks() {
      @Override
      public void beforeTableCommit(String key, long readVersion) {
        javaAppend(snapshot, 20, "java");
      }
    });
    standardMerge(snapshot);
    List<String> both = new ArrayList<>(merged());
    both.add(both.size() - 1, "20:java");
    assertThat(rows(snapshot)).as("snapshot isolation lets both inserts of id 20 land").containsExactlyElementsOf(both);
  }
}
