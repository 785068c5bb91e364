package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.manifest.Fragment;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.TestStores;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;

/**
 * The README's distributed backfill: workers open the table on their own, derive the same column
 * schema (declaring the input they compute from) from the same version, stage one fragment each from the
 * input values they read, and ship bytes; the coordinator commits all of them as one version.
 */
class DistributedBackfillTest {
  @Test
  void workersStageFragmentsIndependentlyAndOneCommitPublishesThemAll() throws Exception {
    try (RootAllocator allocator = new RootAllocator()) {
      MemoryObjectStore store = new MemoryObjectStore("test://t");
      DatasetOptions options = DatasetOptions.builder()
          .allocator(allocator)
          .registry(TestStores.registry("test", store))
          .session(new Session(1 << 20))
          .maxRowsPerFragment(4)
          .build();
      try (VectorSchemaRoot rows = SampleTable.batch(allocator, 0, 10);
          Dataset table = Dataset.create("test://t", SampleTable.SCHEMA, List.of(rows), options)) {
        long version = table.version();
        List<Fragment> fragments = table.manifest().fragments();
        assertThat(fragments.size()).isEqualTo(3);

        List<byte[]> shipped = new ArrayList<>();
        for (Fragment fragment : fragments) {
          // A worker: its own handles, nothing shared with the coordinator but (uri, version, fragment id).
          try (Dataset latest = Dataset.open("test://t", options); Dataset ds = latest.checkout(version)) {
            // c = s.x + 1, computed from the struct s the worker reads: s is the declared input.
            ColumnSchema schema = ds.columns().newSchema(List.of(StagedColumnSupport.intField("c", true)), List.of(),
                List.of("s"));
            Integer[] values = new Integer[(int) fragment.physicalRows()];
            try (ArrowReader r = ds.newScan().columns("s").withRowAddress(true).open()) {
              while (r.loadNextBatch()) {
                VectorSchemaRoot root = r.getVectorSchemaRoot();
                UInt8Vector addr = (UInt8Vector) root.getVector(RowAddress.COLUMN);
                IntVector x = (IntVector) ((org.apache.arrow.vector.complex.StructVector) root.getVector("s"))
                    .getChild("x");
                for (int i = 0; i < root.getRowCount(); i++) {
                  if (RowAddress.fragmentId(addr.get(i)) == fragment.id()) {
                    values[(int) RowAddress.offset(addr.get(i))] = x.isNull(i) ? null : x.get(i) + 1;
                  }
                }
              }
            }
            try (ArrowReader batches = StagedColumnSupport.ints(allocator, schema.arrowSchema(), values)) {
              shipped.add(ds.columns().writeFragment(fragment.id(), batches, schema).encode());
            }
          }
        }

        List<StagedColumnWrite> staged = shipped.stream().map(StagedColumnWrite::decode).toList();
        long committed = table.columns().commit(staged);
        assertThat(committed).as("one commit for every fragment").isEqualTo(version + 1);

        Map<Long, Integer> byId = new HashMap<>();
        try (ArrowReader r = table.newScan().columns("id", "c").open()) {
          while (r.loadNextBatch()) {
            VectorSchemaRoot root = r.getVectorSchemaRoot();
            IntVector c = (IntVector) root.getVector("c");
            for (int i = 0; i < root.getRowCount(); i++) {
              byId.put(((org.apache.arrow.vector.BigIntVector) root.getVector("id")).get(i),
                  c.isNull(i) ? null : c.get(i));
            }
          }
        }
        assertThat(byId.size()).isEqualTo(10);
        for (long id = 0; id < 10; id++) {
          Integer x = SampleTable.structIsNull(id) ? null : SampleTable.expectedX(id);
          assertThat(byId.get(id)).as("row id " + id).isEqualTo(x == null ? null : x + 1);
        }
        assertThat(staged.stream().allMatch(w -> w.inputFieldIds().size() == 2)).as("s.x and s.y are bound").isTrue();
        assertThat(table.validate().isValid()).as(() -> table.validate().toString()).isTrue();
      }
    }
  }
}
