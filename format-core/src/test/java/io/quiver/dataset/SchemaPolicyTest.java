package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.IncompatibleTransactionException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.scenario.ScenarioTable;
import io.quiver.store.MemoryObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link DistributedWriter#refresh()} and {@link SchemaPolicy#ALLOW_ADDED_NULLABLE_FIELDS}: appends written
 * under an older, compatible schema commit on the latest version, with nulls in the added columns.
 */
class SchemaPolicyTest {
  private static final SchemaPolicy ADDED = SchemaPolicy.ALLOW_ADDED_NULLABLE_FIELDS;
  private static final String URI_ = ScenarioTable.URI_;

  private RootAllocator allocator;
  private ScenarioTable table;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    table = ScenarioTable.on(new MemoryObjectStore("memory://policy"), allocator);
    options = table.options();
  }

  @AfterEach
  void tearDown() {
    table.close();
    allocator.close();
  }

  private Dataset create() {
    return table.create(0, 10);
  }

  private WriteResult write(DistributedWriter w, long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return w.write(List.of(b));
    }
  }

  /** A sample batch with an all-null {@code score} column, for writers at a version that has it. */
  private VectorSchemaRoot withScore(long from, int rows) {
    VectorSchemaRoot sample = SampleTable.batch(allocator, from, rows);
    IntVector score = new IntVector("score", allocator);
    score.allocateNew(rows);
    score.setValueCount(rows);
    List<FieldVector> vectors = new ArrayList<>(sample.getFieldVectors());
    vectors.add(score);
    List<Field> fields = new ArrayList<>(sample.getSchema().getFields());
    fields.add(score.getField());
    return new VectorSchemaRoot(fields, vectors, rows);
  }

  private WriteResult written(long version, long from, int rows) {
    try (DistributedWriter w = DistributedWriter.open(URI_, options, version)) {
      return write(w, from, rows);
    }
  }

  private static long addScore(Dataset ds) {
    return ds.columns().add(List.of(new Field("score", FieldType.nullable(new ArrowType.Int(32, true)), null)));
  }

  /** id → score (null where the row has none) at the latest version. */
  private static Map<Long, Integer> scores(Dataset ds) {
    Map<Long, Integer> out = new HashMap<>();
    try (ArrowReader r = ds.checkoutLatest().newScan().columns("id", "score").open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        IntVector score = (IntVector) root.getVector("score");
        for (int i = 0; i < root.getRowCount(); i++) {
          out.put(id.get(i), score.getObject(i));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  @Test
  void refreshMovesAWriterToTheLatestVersionAndItsSchema() {
    try (Dataset ds = create(); DistributedWriter w = DistributedWriter.open(URI_, options)) {
      WriteResult before = write(w, 10, 3);
      assertThat(before.readVersion()).isEqualTo(1);
      long added = addScore(ds);
      assertThat(w.readVersion()).as("no refresh, no move").isEqualTo(1);
      assertThat(w.refresh()).isEqualTo(added);
      assertThat(w.readVersion()).isEqualTo(added);
      assertThat(w.schema().findTopLevel("score")).isPresent();
      assertThat(before.readVersion()).as("results written before keep their read version").isEqualTo(1);
      try (VectorSchemaRoot b = VectorSchemaRoot.create(w.schema().toArrow(), allocator)) {
        b.setRowCount(0);
        WriteResult after = w.write(List.of(b));
        assertThat(after.readVersion()).isEqualTo(added);
        assertThat(after.schema()).isEqualTo(ds.checkoutLatest().manifest().schema());
      }
      assertThat(w.refresh()).as("idempotent").isEqualTo(added);
    }
  }

  @Test
  void anAppendWrittenBeforeANullableColumnWasAddedCommitsWithNullsUnderThePolicyOnly() {
    try (Dataset ds = create()) {
      WriteResult old = written(1, 10, 5);
      long added = addScore(ds);
      assertThatExceptionOfType(RetryableConflictException.class).as("EXACT: today's conflict rule")
          .isThrownBy(() -> ds.distributed().commit(List.of(old), WriteMode.APPEND, CommitOptions.defaults()))
          .withMessageContaining("add-columns");
      assertThat(ds.latestVersion()).isEqualTo(added);

      long v = ds.distributed().commit(List.of(old), WriteMode.APPEND, CommitOptions.defaults(), ADDED);
      assertThat(v).isEqualTo(added + 1);
      assertThat(ds.version()).isEqualTo(v);
      Map<Long, Integer> scores = scores(ds);
      assertThat(scores.keySet()).containsExactlyInAnyOrderElementsOf(range(0, 15));
      assertThat(scores.values()).allMatch(s -> s == null);
      assertThat(scanIds(ds.checkoutLatest().newScan().columns("id", "name", "s", "tags").open()))
          .containsExactlyInAnyOrderElementsOf(range(0, 15));
    }
  }

  @Test
  void resultsOfWorkersAtDifferentVersionsCommitTogetherAsOneAppend() {
    try (Dataset ds = create(); DistributedWriter slow = DistributedWriter.open(URI_, options);
        DistributedWriter fast = DistributedWriter.open(URI_, options)) {
      WriteResult a = write(slow, 10, 4);
      addScore(ds);
      fast.refresh();
      WriteResult b;
      try (VectorSchemaRoot batch = withScore(14, 4)) {
        b = fast.write(List.of(batch));
      }
      assertThat(a.schema()).isNotEqualTo(b.schema());
      long before = ds.latestVersion();
      long v = ds.distributed().commit(List.of(a, b), WriteMode.APPEND, CommitOptions.defaults(), ADDED);
      assertThat(v).as("one version").isEqualTo(before + 1);
      assertThat(scores(ds).keySet()).containsExactlyInAnyOrderElementsOf(range(0, 18));
    }
  }

  @Test
  void aDroppedColumnIsASchemaMismatchNamingTheColumn() {
    try (Dataset ds = create()) {
      WriteResult old = written(1, 10, 5);
      long dropped = ds.columns().drop("name");
      assertThatExceptionOfType(SchemaMismatchException.class)
          .isThrownBy(() -> ds.distributed().commit(List.of(old), WriteMode.APPEND, CommitOptions.defaults(), ADDED))
          .withMessageContaining("'name'")
          .withMessageContaining("dropped")
          .withMessageContaining("Nothing was committed")
          .withMessageContaining("refresh()");
      assertThat(ds.latestVersion()).isEqualTo(dropped);
    }
  }

  @Test
  void aRenamedColumnIsStillTheSameFieldAndCommits() {
    try (Dataset ds = create()) {
      WriteResult old = written(1, 10, 5);
      ds.columns().rename("name", "label");
      long v = ds.distributed().commit(List.of(old), WriteMode.APPEND, CommitOptions.defaults(), ADDED);
      assertThat(ds.checkoutLatest().countRows()).isEqualTo(15);
      assertThat(v).isEqualTo(ds.latestVersion());
    }
  }

  @Test
  void anOverwriteAfterTheReadVersionIsRefusedAsIncompatible() {
    try (Dataset ds = create()) {
      WriteResult old = written(1, 10, 5);
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 100, 2)) {
        ds.overwrite(SampleTable.SCHEMA, List.of(b));
      }
      assertThatExceptionOfType(IncompatibleTransactionException.class)
          .isThrownBy(() -> ds.distributed().commit(List.of(old), WriteMode.APPEND, CommitOptions.defaults(), ADDED))
          .withMessageContaining("replaced the table");
      assertThat(ds.checkoutLatest().countRows()).isEqualTo(2);
    }
  }

  @Test
  void aReplayedSequenceIsRecognisedFirstEvenAfterASchemaChangeAndACleanup() {
    try (Dataset ds = create()) {
      List<WriteResult> ckpt = List.of(written(1, 10, 5));
      CommitOptions seq7 = CommitOptions.defaults().withApplicationSequence("job/sink", 7);
      long committed = ds.distributed().commit(ckpt, WriteMode.APPEND, seq7, ADDED);
      addScore(ds);
      try (VectorSchemaRoot b = withScore(50, 1)) {
        ds.append(List.of(b));
      }
      table.clock().advance(Duration.ofHours(2));
      ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).build());
      long latest = ds.latestVersion();
      assertThat(ds.distributed().commit(ckpt, WriteMode.APPEND, seq7, ADDED)).isEqualTo(committed);
      assertThat(ds.distributed().commit(ckpt, WriteMode.APPEND,
          CommitOptions.defaults().withApplicationSequence("job/sink", 3), ADDED)).isEqualTo(committed);
      assertThat(ds.latestVersion()).as("nothing published").isEqualTo(latest);
      assertThat(ds.checkoutLatest().countRows()).isEqualTo(16);
    }
  }

  @Test
  void anAppendWhoseReadVersionACleanupRemovedCommitsAcrossASchemaChange() {
    try (Dataset ds = create()) {
      WriteResult old = written(1, 10, 5);
      addScore(ds);
      table.clock().advance(Duration.ofHours(2));
      // Versions 1.. are removed; the worker's uncommitted files are within the safety window.
      ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).safetyWindow(Duration.ofHours(3)).build());
      assertThatExceptionOfType(io.quiver.exceptions.VersionNotFoundException.class)
          .isThrownBy(() -> ds.checkout(1));
      long v = ds.distributed().commit(List.of(old), WriteMode.APPEND,
          CommitOptions.defaults().withApplicationSequence("job/sink", 1), ADDED);
      assertThat(scores(ds).keySet()).containsExactlyInAnyOrderElementsOf(range(0, 15));
      assertThat(ds.distributed().applicationWatermark("job/sink").orElseThrow().version()).isEqualTo(v);
    }
  }

  @Test
  void theExactPolicyIsTodaysCommitAndOverwritesAreRefusedUnderThePolicy() {
    try (Dataset ds = create()) {
      WriteResult r = written(1, 10, 5);
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.distributed().commit(List.of(r), WriteMode.OVERWRITE, CommitOptions.defaults(), ADDED))
          .withMessageContaining("appends only");
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.distributed().commit(List.of(r), WriteMode.APPEND, CommitOptions.defaults(), null));
      assertThat(ds.distributed().commit(List.of(r), WriteMode.APPEND, CommitOptions.defaults(), SchemaPolicy.EXACT))
          .isEqualTo(2);
      List<Long> ids = new ArrayList<>(scanIds(ds.checkoutLatest().newScan().open()));
      assertThat(ids).containsExactlyInAnyOrderElementsOf(range(0, 15));
    }
  }
}
