package io.quiver.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.ColumnFunction;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.RowAddress;
import io.quiver.dataset.SampleTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Column evolution round-trips through scan and take on a real store adapter, opened by URI. */
public abstract class ColumnEvolutionContract extends StoreJourney {
  private DatasetOptions options() {
    return optionsBuilder()
        .maxRowsPerFragment(16)
        .rowsPerBatch(8)
        .build();
  }

  /** A struct column {@code t: {sum int64, neg int32}} computed from id. */
  private static final Field T =
      new Field("t", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
          new Field("sum", FieldType.notNullable(new ArrowType.Int(64, true)), null),
          new Field("neg", FieldType.nullable(new ArrowType.Int(32, true)), null)));

  private static final ColumnFunction COMPUTE_T = (input, alloc) -> {
    BigIntVector id = (BigIntVector) input.getVector("id");
    VectorSchemaRoot out = VectorSchemaRoot.create(new Schema(List.of(T)), alloc);
    StructVector t = (StructVector) out.getVector(0);
    t.allocateNew();
    for (int i = 0; i < input.getRowCount(); i++) {
      t.setIndexDefined(i);
      ((BigIntVector) t.getChild("sum")).setSafe(i, id.get(i) + 1000);
      if (id.get(i) % 3 == 0) {
        ((IntVector) t.getChild("neg")).setNull(i);
      } else {
        ((IntVector) t.getChild("neg")).setSafe(i, -(int) id.get(i));
      }
    }
    t.setValueCount(input.getRowCount());
    out.setRowCount(input.getRowCount());
    return out;
  };

  @Test
  void addedNestedColumnDroppedAndRenamedColumnsRoundTripThroughScanAndTake() {
    String uri = newTableUri();
    try (VectorSchemaRoot first = SampleTable.batch(allocator, 0, 40);
        Dataset ds = Dataset.create(uri, SampleTable.SCHEMA, List.of(first), options(), io.quiver.model.ModelWorld.SMALL_SEGMENTS)) {
      ds.columns().add(List.of(T), List.of("id"), COMPUTE_T);
      ds.columns().rename("t.neg", "minus");
      ds.columns().drop("name");
    }
    try (Dataset ds = Dataset.open(uri, options())) {
      Map<Long, String> seen = new HashMap<>();
      try (ArrowReader r = ds.newScan().columns("id", "t.minus", "t.sum").open()) {
        while (r.loadNextBatch()) {
          VectorSchemaRoot root = r.getVectorSchemaRoot();
          StructVector t = (StructVector) root.getVector("t");
          for (int i = 0; i < root.getRowCount(); i++) {
            long id = ((BigIntVector) root.getVector("id")).get(i);
            seen.put(id, t.getChild("sum").getObject(i) + "/" + t.getChild("minus").getObject(i));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      assertThat(seen.size()).isEqualTo(40);
      assertThat(seen.get(5L)).isEqualTo("1005/-5");
      assertThat(seen.get(6L)).isEqualTo("1006/null");
      assertThat(ds.schema().findTopLevel("name").isPresent()).isFalse();
      try (VectorSchemaRoot rows = ds.take(new long[] {RowAddress.of(2, 3), RowAddress.of(0, 1)}, List.of("t"))) {
        StructVector t = (StructVector) rows.getVector("t");
        assertThat(t.getChild("sum").getObject(0)).isEqualTo(1035L);
        assertThat(t.getChild("minus").getObject(1)).isEqualTo(-1);
      }
      try (Dataset v1 = ds.checkout(1)) {
        assertThat(SampleTable.scanIds(v1.newScan().open())).isEqualTo(SampleTable.range(0, 40));
      }
      assertThat(ds.validate().isValid()).as(ds.validate().toString()).isTrue();
    }
  }
}
