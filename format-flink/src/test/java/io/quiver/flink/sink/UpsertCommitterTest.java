package io.quiver.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.VersionInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upsert committer against concurrent Java writers, driven by hand (writer, committable, committer): a
 * commit landing between the committer's scan and its commit that may add a changed key is refused and the
 * checkpoint re-applied on the new latest version (the key ends with one row); one adding other keys lets it
 * through at once; a replayed checkpoint is acknowledged, not applied again.
 */
class UpsertCommitterTest {
  static final Schema SCHEMA = QuiverUpsertSinkTest.SCHEMA;

  @TempDir
  Path dir;

  private String uri;

  @BeforeEach
  void table() {
    uri = dir.resolve("t").toUri().toString();
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = rows(List.of(new long[] {1, 10}, new long[] {2, 20}, new long[] {3, 30}), allocator);
        Dataset ds = Dataset.create(uri, SCHEMA, List.of(root), SinkFixtures.options(SinkFixtures.LOCAL))) {
      ds.version();
    }
  }

  private static VectorSchemaRoot rows(List<long[]> rows, RootAllocator allocator) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    for (int i = 0; i < rows.size(); i++) {
      ((org.apache.arrow.vector.BigIntVector) root.getVector("id")).setSafe(i, rows.get(i)[0]);
      ((org.apache.arrow.vector.BigIntVector) root.getVector("v")).setSafe(i, rows.get(i)[1]);
    }
    root.setRowCount(rows.size());
    return root;
  }

  private void javaAppend(long id, long v) {
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = rows(List.<long[]>of(new long[] {id, v}), allocator);
        Dataset ds = Dataset.open(uri, SinkFixtures.options(SinkFixtures.LOCAL))) {
      ds.append(List.of(root));
    }
  }

  /** Checkpoint {@code id}'s committable: upserts of {@code upserts} (key, value) and deletes of {@code deletes}. */
  private UpsertCommittable checkpoint(long id, Map<Long, Long> upserts, List<Long> deletes) throws Exception {
    UpsertKeys keys = new UpsertKeys(QuiverUpsertSinkTest.ROW_TYPE, List.of("id"));
    try (UpsertWriter w = new UpsertWriter(uri, SinkFixtures.options(SinkFixtures.LOCAL),
        QuiverUpsertSinkTest.ROW_TYPE, keys)) {
      upserts.forEach((k, v) -> w.write(GenericRowData.ofKind(RowKind.UPDATE_AFTER, k, v, StringData.fromString("s")),
          null));
      for (long k : deletes) {
        w.write(GenericRowData.ofKind(RowKind.DELETE, k, null, null), null);
      }
      Collection<UpsertResult> results = w.prepareCommit();
      return new UpsertCommittable("job", "sink", id, new ArrayList<>(results));
    }
  }

  private List<String> commit(UpsertCommittable c, UpsertCommitter.BeforeCommit hook) throws Exception {
    Request r = new Request(c);
    try (UpsertCommitter committer = new UpsertCommitter(uri, SinkFixtures.options(SinkFixtures.LOCAL),
        new UpsertKeys(QuiverUpsertSinkTest.ROW_TYPE, List.of("id")), hook)) {
      committer.commit(List.of(r));
    }
    return r.signals;
  }

  private Map<Long, List<Long>> rowsByKey() throws Exception {
    Map<Long, List<Long>> out = new TreeMap<>();
    QuiverUpsertSinkTest.Read read = QuiverUpsertSinkTest.read(uri);
    read.counts().forEach((k, n) -> out.put(k, new ArrayList<>()));
    read.values().forEach((k, v) -> out.get(k).add(v));
    read.counts().forEach((k, n) -> assertThat(n).as("rows of key %d", k).isEqualTo(1));
    return out;
  }

  @Test
  void aConcurrentAppendOfAChangedKeyIsRefusedAndTheCheckpointReappliedOnTop() throws Exception {
    UpsertCommittable c = checkpoint(1, Map.of(1L, 100L), List.of(2L));
    List<Integer> attempts = new ArrayList<>();
    List<String> signals = commit(c, attempt -> {
      attempts.add(attempt);
      if (attempt == 1) {
        javaAppend(1, -1); // lands after the scan: the delta did not see this row of key 1
      }
    });
    assertThat(signals).isEmpty();
    assertThat(attempts).containsExactly(1, 2);
    Map<Long, List<Long>> t = rowsByKey();
    assertThat(t).containsOnlyKeys(1L, 3L);
    assertThat(t.get(1L)).containsExactly(100L);
    try (Dataset ds = Dataset.open(uri, SinkFixtures.options(SinkFixtures.LOCAL))) {
      List<String> ops = ds.versions().stream().map(VersionInfo::operation).toList();
      assertThat(ops.get(0)).isEqualTo("row-delta");
      assertThat(ops.get(1)).isEqualTo("append");
    }
  }

  @Test
  void aConcurrentAppendOfOtherKeysLetsTheCommitThroughAtOnce() throws Exception {
    UpsertCommittable c = checkpoint(1, Map.of(1L, 100L), List.of());
    List<Integer> attempts = new ArrayList<>();
    commit(c, attempt -> {
      attempts.add(attempt);
      if (attempt == 1) {
        javaAppend(999, -999); // its statistics show it holds no changed key
      }
    });
    assertThat(attempts).containsExactly(1);
    Map<Long, List<Long>> t = rowsByKey();
    assertThat(t).containsOnlyKeys(1L, 2L, 3L, 999L);
    assertThat(t.get(1L)).containsExactly(100L);
  }

  @Test
  void aReplayedCheckpointIsAcknowledgedNotReapplied() throws Exception {
    UpsertCommittable one = checkpoint(1, Map.of(1L, 100L), List.of());
    assertThat(commit(one, a -> { })).isEmpty();
    UpsertCommittable two = checkpoint(2, Map.of(1L, 200L), List.of(3L));
    assertThat(commit(two, a -> { })).isEmpty();
    assertThat(commit(one, a -> { })).containsExactly("already"); // would set key 1 back to 100
    Map<Long, List<Long>> t = rowsByKey();
    assertThat(t).containsOnlyKeys(1L, 2L);
    assertThat(t.get(1L)).containsExactly(200L);
  }

  static final class Request implements CommitRequest<UpsertCommittable> {
    final UpsertCommittable committable;
    final List<String> signals = new ArrayList<>();

    Request(UpsertCommittable committable) {
      this.committable = committable;
    }

    @Override public UpsertCommittable getCommittable() { return committable; }
    @Override public int getNumberOfRetries() { return 0; }
    @Override public void signalFailedWithKnownReason(Throwable t) { signals.add("failed-known"); }
    @Override public void signalFailedWithUnknownReason(Throwable t) { signals.add("failed-unknown"); }
    @Override public void retryLater() { signals.add("retry"); }
    @Override public void updateAndRetryLater(UpsertCommittable c) { signals.add("update"); }
    @Override public void signalAlreadyCommitted() { signals.add("already"); }
  }

}
