package io.quiver.conformance;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static io.quiver.predicate.Predicate.and;
import static io.quiver.predicate.Predicate.ge;
import static io.quiver.predicate.Predicate.isNull;
import static io.quiver.predicate.Predicate.lt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.DeleteResult;
import io.quiver.dataset.RowAddress;
import io.quiver.dataset.SampleTable;
import io.quiver.exceptions.NotFoundException;
import io.quiver.manifest.Fragment;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import java.util.stream.LongStream;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;

/**
 * Deletes and restores on a real store adapter, opened by URI: deletion files written and read back through
 * the store, by scans, take and countRows, and the delete races of the catalogue (B5, B6, B8).
 */
public abstract class DeleteContract extends StoreJourney {
  protected DatasetOptions options() {
    return optionsBuilder()
        .rowsPerBatch(16)
        .maxRowsPerFragment(40)
        .build();
  }

  /** ids 0..99 in fragments 0 [0, 40), 1 [40, 80), 2 [80, 100). */
  private Dataset create(String uri) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 100)) {
      return Dataset.create(uri, SampleTable.SCHEMA, List.of(b), options(), io.quiver.model.ModelWorld.SMALL_SEGMENTS);
    }
  }

  private static List<Long> idsWhere(LongPredicate keep) {
    return LongStream.range(0, 100).filter(keep).boxed().toList();
  }

  private static Map<Long, Long> addresses(Dataset ds) throws Exception {
    Map<Long, Long> out = new HashMap<>();
    try (ArrowReader reader = ds.newScan().columns("id").withRowAddress(true).open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        UInt8Vector addr = (UInt8Vector) root.getVector(RowAddress.COLUMN);
        for (int i = 0; i < root.getRowCount(); i++) {
          out.put(id.get(i), addr.get(i));
        }
      }
    }
    return out;
  }

  @Test
  void deletesByPredicateAndAddressAreReadBackByScanTakeAndCount() throws Exception {
    String uri = newTableUri();
    long[] doomed;
    try (Dataset ds = create(uri)) {
      // s.x is null when the struct is null (id % 11 == 5) or x is (id % 5 == 1).
      DeleteResult r = ds.delete(isNull("s.x"));
      assertThat(r.version()).isEqualTo(2);
      assertThat(r.deletedRows()).isEqualTo(100 - idsWhere(id -> id % 11 != 5 && id % 5 != 1).size());
      Map<Long, Long> addressOf = addresses(ds);
      doomed = new long[] {addressOf.get(0L), addressOf.get(42L), addressOf.get(99L)};
      assertThat(ds.delete(doomed)).isEqualTo(new DeleteResult(3, 3));
      for (Fragment f : ds.manifest().fragments()) {
        assertThat(f.deletionFile().orElseThrow().path()).startsWith("_deletions/" + f.id() + "-2-");
      }
    }
    List<Long> kept = idsWhere(id -> id % 11 != 5 && id % 5 != 1 && id != 0 && id != 42 && id != 99);
    try (Dataset ds = Dataset.open(uri, options())) {
      assertThat(scanIds(ds.newScan().open())).isEqualTo(kept);
      assertThat(ds.countRows()).isEqualTo(kept.size());
      assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> ds.take(new long[]{doomed[1]}, List.of()).close());
      try (VectorSchemaRoot rows = ds.take(new long[] {RowAddress.of(2, 3), RowAddress.of(0, 2)}, List.of())) {
        assertThat(SampleTable.checkRows(rows)).isEqualTo(List.of(83L, 2L));
      }
      try (Dataset v1 = ds.checkout(1)) {
        assertThat(scanIds(v1.newScan().open())).isEqualTo(range(0, 100));
      }
    }
  }

  @Test
  void b5_deletesOfDisjointRowsInOneFragmentAreBothKept() {
    String uri = newTableUri();
    try (Dataset a = create(uri); Dataset b = Dataset.open(uri, options())) {
      assertThat(a.delete(lt("id", 5))).isEqualTo(new DeleteResult(2, 5));
      assertThat(b.delete(and(ge("id", 30), lt("id", 35)))).isEqualTo(new DeleteResult(3, 5));
    }
    try (Dataset ds = Dataset.open(uri, options())) {
      assertThat(scanIds(ds.newScan().open())).isEqualTo(idsWhere(id -> id >= 5 && (id < 30 || id >= 35)));
    }
  }

  @Test
  void b6_deletesOfTheSameRowsNeverResurrectARow() {
    String uri = newTableUri();
    try (Dataset a = create(uri); Dataset b = Dataset.open(uri, options()); Dataset c = Dataset.open(uri, options())) {
      a.delete(lt("id", 10));
      assertThat(b.delete(and(ge("id", 5), lt("id", 15)))).isEqualTo(new DeleteResult(3, 5));
      assertThat(c.delete(lt("id", 20))).isEqualTo(new DeleteResult(4, 5));
    }
    try (Dataset ds = Dataset.open(uri, options())) {
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(20, 100));
      assertThat(ds.countRows()).isEqualTo(80);
    }
  }

  @Test
  void b8_restoreBringsBackDeletedRowsAndRacesAreTyped() {
    String uri = newTableUri();
    try (Dataset a = create(uri); Dataset b = Dataset.open(uri, options())) {
      a.delete(lt("id", 50)); // v2
      assertThatExceptionOfType(io.quiver.exceptions.RetryableConflictException.class).isThrownBy(() -> b.restore(1));
      assertThat(a.restore(1)).isEqualTo(3);
      assertThat(scanIds(a.newScan().open())).isEqualTo(range(0, 100));
    }
  }
}
