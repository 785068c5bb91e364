package io.quiver.dataset;

import static io.quiver.dataset.MergeInsertTest.SCHEMA;
import static io.quiver.dataset.MergeInsertTest.batch;
import static io.quiver.dataset.MergeInsertTest.read;
import static io.quiver.dataset.MergeInsertTest.readLatest;
import static io.quiver.dataset.MergeInsertTest.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.MergeInsertTest.Row;
import io.quiver.exceptions.IdempotenceKeyConflictException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.NotFoundException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.exceptions.StaleReadVersionException;
import io.quiver.predicate.Predicate;
import io.quiver.scenario.ScenarioTable.ManualClock;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectInfo;
import io.quiver.store.TestStores;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Row deltas (an engine's MERGE INTO / UPDATE / DELETE): deleted addresses and workers' rows in one commit bound
 * to the read version, exactly once under a key from any handle, and refused when what was read changed.
 */
class RowDeltaTest {
  private static final String URI_ = "memory://rowdelta";

  private RootAllocator allocator;
  private ManualClock clock;
  private MemoryObjectStore store;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    clock = new ManualClock(Instant.parse("2026-12-02T00:00:00Z"));
    store = new MemoryObjectStore(URI_, clock);
    options = DatasetOptions.builder()
        .allocator(allocator)
        .registry(TestStores.registry("memory", TestStores.keepOpen(store)))
        .session(new Session(1 << 20))
        .clock(clock)
        .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
        .build();
  }

  @AfterEach
  void tearDown() {
    allocator.close(); // fails on a leak
  }

  /** Ids 0..5 in fragment 0, 6..9 in fragment 1; name t<id>, ts = id. Version 2. */
  private Dataset target() {
    Dataset ds;
    try (VectorSchemaRoot b = batch(allocator, SCHEMA, rows(0, 6, "t", 0))) {
      ds = Dataset.create(URI_, SCHEMA, List.of(b), options);
    }
    append(ds, 6, 10);
    return ds;
  }

  private static void append(Dataset ds, long from, long to) {
    try (VectorSchemaRoot b = batch(ds.allocator(), SCHEMA, rows(from, to, "t", 0))) {
      ds.append(List.of(b));
    }
  }

  /** What a worker writes at the handle's version: the given rows. */
  private static WriteResult written(Dataset ds, List<Row> rows) {
    try (DistributedWriter w = ds.distributed().newWriter();
        VectorSchemaRoot b = batch(ds.allocator(), SCHEMA, rows)) {
      return w.write(List.of(b));
    }
  }

  private static long addr(long fragment, long offset) {
    return RowAddress.of(fragment, offset);
  }

  private TreeSet<String> keys() {
    TreeSet<String> out = new TreeSet<>();
    for (ObjectInfo o : store.listAll("")) {
      out.add(o.key());
    }
    return out;
  }

  private static List<Row> expectedAfterMerge() {
    List<Row> out = new ArrayList<>(rows(0, 10, "t", 0));
    out.remove(8); // id 8 deleted
    out.set(2, new Row(2L, "u2", 2L)); // id 2 updated
    out.add(new Row(20L, "new", 20L)); // id 20 inserted
    return out;
  }

  /** The MERGE of the tests: update id 2 (fragment 0, offset 2), delete id 8 (fragment 1, offset 2), insert id 20. */
  private RowDelta merge(Dataset ds, long readVersion) {
    WriteResult rows = written(ds, List.of(new Row(2L, "u2", 2L), new Row(20L, "new", 20L)));
    return ds.distributed().newRowDelta(readVersion).deleteRows(addr(0, 2)).deleteRows(addr(1, 2), addr(0, 2))
        .addRows(List.of(rows)).description("spark MERGE");
  }

  @Test
  void deletesAndAddedRowsCommitAsOneVersion() {
    try (Dataset ds = target()) {
      RowDeltaResult r = merge(ds, 2).commit(CommitOptions.defaults());
      assertThat(r).isEqualTo(new RowDeltaResult(3, 2, 2, false));
      assertThat(ds.version()).isEqualTo(3);
      assertThat(read(ds)).containsExactlyElementsOf(expectedAfterMerge());
      assertThat(ds.versionInfo(3).operation()).isEqualTo("row-delta");
      assertThat(ds.validate().isValid()).isTrue();
      try (Dataset before = ds.checkout(2)) {
        assertThat(read(before)).containsExactlyElementsOf(rows(0, 10, "t", 0));
      }
    }
  }

  @Test
  void aKeyedRetryFromARestartedProcessCommitsOnce() {
    try (Dataset ds = target()) {
      CommitOptions keyed = CommitOptions.defaults().withIdempotenceKey("spark/q1/merge");
      WriteResult rows = written(ds, List.of(new Row(2L, "u2", 2L), new Row(20L, "new", 20L)));
      assertThat(ds.distributed().newRowDelta(2).deleteRows(addr(0, 2), addr(1, 2)).addRows(List.of(rows))
          .commit(keyed).version()).isEqualTo(3);
      append(ds, 30, 31); // version 4, after the delta
      // A restarted driver: a new handle on the read version, the workers re-run (new files, same rows).
      try (Dataset restarted = Dataset.open(URI_, options, 2)) {
        WriteResult again = written(restarted, List.of(new Row(2L, "u2", 2L), new Row(20L, "new", 20L)));
        assertThat(again.files()).doesNotContainAnyElementsOf(rows.files());
        RowDeltaResult r = restarted.distributed().newRowDelta(2).deleteRows(addr(1, 2), addr(0, 2))
            .addRows(List.of(again)).commit(keyed);
        assertThat(r.alreadyCommitted()).isTrue();
        assertThat(r.version()).isEqualTo(3);
        assertThat(restarted.latestVersion()).isEqualTo(4);
      }
      List<Row> expected = new ArrayList<>(expectedAfterMerge());
      expected.add(new Row(30L, "t30", 30L));
      assertThat(readLatest(ds)).containsExactlyElementsOf(expected);
      // Other content under the key: a typed error, nothing committed.
      WriteResult other = written(ds, List.of(new Row(21L, "x", 21L)));
      IdempotenceKeyConflictException e = assertThatExceptionOfType(IdempotenceKeyConflictException.class)
          .isThrownBy(() -> ds.distributed().newRowDelta(2).deleteRows(addr(0, 2)).addRows(List.of(other))
              .commit(keyed)).actual();
      assertThat(e.getMessage()).contains("spark/q1/merge").contains("version 3");
      assertThat(ds.latestVersion()).isEqualTo(4);
    }
  }

  @Test
  void aKeyedRetryAfterACleanupRemovedTheReadVersionIsFoundAndAnUnkeyedOneRefused() {
    try (Dataset ds = target()) {
      CommitOptions keyed = CommitOptions.defaults().withIdempotenceKey("spark/q2/merge");
      assertThat(merge(ds, 2).commit(keyed).version()).isEqualTo(3);
      append(ds, 40, 41);
      clock.advance(Duration.ofHours(2));
      ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).build());
      try (Dataset restarted = Dataset.open(URI_, options)) {
        RowDeltaResult r = merge(restarted, 2).commit(keyed);
        assertThat(r.alreadyCommitted()).isTrue();
        assertThat(r.version()).isEqualTo(3);
        StaleReadVersionException e = assertThatExceptionOfType(StaleReadVersionException.class)
            .isThrownBy(() -> merge(restarted, 2).commit(CommitOptions.defaults())).actual();
        assertThat(e.getMessage()).contains("version 2").contains("Nothing was committed");
        assertThat(restarted.latestVersion()).isEqualTo(4);
      }
    }
  }

  @Test
  void aConcurrentDeleteInAFragmentTheDeltaReadRefusesItAndRemovesOnlyItsOwnFiles() {
    try (Dataset ds = target(); Dataset other = Dataset.open(URI_, options)) {
      RowDelta delta = merge(ds, 2).readFragments(List.of(0L, 1L));
      other.delete(Predicate.eq("id", 7L)); // fragment 1, version 3
      TreeSet<String> before = keys();
      RetryableConflictException e = assertThatExceptionOfType(RetryableConflictException.class)
          .isThrownBy(() -> delta.commit(CommitOptions.defaults())).actual();
      assertThat(e.getMessage()).contains("row-delta").contains("version 3").contains("Nothing was committed");
      assertThat(ds.latestVersion()).isEqualTo(3);
      assertThat(keys()).as("its deletion files are gone; the workers' files stay").isEqualTo(before);
      assertThat(readLatest(ds)).doesNotContain(new Row(7L, "t7", 7L)).contains(new Row(8L, "t8", 8L));
    }
  }

  @Test
  void aConcurrentChangeToAFragmentTheDeltaDidNotReadLetsItCommit() {
    try (Dataset ds = target(); Dataset other = Dataset.open(URI_, options)) {
      WriteResult rows = written(ds, List.of(new Row(2L, "u2", 2L)));
      RowDelta delta = ds.distributed().newRowDelta(2).deleteRows(addr(0, 2)).addRows(List.of(rows))
          .readFragments(List.of(0L)).conflictFilter(Predicate.lt("id", 6L));
      other.delete(Predicate.eq("id", 7L)); // fragment 1 only
      RowDeltaResult r = delta.commit(CommitOptions.defaults());
      assertThat(r.version()).isEqualTo(4);
      List<Row> expected = new ArrayList<>(rows(0, 10, "t", 0));
      expected.remove(7);
      expected.set(2, new Row(2L, "u2", 2L));
      assertThat(readLatest(ds)).containsExactlyElementsOf(expected);
    }
  }

  @Test
  void serializableRefusesAConcurrentAppendItWouldHaveReadAndSnapshotLetsItThrough() {
    try (Dataset ds = target(); Dataset other = Dataset.open(URI_, options)) {
      // The read was "id < 6": an appended id 3 may match (its statistics say so), an appended id 50 cannot.
      append(other, 50, 51); // version 3: outside the filter
      WriteResult rows = written(ds, List.of(new Row(2L, "u2", 2L)));
      RowDelta first = ds.distributed().newRowDelta(2).deleteRows(addr(0, 2)).addRows(List.of(rows))
          .readFragments(List.of(0L)).conflictFilter(Predicate.lt("id", 6L));
      assertThat(first.commit(CommitOptions.defaults()).version()).isEqualTo(4);

      try (VectorSchemaRoot b = batch(allocator, SCHEMA, List.of(new Row(3L, "dup", 3L)));
          Dataset latest = other.checkoutLatest()) {
        latest.append(List.of(b)); // version 5: may match
      }
      WriteResult again = written(ds, List.of(new Row(1L, "u1", 1L)));
      RetryableConflictException e = assertThatExceptionOfType(RetryableConflictException.class)
          .isThrownBy(() -> ds.distributed().newRowDelta(4).deleteRows(addr(0, 1)).addRows(List.of(again))
              .readFragments(List.of(0L)).conflictFilter(Predicate.lt("id", 6L)).commit(CommitOptions.defaults()))
          .actual();
      assertThat(e.getMessage()).contains("append committed as version 5");
      // Snapshot isolation, chosen per delta or by the table's configuration, lets it through.
      RowDeltaResult r = ds.distributed().newRowDelta(4).deleteRows(addr(0, 1)).addRows(List.of(again))
          .readFragments(List.of(0L)).conflictFilter(Predicate.lt("id", 6L)).isolation(RowDelta.Isolation.SNAPSHOT)
          .commit(CommitOptions.defaults());
      assertThat(r.version()).isEqualTo(6);
      assertThat(ds.versionInfo(6).operation()).isEqualTo("row-delta");
    }
  }

  @Test
  void theTableConfigurationSetsTheDefaultIsolationAndRefusesOtherValues() {
    try (Dataset ds = target(); Dataset other = Dataset.open(URI_, options)) {
      InvalidArgumentException bad = assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.updateConfig(Map.of(RowDelta.ISOLATION_CONFIG, "repeatable-read"), Set.of())).actual();
      assertThat(bad.getMessage()).contains("row-delta.isolation").contains("'serializable' or 'snapshot'")
          .contains("repeatable-read");
      ds.updateConfig(Map.of(RowDelta.ISOLATION_CONFIG, "snapshot"), Set.of()); // version 3
      WriteResult rows = written(ds, List.of(new Row(2L, "u2", 2L)));
      RowDelta delta = ds.distributed().newRowDelta(3).deleteRows(addr(0, 2)).addRows(List.of(rows))
          .readFragments(List.of(0L));
      try (Dataset latest = other.checkoutLatest()) {
        append(latest, 3, 4); // an append with every row matching: ignored under snapshot
      }
      assertThat(delta.commit(CommitOptions.defaults()).version()).isEqualTo(5);
    }
  }

  @Test
  void badInputCommitsNothing() {
    try (Dataset ds = target()) {
      TreeSet<String> before = keys();
      NotFoundException nf = assertThatExceptionOfType(NotFoundException.class)
          .isThrownBy(() -> ds.distributed().newRowDelta(2).deleteRows(addr(1, 4)).commit(CommitOptions.defaults()))
          .actual();
      assertThat(nf.getMessage()).contains("fragment 1 has 4 rows");
      assertThat(keys()).isEqualTo(before);

      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.distributed().newRowDelta(2).conflictFilter(Predicate.eq("nope", 1L))
              .deleteRows(addr(0, 1)).commit(CommitOptions.defaults()))
          .withMessageContaining("nope");
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.distributed().newRowDelta(-1));
      assertThat(ds.latestVersion()).isEqualTo(2);
    }
  }

  @Test
  void rowsWrittenWithAnotherSchemaAreRefused() {
    try (Dataset ds = target()) {
      WriteResult old = written(ds, List.of(new Row(2L, "u2", 2L)));
      ds.columns().drop("ts"); // version 3
      assertThatExceptionOfType(SchemaMismatchException.class)
          .isThrownBy(() -> ds.distributed().newRowDelta(3).deleteRows(addr(0, 2)).addRows(List.of(old))
              .commit(CommitOptions.defaults()))
          .withMessageContaining("workers of one commit must write with the same schema");
      assertThat(ds.latestVersion()).isEqualTo(3);
    }
  }

  @Test
  void anEmptyDeltaCommitsNothingAndAlreadyDeletedRowsAreNotCounted() {
    try (Dataset ds = target()) {
      assertThat(ds.distributed().newRowDelta(2).commit(CommitOptions.defaults()))
          .isEqualTo(new RowDeltaResult(2, 0, 0, false));
      ds.delete(new long[] {addr(0, 1)}); // version 3
      RowDeltaResult r = ds.distributed().newRowDelta(3).deleteRows(addr(0, 1), addr(0, 3))
          .commit(CommitOptions.defaults());
      assertThat(r).isEqualTo(new RowDeltaResult(4, 1, 0, false));
      assertThat(ds.countRows()).isEqualTo(8);
    }
  }
}
