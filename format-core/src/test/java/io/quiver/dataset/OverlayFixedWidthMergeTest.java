package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.MemoryObjectStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * Fixed-width columns merge overlays in place over the base column's buffers; this checks that path cell
 * for cell against a model: rows across batch boundaries, chunks that start mid-batch (small scan
 * batches), covered nulls, two overlays where the newer wins, a variable-width column beside it (the
 * sequential path), and older versions still reading their own values afterwards.
 */
class OverlayFixedWidthMergeTest {
  private static final int ROWS = 20_000;
  private static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("x", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
      new Field("flag", FieldType.nullable(ArrowType.Bool.INSTANCE), null),
      new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

  private record Cells(Double x, Boolean flag, String s) {}

  @Test
  void updatedCellsReadBackEverywhereAndOlderVersionsKeepTheirValues() throws Exception {
    try (RootAllocator allocator = new RootAllocator()) {
      MemoryObjectStore store = new MemoryObjectStore(OverlayTestSupport.URI_);
      // Data files in batches of 8,192 rows: updates straddle file batches; scans cut chunks inside them.
      DatasetOptions options = OverlayTestSupport.options(allocator, store, 8192);
      Map<Long, Cells> model = new HashMap<>();
      try (VectorSchemaRoot batch = VectorSchemaRoot.create(SCHEMA, allocator)) {
        batch.getFieldVectors().forEach(v -> v.setInitialCapacity(ROWS));
        batch.allocateNew();
        for (int r = 0; r < ROWS; r++) {
          ((BigIntVector) batch.getVector("id")).set(r, r);
          ((Float8Vector) batch.getVector("x")).set(r, r / 2.0);
          ((BitVector) batch.getVector("flag")).set(r, r % 3 == 0 ? 1 : 0);
          ((VarCharVector) batch.getVector("s")).setSafe(r, ("s" + r).getBytes());
          model.put((long) r, new Cells(r / 2.0, r % 3 == 0, "s" + r));
        }
        batch.setRowCount(ROWS);
        try (Dataset ds = Dataset.create(OverlayTestSupport.URI_, SCHEMA, List.of(batch), options)) {
          long v1 = ds.version();
          long[] first = {0, 1, 8191, 8192, 8193, 12_345, 16_383, 16_384, 19_999};
          ds.update(first, values(-1.0, null, "first"));
          for (long r : first) {
            model.put(r, new Cells(-1.0, null, "first"));
          }
          long[] second = {1, 8192, 15_000};
          ds.update(second, values(null, true, "second"));
          for (long r : second) {
            model.put(r, new Cells(null, true, "second"));
          }
          for (int batchSize : List.of(1000, 8192, 3)) {
            assertThat(scan(ds, batchSize)).as("batch size " + batchSize).isEqualTo(model);
          }
          try (Dataset old = ds.checkout(v1)) {
            Map<Long, Cells> original = scan(old, 1000);
            assertThat(original.get(1L)).isEqualTo(new Cells(0.5, false, "s1"));
            assertThat(original.get(8192L)).isEqualTo(new Cells(4096.0, false, "s8192"));
          }
          assertThat(scan(ds, 777)).as("a second scan after other reads is unchanged").isEqualTo(model);
        }
      }
      assertThat(allocator.getAllocatedMemory()).isEqualTo(0);
    }
  }

  private static Map<String, Object> values(Double x, Boolean flag, String s) {
    Map<String, Object> out = new HashMap<>();
    out.put("x", x);
    out.put("flag", flag);
    out.put("s", s);
    return out;
  }

  private static Map<Long, Cells> scan(Dataset ds, int batchSize) throws Exception {
    Map<Long, Cells> out = new HashMap<>();
    List<Long> order = new ArrayList<>();
    try (ArrowReader reader = ds.newScan().batchSize(batchSize).open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          long id = ((BigIntVector) root.getVector("id")).get(i);
          Float8Vector x = (Float8Vector) root.getVector("x");
          BitVector flag = (BitVector) root.getVector("flag");
          VarCharVector s = (VarCharVector) root.getVector("s");
          out.put(id, new Cells(x.isNull(i) ? null : x.get(i), flag.isNull(i) ? null : flag.get(i) == 1,
              s.isNull(i) ? null : new String(s.get(i))));
          order.add(id);
        }
      }
    }
    assertThat(order.size()).isEqualTo(ROWS);
    return out;
  }
}
