package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.manifest.ScalarIndex;
import io.quiver.predicate.Predicate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Row deltas keyed by a column with a scalar index (issue 42). A row delta deletes by address: the engine (the
 * Flink upsert committer, Spark's MERGE) finds the rows holding its keys with a scan filtered by {@code key IN
 * (...)}, and that scan asks the indices. Here the engine's steps are run on twin tables, one scanning with the
 * index and one without: the same addresses are found, the same delta commits, the same rows result; and in the
 * stale cases (key column updated, compaction, an index built at an old version, rows appended or added by an
 * earlier delta) the rows the index no longer describes are scanned, so no replaced row survives.
 */
class RowDeltaIndexTest {
  private RootAllocator allocator;
  private Dataset indexed;
  private Dataset plain;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    indexed = ScanFixture.create(ScanFixture.newUri(), allocator, ScanFixture.options(allocator));
    plain = ScanFixture.create(ScanFixture.newUri(), allocator, ScanFixture.options(allocator));
    both(ds -> ds.indices().create("by_id", ScalarIndex.Kind.BTREE, "id"));
  }

  @AfterEach
  void tearDown() {
    indexed.close();
    plain.close();
    allocator.close(); // fails on a leak
  }

  private void both(Consumer<Dataset> change) {
    change.accept(indexed);
    change.accept(plain);
  }

  /** What the engine found and committed on one table. */
  private record Upsert(TreeSet<Long> addresses, ScanMetrics metrics, RowDeltaResult result) {}

  /**
   * The engine's upsert of {@code keys}: scan {@code id IN keys} with row addresses, match each row's key exactly,
   * then commit one delta deleting the rows found and adding one new row per key (name {@code prefix<id>}).
   */
  private Upsert upsert(Dataset ds, boolean indices, String prefix, long... keys) {
    Set<Long> wanted = new TreeSet<>();
    List<Object> literals = new ArrayList<>();
    for (long k : keys) {
      wanted.add(k);
      literals.add(k);
    }
    Predicate filter = Predicate.in("id", literals);
    ScanMetrics metrics = new ScanMetrics();
    TreeSet<Long> addresses = new TreeSet<>();
    Set<Long> fragments = new TreeSet<>();
    try (ArrowReader reader = ds.newScan().columns(List.of("id")).filter(filter).withRowAddress(true)
        .useIndices(indices).metrics(metrics).open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot batch = reader.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) batch.getVector("id");
        UInt8Vector address = (UInt8Vector) batch.getVector(RowAddress.COLUMN);
        for (int i = 0; i < batch.getRowCount(); i++) {
          if (wanted.contains(id.get(i))) {
            addresses.add(address.get(i));
            fragments.add(RowAddress.fragmentId(address.get(i)));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    WriteResult rows;
    try (DistributedWriter w = ds.distributed().newWriter()) {
      List<VectorSchemaRoot> batches = new ArrayList<>();
      try {
        for (long k : keys) {
          VectorSchemaRoot b = SampleTable.batch(allocator, k, 1);
          batches.add(b);
          ((VarCharVector) b.getVector("name")).setSafe(0, (prefix + k).getBytes(StandardCharsets.UTF_8));
        }
        rows = w.write(batches);
      } finally {
        batches.forEach(VectorSchemaRoot::close);
      }
    }
    RowDeltaResult result = ds.distributed().newRowDelta(ds.version())
        .deleteRows(addresses.stream().mapToLong(Long::longValue).toArray())
        .addRows(List.of(rows)).readFragments(fragments).conflictFilter(filter).description("upsert")
        .commit(CommitOptions.defaults());
    return new Upsert(addresses, metrics, result);
  }

  /** Upserts on both tables, asserts the same addresses, result and rows; returns the indexed table's upsert. */
  private Upsert upsertBoth(String prefix, long... keys) {
    Upsert a = upsert(indexed, true, prefix, keys);
    Upsert b = upsert(plain, false, prefix, keys);
    assertThat(a.addresses()).isEqualTo(b.addresses());
    assertThat(a.result()).isEqualTo(b.result());
    assertThat(rowsById(indexed)).containsExactlyEntriesOf(rowsById(plain));
    assertThat(b.metrics().fragmentsAnsweredByIndex()).isZero();
    assertThat(a.metrics().rowsReturned()).isLessThanOrEqualTo(b.metrics().rowsReturned());
    for (long k : keys) {
      assertThat(rowsById(indexed).get(k)).as("id " + k + " has exactly its new row").containsExactly(prefix + k);
    }
    return a;
  }

  /** Every live row's name, by id (a list: an id held twice would show). */
  private static Map<Long, List<String>> rowsById(Dataset ds) {
    Map<Long, List<String>> out = new TreeMap<>();
    try (ArrowReader reader = ds.newScan().columns(List.of("id", "name")).useIndices(false).open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot batch = reader.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) batch.getVector("id");
        VarCharVector name = (VarCharVector) batch.getVector("name");
        for (int i = 0; i < batch.getRowCount(); i++) {
          out.computeIfAbsent(id.get(i), x -> new ArrayList<>())
              .add(name.isNull(i) ? null : new String(name.get(i), StandardCharsets.UTF_8));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  @Test
  void theRowsToReplaceAreFoundThroughTheIndex() {
    Upsert u = upsertBoth("d", 1, 3, 12, 61, 150, 170, 5000);
    assertThat(u.addresses()).as("1, 12, 61, 170 (3 and 150 are deleted, 5000 is new)").hasSize(4);
    assertThat(u.result().deletedRows()).isEqualTo(4);
    assertThat(u.metrics().fragmentsAnsweredByIndex()).isPositive();
    assertThat(u.metrics().fragmentsScannedWithoutIndex()).isZero();
    assertThat(u.metrics().rowsReturned()).isEqualTo(4);
  }

  @Test
  void aDeltaAfterADeltaScansTheRowsTheFirstAdded() {
    upsertBoth("a", 10, 20, 7000);
    // The first delta's rows are in a new fragment no segment covers: scanned, and replaced again.
    Upsert second = upsertBoth("b", 10, 7000, 30);
    assertThat(second.addresses()).hasSize(3);
    assertThat(second.metrics().fragmentsScannedWithoutIndex()).isEqualTo(1);
  }

  @Test
  void staleIndexAfterAnUpdateOfTheKeyColumn() {
    both(ds -> ds.update(Predicate.eq("id", 42L), Map.of("id", 4242L)));
    Upsert u = upsertBoth("u", 42, 4242, 130);
    assertThat(u.addresses()).as("4242 and 130").hasSize(2);
    // the updated fragment is answered by the index with its overlay cells checked (format.md §13.1)
    assertThat(u.metrics().fragmentsScannedWithoutIndex()).isZero();
  }

  @Test
  void compactionThenDelta() {
    both(ds -> ds.compact(CompactionOptions.defaults()));
    Upsert before = upsertBoth("c", 1, 42, 130);
    assertThat(before.metrics().fragmentsAnsweredByIndex()).isZero();
    both(ds -> ds.indices().optimize("by_id"));
    Upsert after = upsertBoth("d", 1, 42, 131);
    assertThat(after.metrics().fragmentsAnsweredByIndex()).isPositive();
    assertThat(after.addresses()).hasSize(3);
  }

  @Test
  void indexBuiltAtAnOldVersionAndRowsAppendedAfter() {
    both(ds -> ds.indices().drop("by_id"));
    long built = indexed.version();
    both(ds -> {
      try (Dataset old = ds.checkout(built)) {
        ds.update(Predicate.eq("id", 44L), Map.of("id", 4444L));
        try (VectorSchemaRoot b = SampleTable.batch(allocator, 2000, 10)) {
          ds.append(List.of(b));
        }
        old.indices().create("by_id", ScalarIndex.Kind.BTREE, "id");
      }
    });
    indexed = reopen(indexed);
    plain = reopen(plain);
    Upsert u = upsertBoth("o", 44, 4444, 2005, 130);
    assertThat(u.addresses()).as("4444, 2005, 130").hasSize(3);
    assertThat(u.metrics().fragmentsScannedWithoutIndex()).as("the appended fragment; the updated one is answered by"
        + " the index with its overlay cells checked").isEqualTo(1);
  }

  private Dataset reopen(Dataset ds) {
    Dataset again = Dataset.open(ds.uri(), ScanFixture.options(allocator));
    ds.close();
    return again;
  }
}
