package io.quiver.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.ScanMetrics;
import io.quiver.manifest.ScalarIndex;
import io.quiver.predicate.Predicate;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upsert committer on a table with a scalar index on the primary key (issue 42): its key scan (an {@code IN}
 * filter) is answered by the index for the fragments it covers, and the result equals the same checkpoints
 * committed to a twin table without the index — also after the key column was updated by another writer since
 * the build, and for the rows an earlier checkpoint added (fragments no segment covers, read whole).
 */
class UpsertIndexTest {
  @TempDir
  Path dir;

  private String indexed;
  private String plain;

  @BeforeEach
  void tables() {
    indexed = create("indexed", true);
    plain = create("plain", false);
  }

  /** Ids 1..3, 4..6 and 7..9 in three fragments (v = 10 * id). */
  private String create(String name, boolean index) {
    String uri = dir.resolve(name).toUri().toString();
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot a = rows(1, 3, allocator);
        Dataset ds = Dataset.create(uri, UpsertCommitterTest.SCHEMA, List.of(a),
            SinkFixtures.options(SinkFixtures.LOCAL))) {
      for (long from : new long[] {4, 7}) {
        try (VectorSchemaRoot b = rows(from, 3, allocator)) {
          ds.append(List.of(b));
        }
      }
      if (index) {
        ds.indices().create("by_id", ScalarIndex.Kind.BTREE, "id");
      }
    }
    return uri;
  }

  private static VectorSchemaRoot rows(long from, int n, RootAllocator allocator) {
    VectorSchemaRoot root = VectorSchemaRoot.create(UpsertCommitterTest.SCHEMA, allocator);
    for (int i = 0; i < n; i++) {
      ((BigIntVector) root.getVector("id")).setSafe(i, from + i);
      ((BigIntVector) root.getVector("v")).setSafe(i, (from + i) * 10);
    }
    root.setRowCount(n);
    return root;
  }

  private static UpsertKeys keys() {
    return new UpsertKeys(QuiverUpsertSinkTest.ROW_TYPE, List.of("id"));
  }

  private static UpsertCommittable checkpoint(String uri, long id, Map<Long, Long> upserts, List<Long> deletes)
      throws Exception {
    try (UpsertWriter w = new UpsertWriter(uri, SinkFixtures.options(SinkFixtures.LOCAL),
        QuiverUpsertSinkTest.ROW_TYPE, keys())) {
      upserts.forEach((k, v) -> w.write(GenericRowData.ofKind(RowKind.UPDATE_AFTER, k, v, StringData.fromString("s")),
          null));
      for (long k : deletes) {
        w.write(GenericRowData.ofKind(RowKind.DELETE, k, null, null), null);
      }
      Collection<UpsertResult> results = w.prepareCommit();
      return new UpsertCommittable("job", "sink", id, new ArrayList<>(results));
    }
  }

  /** Commits one checkpoint to {@code uri}; returns what the committer's key scan read. */
  private static ScanMetrics commit(String uri, long checkpoint, Map<Long, Long> upserts, List<Long> deletes)
      throws Exception {
    UpsertCommitterTest.Request r = new UpsertCommitterTest.Request(checkpoint(uri, checkpoint, upserts, deletes));
    try (UpsertCommitter committer = new UpsertCommitter(uri, SinkFixtures.options(SinkFixtures.LOCAL), keys())) {
      committer.commit(List.of(r));
      assertThat(r.signals).isEmpty();
      return committer.keyScans();
    }
  }

  /** Each live key's value; fails if a key has more than one row. */
  private static Map<Long, Long> table(String uri) throws Exception {
    QuiverUpsertSinkTest.Read read = QuiverUpsertSinkTest.read(uri);
    read.counts().forEach((k, n) -> assertThat(n).as("rows of key %d", k).isEqualTo(1));
    return new TreeMap<>(read.values());
  }

  /** Commits to both tables; asserts equal results; returns the indexed table's key-scan metrics. */
  private ScanMetrics both(long checkpoint, Map<Long, Long> upserts, List<Long> deletes) throws Exception {
    ScanMetrics m = commit(indexed, checkpoint, upserts, deletes);
    ScanMetrics without = commit(plain, checkpoint, upserts, deletes);
    assertThat(table(indexed)).isEqualTo(table(plain));
    assertThat(without.fragmentsAnsweredByIndex()).isZero();
    assertThat(m.dataFilesOpened()).isLessThanOrEqualTo(without.dataFilesOpened());
    return m;
  }

  @Test
  void anUpsertAfterAnUpdateOfTheKeyColumnStaysCorrect() throws Exception {
    // Another writer changes key 2 into 200 after the index was built: fragment 0's segment entry is stale.
    for (String uri : List.of(indexed, plain)) {
      try (Dataset ds = Dataset.open(uri, SinkFixtures.options(SinkFixtures.LOCAL))) {
        ds.update(Predicate.eq("id", 2L), Map.of("id", 200L));
      }
    }
    ScanMetrics first = both(1, Map.of(200L, 2000L, 2L, 22L, 5L, 55L, 8L, 88L), List.of(9L));
    // Fragment 0, changed since the build, is answered by the index with its overlay cells checked (format.md
    // §13.1), as are the fragments of 4..6 and 7..9.
    assertThat(first.fragmentsScannedWithoutIndex()).isZero();
    assertThat(first.fragmentsAnsweredByIndex()).isEqualTo(3);
    Map<Long, Long> t = table(indexed);
    assertThat(t).containsExactlyEntriesOf(new TreeMap<>(Map.of(1L, 10L, 3L, 30L, 4L, 40L, 5L, 55L, 6L, 60L,
        7L, 70L, 8L, 88L, 200L, 2000L, 2L, 22L)));

    // The next checkpoint meets the rows the first added (a new fragment, not covered): read whole.
    ScanMetrics second = both(2, Map.of(5L, 555L, 200L, 20000L, 7L, 777L), List.of(1L));
    assertThat(second.fragmentsScannedWithoutIndex()).isPositive();
    assertThat(second.fragmentsAnsweredByIndex()).isPositive();
    t = table(indexed);
    assertThat(t).containsEntry(5L, 555L).containsEntry(200L, 20000L).containsEntry(7L, 777L).doesNotContainKey(1L)
        .hasSize(8);
  }
}
