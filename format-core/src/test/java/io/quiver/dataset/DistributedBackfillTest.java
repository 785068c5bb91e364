package io.quiver.dataset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * schema from the same version, stage one fragment each, and ship bytes; the coordinator commits all
 * of them as one version.
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
        assertEquals(3, fragments.size());

        List<byte[]> shipped = new ArrayList<>();
        for (Fragment fragment : fragments) {
          // A worker: its own handles, nothing shared with the coordinator but (uri, version, fragment id).
          try (Dataset latest = Dataset.open("test://t", options); Dataset ds = latest.checkout(version)) {
            ColumnSchema schema = ds.newColumnSchema(List.of(StagedColumnSupport.intField("c", true)));
            Integer[] values = new Integer[(int) fragment.physicalRows()];
            for (int i = 0; i < values.length; i++) {
              values[i] = (int) (fragment.id() * 100 + i);
            }
            try (ArrowReader batches = StagedColumnSupport.ints(allocator, schema.arrowSchema(), values)) {
              shipped.add(ds.writeFragmentColumn(fragment.id(), batches, schema).encode());
            }
          }
        }

        List<StagedColumnWrite> staged = shipped.stream().map(StagedColumnWrite::decode).toList();
        long committed = table.commitColumnWrites(staged);
        assertEquals(version + 1, committed, "one commit for every fragment");

        Map<Long, Integer> byAddress = new HashMap<>();
        try (ArrowReader r = table.newScan().columns("c").withRowAddress(true).open()) {
          while (r.loadNextBatch()) {
            VectorSchemaRoot root = r.getVectorSchemaRoot();
            for (int i = 0; i < root.getRowCount(); i++) {
              byAddress.put(((UInt8Vector) root.getVector(RowAddress.COLUMN)).get(i),
                  ((IntVector) root.getVector("c")).get(i));
            }
          }
        }
        assertEquals(10, byAddress.size());
        for (Fragment fragment : fragments) {
          for (long offset = 0; offset < fragment.physicalRows(); offset++) {
            assertEquals((int) (fragment.id() * 100 + offset), byAddress.get(RowAddress.of(fragment.id(), offset)));
          }
        }
        assertTrue(table.validate().isValid(), () -> table.validate().toString());
      }
    }
  }
}
