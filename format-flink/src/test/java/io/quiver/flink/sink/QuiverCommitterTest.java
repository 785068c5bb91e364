package io.quiver.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DistributedWriter;
import io.quiver.dataset.SchemaPolicy;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.exceptions.UnsupportedFormatException;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The committer and the committable's state encoding, without a cluster. */
class QuiverCommitterTest {
  static final Map<String, String> LOCAL = SinkFixtures.LOCAL;

  String uri;

  @BeforeEach
  void table(@TempDir Path dir) {
    uri = SinkFixtures.localTable(dir);
  }

  /** A commit request recording what the committer signalled. */
  static final class Request implements CommitRequest<QuiverCommittable> {
    final QuiverCommittable committable;
    final List<String> signals = new ArrayList<>();

    Request(QuiverCommittable committable) {
      this.committable = committable;
    }

    @Override public QuiverCommittable getCommittable() { return committable; }
    @Override public int getNumberOfRetries() { return 0; }
    @Override public void signalFailedWithKnownReason(Throwable t) { signals.add("failed-known"); }
    @Override public void signalFailedWithUnknownReason(Throwable t) { signals.add("failed-unknown"); }
    @Override public void retryLater() { signals.add("retry"); }
    @Override public void updateAndRetryLater(QuiverCommittable c) { signals.add("update"); }
    @Override public void signalAlreadyCommitted() { signals.add("already"); }
  }

  private WriteResult written(long from, int rows) throws Exception {
    try (RootAllocator allocator = new RootAllocator();
        DistributedWriter w = DistributedWriter.open(uri, SinkFixtures.options(LOCAL).toBuilder().allocator(allocator)
            .build());
        ArrowStreamReader r = new ArrowStreamReader(new ByteArrayInputStream(SinkFixtures.rows(from, rows)),
            allocator)) {
      r.loadNextBatch();
      VectorSchemaRoot batch = r.getVectorSchemaRoot();
      return w.write(List.of(batch));
    }
  }

  private List<String> commit(QuiverCommittable c) throws InterruptedException {
    Request r = new Request(c);
    try (QuiverCommitter committer = new QuiverCommitter(uri, SinkFixtures.options(LOCAL),
        SchemaPolicy.ALLOW_ADDED_NULLABLE_FIELDS)) {
      committer.commit(List.of(r));
    }
    return r.signals;
  }

  @Test
  void checkpointsCommitInOrderAndAReplayAtOrBelowTheWatermarkIsSignalledAlreadyCommitted() throws Exception {
    QuiverCommittable one = new QuiverCommittable("job", "sink", 1, List.of(written(0, 5)));
    QuiverCommittable two = new QuiverCommittable("job", "sink", 2, List.of(written(5, 5), written(10, 5)));
    Request r2 = new Request(two);
    Request r1 = new Request(one);
    try (QuiverCommitter committer = new QuiverCommitter(uri, SinkFixtures.options(LOCAL),
        SchemaPolicy.ALLOW_ADDED_NULLABLE_FIELDS)) {
      committer.commit(List.of(r2, r1)); // out of order: committed 1, then 2
    }
    assertThat(r1.signals).isEmpty();
    assertThat(r2.signals).isEmpty();
    try (Dataset ds = Dataset.open(uri, SinkFixtures.options(LOCAL))) {
      assertThat(ds.latestVersion()).isEqualTo(3);
      assertThat(ds.distributed().applicationWatermark("job/sink").orElseThrow().sequence()).isEqualTo(2);
    }
    assertThat(commit(one)).containsExactly("already");
    assertThat(commit(two)).containsExactly("already");
    assertThat(SinkFixtures.ids(uri, LOCAL)).isEqualTo(SinkFixtures.range(15));
  }

  /** Deletes a data file of the table, as a cleanup with too short a safety window would. */
  private void delete(String key) throws java.io.IOException {
    java.nio.file.Files.delete(Path.of(java.net.URI.create(uri)).resolve(key));
  }

