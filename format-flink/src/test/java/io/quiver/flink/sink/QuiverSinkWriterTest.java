package io.quiver.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.SchemaMismatchException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One subtask's writer without a cluster: files rolled by rows, results handed on per checkpoint, the move
 * to the latest version (and its added columns) at each checkpoint, and its memory released on close (the
 * writer's allocator refuses to close over a leak).
 */
class QuiverSinkWriterTest {
  static final Map<String, String> LOCAL = SinkFixtures.LOCAL;

  String uri;

  @BeforeEach
  void table(@TempDir Path dir) {
    uri = SinkFixtures.localTable(dir);
  }

  private QuiverSinkWriter<RowData> writer(long rollAtRows) {
    return new QuiverSinkWriter<>(uri, SinkFixtures.options(LOCAL), new RowDataInput(SinkFixtures.ROW_TYPE),
        rollAtRows, Long.MAX_VALUE);
  }

  private static RowData row(long id) {
    return GenericRowData.of(id, StringData.fromString("t" + id));
  }

  @Test
  void rowsAreRolledIntoFilesAndEachCheckpointHandsOnWhatWasWrittenSinceTheLast() throws Exception {
    List<WriteResult> first;
    List<WriteResult> second;
    List<WriteResult> empty;
    try (QuiverSinkWriter<RowData> w = writer(10)) {
      for (long i = 0; i < 25; i++) {
        w.write(row(i), null);
      }
      w.flush(false);
      first = new ArrayList<>(w.prepareCommit());
      w.write(row(25), null);
      second = new ArrayList<>(w.prepareCommit());
      empty = new ArrayList<>(w.prepareCommit());
    }
    assertThat(first).extracting(WriteResult::rows).containsExactly(10L, 10L, 5L);
    assertThat(second).extracting(WriteResult::rows).containsExactly(1L);
    assertThat(empty).as("a checkpoint without rows hands on nothing").isEmpty();
    try (Dataset ds = Dataset.open(uri, SinkFixtures.options(LOCAL))) {
      List<WriteResult> all = new ArrayList<>(first);
      all.addAll(second);
      ds.distributed().commit(all, io.quiver.dataset.WriteMode.APPEND, io.quiver.dataset.CommitOptions.defaults());
    }
    assertThat(SinkFixtures.ids(uri, LOCAL)).isEqualTo(SinkFixtures.range(26));
  }

  @Test
  void atEachCheckpointTheWriterMovesToTheLatestVersionAndWritesAddedColumnsAsNull() throws Exception {
    try (QuiverSinkWriter<RowData> w = writer(1000)) {
      w.write(row(0), null);
      WriteResult before = w.prepareCommit().iterator().next();
      assertThat(before.readVersion()).isEqualTo(1);
      long added;
      try (Dataset ds = Dataset.open(uri, SinkFixtures.options(LOCAL))) {
        added = ds.columns().add(List.of(new Field("score", FieldType.nullable(new ArrowType.Int(32, true)), null)));
      }
      w.write(row(1), null);
      assertThat(w.prepareCommit()).as("written before the move: the old version").allSatisfy(
          r -> assertThat(r.readVersion()).isEqualTo(1));
      w.write(row(2), null);
      WriteResult after = w.prepareCommit().iterator().next();
      assertThat(after.readVersion()).isEqualTo(added);
      assertThat(after.schema().findTopLevel("score")).isPresent();
    }
  }

  @Test
  void aColumnTheRecordsCarryButTheTableDroppedFailsTheWriteNamingIt() throws Exception {
    try (QuiverSinkWriter<RowData> w = writer(1000)) {
      w.prepareCommit();
      try (Dataset ds = Dataset.open(uri, SinkFixtures.options(LOCAL))) {
        ds.columns().drop("tag");
      }
      w.prepareCommit(); // moves to the version without "tag"
      w.write(row(0), null);
      assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(w::prepareCommit)
          .withMessageContaining("'tag'").withMessageContaining("Nothing of this checkpoint was committed");
    }
  }

  @Test
  void rowsOtherThanInsertsAreRefused() throws Exception {
    try (QuiverSinkWriter<RowData> w = writer(1000)) {
      RowData delete = row(1);
      delete.setRowKind(RowKind.DELETE);
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> w.write(delete, null))
          .withMessageContaining("DELETE");
    }
  }
}
