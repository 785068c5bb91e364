package io.quiver.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.CompactionResult;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.RowAddress;
import io.quiver.dataset.SampleTable;
import io.quiver.dataset.UpdateResult;
import io.quiver.exceptions.NotFoundException;
import io.quiver.predicate.Predicate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;

/** Updates through overlays and compaction on a real store adapter, opened by URI. */
public abstract class UpdateStoreContract extends StoreJourney {
  private DatasetOptions options() {
    return optionsBuilder()
        .rowsPerBatch(64)
        .build();
  }

  /** The values a test checks: id → [name, s null?, s.x]. */
  private static Map<Long, List<Object>> cells(ArrowReader reader) {
    Map<Long, List<Object>> out = new HashMap<>();
    try (reader) {
      while (reader.loadNextBatch()) {
        out.putAll(cells(reader.getVectorSchemaRoot()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static Map<Long, List<Object>> cells(VectorSchemaRoot root) {
    Map<Long, List<Object>> out = new HashMap<>();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    StructVector s = (StructVector) root.getVector("s");
    IntVector x = (IntVector) s.getChild("x");
    for (int i = 0; i < root.getRowCount(); i++) {
      out.put(id.get(i), java.util.Arrays.asList(
          name.isNull(i) ? null : name.getObject(i).toString(), s.isNull(i), s.isNull(i) ? null : x.getObject(i)));
    }
    return out;
  }

  private static List<Object> base(long id) {
    boolean sNull = SampleTable.structIsNull(id);
    return java.util.Arrays.asList(SampleTable.expectedName(id), sNull, sNull ? null : SampleTable.expectedX(id));
  }

  @Test
  void updatesRoundTripThroughScanTakeReopenAndCompaction() {
    String uri = newTableUri();
    try (VectorSchemaRoot first = SampleTable.batch(allocator, 0, 200);
        Dataset ds = Dataset.create(uri, SampleTable.SCHEMA, List.of(first), options())) {
      try (VectorSchemaRoot more = SampleTable.batch(allocator, 200, 100)) {
        ds.append(List.of(more));
      }
      assertThat(ds.update(Predicate.and(Predicate.ge("id", 190), Predicate.lt("id", 210)), Map.of("name", "u", "s.x", 1))).isEqualTo(new UpdateResult(3, 20));
      Map<String, Object> nullName = new HashMap<>();
      nullName.put("name", null);
      assertThat(ds.update(new long[]{RowAddress.of(0, 5), RowAddress.of(1, 0)}, nullName)).isEqualTo(new UpdateResult(4, 2));
    }
    Map<Long, List<Object>> want = new HashMap<>();
    for (long id = 0; id < 300; id++) {
      want.put(id, base(id));
    }
    for (long id = 190; id < 210; id++) {
      // An update never changes struct validity: where s is null (ids 192, 203) it stays null.
      boolean sNull = SampleTable.structIsNull(id);
      want.put(id, java.util.Arrays.asList("u", sNull, sNull ? null : 1));
    }
    want.get(5L).set(0, null); // by address: only the name of rows 5 and 200 became null
    want.get(200L).set(0, null);
    try (Dataset ds = Dataset.open(uri, options())) {
      assertThat(ds.version()).isEqualTo(4);
      assertThat(cells(ds.newScan().open())).isEqualTo(want);
      try (VectorSchemaRoot taken = ds.take(new long[] {RowAddress.of(1, 0), 5, 195}, List.of())) {
        Map<Long, List<Object>> got = cells(taken);
        assertThat(got.get(200L)).isEqualTo(want.get(200L));
        assertThat(got.get(5L)).isEqualTo(want.get(5L));
        assertThat(got.get(195L)).isEqualTo(want.get(195L));
      }
      CompactionResult compacted = ds.compact(CompactionOptions.defaults());
      assertThat(compacted).isEqualTo(new CompactionResult(5, 2, 1, 300));
      assertThat(cells(ds.newScan().open())).isEqualTo(want);
      assertThat(ds.manifest().fragments().get(0).overlays().isEmpty()).isTrue();
      assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> ds.take(new long[]{RowAddress.of(1, 0)}, List.of()).close());
      try (Dataset old = ds.checkout(4)) {
        assertThat(cells(old.newScan().open())).isEqualTo(want);
      }
    }
  }
}
