package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.MemoryObjectStore;
import io.quiver.store.TestStores;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The table under {@code compat/framed-1.1/} (written once by the first framed build, whose ZSTD buffers
 * carry their frame index inside the buffer and whose footers have no frame table; never regenerated)
 * reads cell for cell by scan and by point-read take, and rows appended by this build (frame table in the
 * footer) read beside it. Expected values come from the fixture's README formulas.
 */
class FramedFormatCompatibilityTest {
  private static final String URI_ = "memory://quiver-compat-framed/table";
  private static final int ROWS = 6000;
  private final RootAllocator allocator = new RootAllocator();

  @AfterEach
  void tearDown() {
    allocator.close(); // fails the test if any Arrow buffer leaked
  }

  private Dataset open() {
    try {
      MemoryObjectStore store = TestStores.loadDirectory(new MemoryObjectStore(URI_),
          Path.of(getClass().getResource("/compat/framed-1.1/table").toURI()));
      return Dataset.open(URI_, DatasetOptions.builder().allocator(allocator).session(new Session(4 << 20))
          .registry(TestStores.registry("memory", TestStores.keepOpen(store))).rowsPerBatch(2048).build());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<Object> expected(long i) {
    return Arrays.asList(i, i % 7 == 3 ? null : "value-" + i * 7919L % 100003, i % 5 == 2 ? null : (int) (i / 3));
  }

  private static void cells(VectorSchemaRoot root, Map<Long, List<Object>> into, List<Long> order) {
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector s = (VarCharVector) root.getVector("s");
    IntVector v = (IntVector) root.getVector("v");
    for (int r = 0; r < root.getRowCount(); r++) {
      into.put(id.get(r), Arrays.asList(id.get(r), s.isNull(r) ? null : new String(s.get(r), StandardCharsets.UTF_8),
          v.isNull(r) ? null : v.get(r)));
      if (order != null) {
        order.add(id.get(r));
      }
    }
  }

  @Test
  void scanAndTakeReadTheFirstFramedBuildsFilesCellForCell() throws IOException {
    try (Dataset ds = open()) {
      Map<Long, List<Object>> rows = new TreeMap<>();
      Map<Long, Long> addressOf = new TreeMap<>();
      try (ArrowReader reader = ds.newScan().withRowAddress(true).open()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          cells(root, rows, null);
          for (int r = 0; r < root.getRowCount(); r++) {
            addressOf.put(((BigIntVector) root.getVector("id")).get(r), ((UInt8Vector) root.getVector(RowAddress.COLUMN)).get(r));
          }
        }
      }
      assertThat(rows).hasSize(ROWS);
      rows.forEach((id, row) -> assertThat(row).as("row " + id).isEqualTo(expected(id)));
      assertThat(takeRandom(ds, addressOf, 200, 11)).isEqualTo(200);

      try (VectorSchemaRoot more = VectorSchemaRoot.create(ds.schema().toArrow(), allocator)) {
        more.allocateNew();
        for (int r = 0; r < 3000; r++) {
          long i = ROWS + r;
          ((BigIntVector) more.getVector("id")).setSafe(r, i);
          List<Object> e = expected(i);
          if (e.get(1) == null) {
            ((VarCharVector) more.getVector("s")).setNull(r);
          } else {
            ((VarCharVector) more.getVector("s")).setSafe(r, ((String) e.get(1)).getBytes(StandardCharsets.UTF_8));
          }
          if (e.get(2) == null) {
            ((IntVector) more.getVector("v")).setNull(r);
          } else {
            ((IntVector) more.getVector("v")).setSafe(r, (Integer) e.get(2));
          }
        }
        more.setRowCount(3000);
        ds.append(List.of(more));
      }
      addressOf.clear();
      try (ArrowReader reader = ds.newScan().columns("id").withRowAddress(true).open()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          for (int r = 0; r < root.getRowCount(); r++) {
            addressOf.put(((BigIntVector) root.getVector("id")).get(r), ((UInt8Vector) root.getVector(RowAddress.COLUMN)).get(r));
          }
        }
      }
      assertThat(addressOf).hasSize(ROWS + 3000);
      assertThat(takeRandom(ds, addressOf, 300, 12)).isEqualTo(300);
    }
  }

  /** Takes {@code n} random ids (old and new files alike) and checks every cell; returns the rows checked. */
  private int takeRandom(Dataset ds, Map<Long, Long> addressOf, int n, long seed) {
    List<Long> ids = new ArrayList<>(addressOf.keySet());
    Random random = new Random(seed);
    long[] addresses = new long[n];
    List<Long> wanted = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      long id = ids.get(random.nextInt(ids.size()));
      wanted.add(id);
      addresses[k] = addressOf.get(id);
    }
    List<Long> order = new ArrayList<>();
    Map<Long, List<Object>> taken = new TreeMap<>();
    try (VectorSchemaRoot root = ds.take(addresses, List.of())) {
      cells(root, taken, order);
    }
    assertThat(order).isEqualTo(wanted);
    taken.forEach((id, row) -> assertThat(row).as("taken row " + id).isEqualTo(expected(id)));
    return order.size();
  }
}