  @Test
  void aCheckpointWhoseDataFileWasRemovedBeforeItsCommitFailsAndCommitsNothing() throws Exception {
    QuiverCommittable one = new QuiverCommittable("job", "sink", 1, List.of(written(0, 5)));
    assertThat(commit(one)).isEmpty();
    WriteResult kept = written(5, 5);
    WriteResult removed = written(10, 5);
    String gone = removed.files().get(0);
    assertThat(gone).startsWith("data/");
    delete(gone);
    QuiverCommittable two = new QuiverCommittable("job", "sink", 2, List.of(kept, removed));
    MissingDataFilesException e = assertThatExceptionOfType(MissingDataFilesException.class)
        .isThrownBy(() -> commit(two)).actual();
    assertThat(e.checkpointId()).isEqualTo(2);
    assertThat(e.applicationId()).isEqualTo("job/sink");
    assertThat(e.table()).isEqualTo(uri);
    assertThat(e.missingFiles()).containsExactly(gone);
    assertThat(e.problems()).singleElement().asString().contains(gone);
    assertThat(e.getMessage()).contains("checkpoint 2").contains(gone).contains(uri)
        .contains("safety window").contains("checkpoint interval + restart time + commit time")
        .contains("10 row(s)").contains("re-ingested from the source");
    try (Dataset ds = Dataset.open(uri, SinkFixtures.options(LOCAL))) {
      assertThat(ds.latestVersion()).as("nothing committed").isEqualTo(2);
      assertThat(ds.distributed().applicationWatermark("job/sink").orElseThrow().sequence()).isEqualTo(1);
    }
    assertThat(SinkFixtures.ids(uri, LOCAL)).isEqualTo(SinkFixtures.range(5));
  }

  @Test
  void aReplayOfACommittedCheckpointIsRecognisedBeforeItsFilesAreChecked() throws Exception {
    WriteResult result = written(0, 5);
    QuiverCommittable one = new QuiverCommittable("job", "sink", 1, List.of(result));
    assertThat(commit(one)).isEmpty();
    assertThat(commit(one)).as("replayed, files present").containsExactly("already");
    // Files a committed checkpoint named may go later (a compaction, then a cleanup); its replay is still
    // committed, not an error.
    delete(result.files().get(0));
    assertThat(commit(one)).as("replayed, files gone").containsExactly("already");
  }

  @Test
  void theEndOfInputCheckpointIdLongMaxValueCommitsOnceAndIsRecognised() throws Exception {
    QuiverCommittable end = new QuiverCommittable("batch-job", "sink", Long.MAX_VALUE, List.of(written(0, 3)));
    assertThat(commit(end)).isEmpty();
    assertThat(commit(end)).containsExactly("already");
    assertThat(SinkFixtures.ids(uri, LOCAL)).isEqualTo(SinkFixtures.range(3));
  }

  @Test
  void anotherJobsCommittablesAreTrackedUnderItsOwnApplication() throws Exception {
    QuiverCommittable old = new QuiverCommittable("old-job", "sink", 7, List.of(written(0, 3)));
    assertThat(commit(old)).isEmpty();
    QuiverCommittable resumed = new QuiverCommittable("new-job", "sink", 8, List.of(written(3, 3)));
    assertThat(commit(old)).as("re-delivered from the savepoint").containsExactly("already");
    assertThat(commit(resumed)).isEmpty();
    assertThat(SinkFixtures.ids(uri, LOCAL)).isEqualTo(SinkFixtures.range(6));
  }

  @Test
  void anIncompatibleSchemaChangeFailsWithQuiversMessage() throws Exception {
    QuiverCommittable c = new QuiverCommittable("job", "sink", 1, List.of(written(0, 3)));
    try (Dataset ds = Dataset.open(uri, SinkFixtures.options(LOCAL))) {
      ds.columns().drop("tag");
    }
    assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(() -> commit(c))
        .withMessageContaining("'tag'");
  }

  @Test
  void committablesRoundTripThroughTheirStateEncodingAndOtherVersionsAreRefused() throws Exception {
    QuiverCommittable c = new QuiverCommittable("job", "sink", 42, List.of(written(0, 3), written(3, 2)));
    QuiverCommittableSerializer s = new QuiverCommittableSerializer();
    QuiverCommittable back = s.deserialize(s.getVersion(), s.serialize(c));
    assertThat(back).isEqualTo(c);
    assertThat(back.rows()).isEqualTo(5);
    assertThatExceptionOfType(UnsupportedFormatException.class).isThrownBy(() -> s.deserialize(2, s.serialize(c)))
        .withMessageContaining("version 2");
    WriteResultSerializer w = new WriteResultSerializer();
    assertThat(w.deserialize(1, w.serialize(c.results().get(0)))).isEqualTo(c.results().get(0));
  }
}
