package io.quiver.bench.lance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each facade method does what its Javadoc says, checked cell for cell on small tables. */
class LanceTableTest {
  static final int DIM = 4;
  static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.notNullable("id", new ArrowType.Int(64, true)),
              Field.notNullable("x", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
              Field.notNullable("s", new ArrowType.Utf8()),
              new Field(
                  "v",
                  FieldType.notNullable(new ArrowType.FixedSizeList(DIM)),
                  List.of(
                      Field.notNullable(
                          "item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))))));

  @TempDir Path tmp;
  BufferAllocator allocator;

  @BeforeEach
  void allocator() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void noLeaks() {
    assertThat(allocator.getAllocatedMemory()).as("Arrow memory left allocated").isZero();
    allocator.close();
  }

  /** Row {@code id}'s values: x = id * 0.5, s = "row-" + id, v = [id, id+1, id+2, id+3]. */
  static VectorSchemaRoot rows(BufferAllocator allocator, long from, int count) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    Float8Vector x = (Float8Vector) root.getVector("x");
    VarCharVector s = (VarCharVector) root.getVector("s");
    FixedSizeListVector v = (FixedSizeListVector) root.getVector("v");
    Float4Vector items = (Float4Vector) v.getDataVector();
    for (int i = 0; i < count; i++) {
      long row = from + i;
      id.setSafe(i, row);
      x.setSafe(i, row * 0.5);
      s.setSafe(i, ("row-" + row).getBytes(StandardCharsets.UTF_8));
      v.setNotNull(i);
      for (int d = 0; d < DIM; d++) {
        items.setSafe(i * DIM + d, row + d);
      }
    }
    root.setRowCount(count);
    return root;
  }

  /** Creates a table of {@code batches × batchRows} rows with ids 0.. in order. */
  LanceTable table(String name, int batches, int batchRows, int maxRowsPerFile) {
    List<VectorSchemaRoot> roots = new ArrayList<>();
    try {
      for (int b = 0; b < batches; b++) {
        roots.add(rows(allocator, (long) b * batchRows, batchRows));
      }
      return LanceTable.create(allocator, tmp.resolve(name), SCHEMA, roots, maxRowsPerFile);
    } finally {
      roots.forEach(VectorSchemaRoot::close);
    }
  }

  /** Every row of the table, as id -> [x, s, v0..v3] read back from a full scan. */
  static Map<Long, List<Object>> readAll(LanceTable table) {
    Map<Long, List<Object>> out = new HashMap<>();
    table.scan(
        null,
        0,
        root -> {
          BigIntVector id = (BigIntVector) root.getVector("id");
          Float8Vector x = (Float8Vector) root.getVector("x");
          VarCharVector s = (VarCharVector) root.getVector("s");
          FixedSizeListVector v = (FixedSizeListVector) root.getVector("v");
          Float4Vector items = (Float4Vector) v.getDataVector();
          for (int i = 0; i < root.getRowCount(); i++) {
            List<Object> cells = new ArrayList<>();
            cells.add(x.get(i));
            cells.add(new String(s.get(i), StandardCharsets.UTF_8));
            for (int d = 0; d < DIM; d++) {
              cells.add(items.get(i * DIM + d));
            }
            assertThat(out.put(id.get(i), cells)).as("row %d seen twice", id.get(i)).isNull();
          }
        });
    return out;
  }

  static List<Object> expected(long row) {
    List<Object> cells = new ArrayList<>();
    cells.add(row * 0.5);
    cells.add("row-" + row);
    for (int d = 0; d < DIM; d++) {
      cells.add((float) (row + d));
    }
    return cells;
  }

  @Test
  void createWritesEveryCellAndCutsFragmentsAtMaxRowsPerFile() {
    try (LanceTable table = table("t", 5, 200, 100)) {
      assertThat(table.version()).isEqualTo(1);
      assertThat(table.versionCount()).isEqualTo(1);
      assertThat(table.countRows()).isEqualTo(1000);
      assertThat(table.fragmentCount()).isEqualTo(10);
      assertThat(table.planScan()).isEqualTo(10);
      Map<Long, List<Object>> rows = readAll(table);
      assertThat(rows).hasSize(1000);
      for (long r = 0; r < 1000; r++) {
        assertThat(rows.get(r)).as("row %d", r).isEqualTo(expected(r));
      }
    }
    try (LanceTable reopened = LanceTable.open(allocator, tmp.resolve("t"))) {
      assertThat(reopened.countRows()).isEqualTo(1000);
      assertThat(reopened.latestVersion()).isEqualTo(1);
    }
  }

  @Test
  void scansFullAndProjectedWithBatchSizeAndChecksum() {
    try (LanceTable table = table("t", 3, 1000, 0)) {
      long expectedSum = 2999L * 3000L / 2;
      LanceTable.ScanResult full = table.scanSum(null, "id", 256);
      assertThat(full.rows()).isEqualTo(3000);
      assertThat(full.checksum()).isEqualTo(expectedSum);
      assertThat(full.batches()).isGreaterThanOrEqualTo(3000 / 256);

      List<List<String>> seenColumns = new ArrayList<>();
      long rows =
          table.scan(
              List.of("id"),
              500,
              root -> {
                assertThat(root.getRowCount()).isLessThanOrEqualTo(500);
                seenColumns.add(
                    root.getSchema().getFields().stream().map(Field::getName).toList());
              });
      assertThat(rows).isEqualTo(3000);
      assertThat(seenColumns).allMatch(c -> c.equals(List.of("id")));
      assertThat(table.scanSum(List.of("id"), "id", 0).checksum()).isEqualTo(expectedSum);
    }
  }

  @Test
  void takeReturnsTheRowsAtThePositionsInTheOrderGiven() {
    try (LanceTable table = table("t", 4, 250, 100)) {
      long[] positions = {999, 0, 512, 100, 99, 101, 7, 998, 300};
      try (VectorSchemaRoot rows = table.take(positions, List.of("id", "s", "v"))) {
        assertThat(rows.getRowCount()).isEqualTo(positions.length);
        assertThat(rows.getSchema().getFields().stream().map(Field::getName))
            .containsExactly("id", "s", "v");
        BigIntVector id = (BigIntVector) rows.getVector("id");
        VarCharVector s = (VarCharVector) rows.getVector("s");
        FixedSizeListVector v = (FixedSizeListVector) rows.getVector("v");
        Float4Vector items = (Float4Vector) v.getDataVector();
        for (int i = 0; i < positions.length; i++) {
          long row = positions[i];
          assertThat(id.get(i)).isEqualTo(row);
          assertThat(new String(s.get(i), StandardCharsets.UTF_8)).isEqualTo("row-" + row);
          for (int d = 0; d < DIM; d++) {
            assertThat(items.get(i * DIM + d)).isEqualTo((float) (row + d));
          }
        }
      }
    }
  }

  @Test
  void appendAddsOneFragmentAndOneVersion() {
    try (LanceTable table = table("t", 1, 100, 0);
        VectorSchemaRoot more = rows(allocator, 100, 10)) {
      long v2 = table.append(more);
      assertThat(v2).isEqualTo(2);
      long v3 = table.append(rows(more, 110));
      assertThat(v3).isEqualTo(3);
      assertThat(table.versions()).containsExactly(1L, 2L, 3L);
      assertThat(table.fragmentCount()).isEqualTo(3);
      Map<Long, List<Object>> all = readAll(table);
      assertThat(all).hasSize(120);
      for (long r = 0; r < 120; r++) {
        assertThat(all.get(r)).as("row %d", r).isEqualTo(expected(r));
      }
    }
  }

  /** Refills {@code root} in place with rows from {@code from}, for reuse by the next append. */
  private VectorSchemaRoot rows(VectorSchemaRoot root, long from) {
    try (VectorSchemaRoot fresh = rows(allocator, from, root.getRowCount())) {
      for (int c = 0; c < root.getFieldVectors().size(); c++) {
        fresh.getVector(c).makeTransferPair(root.getVector(c)).transfer();
      }
      root.setRowCount(fresh.getRowCount());
    }
    return root;
  }

  @Test
  void concurrentAppendsFromFourHandlesAllLandExactlyOnce() throws Exception {
    int writers = 4;
    int appendsEach = 5;
    int rowsEach = 3;
    Path dir;
    try (LanceTable table = table("t", 1, 10, 0)) {
      dir = table.dir();
    }
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    List<Future<Integer>> retries = new ArrayList<>();
    try {
      for (int w = 0; w < writers; w++) {
        int writer = w;
        retries.add(
            pool.submit(
                () -> {
                  int retried = 0;
                  try (LanceTable handle = LanceTable.open(allocator, dir)) {
                    start.await();
                    for (int a = 0; a < appendsEach; a++) {
                      long from = 1000L + (writer * appendsEach + a) * rowsEach;
                      try (VectorSchemaRoot batch = rows(allocator, from, rowsEach)) {
                        retried += handle.appendRetrying(batch, 10).retries();
                      }
                    }
                  }
                  return retried;
                }));
      }
      start.countDown();
      int totalRetries = 0;
      for (Future<Integer> f : retries) {
        totalRetries += f.get(120, TimeUnit.SECONDS);
      }
      System.out.println("Lance concurrent appends: Java-level retries = " + totalRetries);
    } finally {
      pool.shutdownNow();
    }
    try (LanceTable table = LanceTable.open(allocator, dir)) {
      int commits = writers * appendsEach;
      assertThat(table.latestVersion()).isEqualTo(1 + commits);
      assertThat(table.versionCount()).isEqualTo(1 + commits);
      assertThat(table.fragmentCount()).isEqualTo(1 + commits);
      Map<Long, List<Object>> all = readAll(table);
      assertThat(all).hasSize(10 + commits * rowsEach);
      for (long r = 0; r < 10; r++) {
        assertThat(all.get(r)).isEqualTo(expected(r));
      }
      for (long r = 1000; r < 1000 + commits * rowsEach; r++) {
        assertThat(all.get(r)).as("row %d", r).isEqualTo(expected(r));
      }
    }
  }

  @Test
  void addFloat32ColumnWritesTheCallersValuesRowForRow() {
    try (LanceTable table = table("t", 4, 500, 10)) {
      assertThat(table.fragmentCount()).isEqualTo(200);
      float[] values = new float[2000];
      for (int i = 0; i < values.length; i++) {
        values[i] = i * 1.5f - 7;
      }
      long version = table.addFloat32Column("f", values);
      assertThat(version).isEqualTo(2);
      assertThat(table.versionCount()).isEqualTo(2);
      assertThat(table.fragmentCount()).isEqualTo(200);
      assertThat(table.dataset().getSchema().findField("f").getType())
          .isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
      long[] seen = {0};
      table.scan(
          List.of("id", "f"),
          0,
          root -> {
            BigIntVector id = (BigIntVector) root.getVector("id");
            Float4Vector f = (Float4Vector) root.getVector("f");
            for (int i = 0; i < root.getRowCount(); i++) {
              assertThat(f.get(i)).as("row %d", id.get(i)).isEqualTo(values[(int) id.get(i)]);
              seen[0]++;
            }
          });
      assertThat(seen[0]).isEqualTo(2000);
      // Old columns untouched.
      Map<Long, List<Object>> all = readAll(table);
      for (long r = 0; r < 2000; r++) {
        assertThat(all.get(r)).isEqualTo(expected(r));
      }
    }
  }

  @Test
  void updateChangesExactlyTheGivenCellsAndReportsBytesWritten() {
    try (LanceTable table = table("t", 2, 500, 100);
        Float8Vector values = new Float8Vector("x", allocator)) {
      long[] positions = {5, 999, 123, 124, 500, 0, 777, 301, 302, 650};
      values.allocateNew(positions.length);
      for (int i = 0; i < positions.length; i++) {
        values.set(i, -1000.0 - positions[i]);
      }
      values.setValueCount(positions.length);
      long before = LanceTable.directorySize(table.dir());

      LanceTable.UpdateResult result = table.update("x", positions, values);

      assertThat(result.version()).isEqualTo(2);
      assertThat(table.versionCount()).isEqualTo(2);
      assertThat(result.fragmentsTouched()).isEqualTo(7); // rows fall in fragments 0,1,3,5,6,7,9
      assertThat(result.filesWritten()).isEqualTo(7);
      assertThat(result.bytesWritten())
          .isEqualTo(LanceTable.directorySize(table.dir()) - before)
          .isPositive();
      System.out.println("Lance update of " + positions.length + " cells: " + result);

      Map<Long, Double> changed = new HashMap<>();
      for (long p : positions) {
        changed.put(p, -1000.0 - p);
      }
      Map<Long, List<Object>> all = readAll(table);
      assertThat(all).hasSize(1000);
      for (long r = 0; r < 1000; r++) {
        List<Object> want = expected(r);
        if (changed.containsKey(r)) {
          want.set(0, changed.get(r));
        }
        assertThat(all.get(r)).as("row %d", r).isEqualTo(want);
      }
      assertThat(table.countRows()).isEqualTo(1000);
      assertThat(table.fragmentCount()).isEqualTo(10);

      // How Lance rewrote: a touched fragment gained one data file holding only x (field 1), for
      // all of its 100 rows; the original file's x entry is tombstoned (-2). Untouched: one file.
      var touched = table.dataset().getFragments().get(0).metadata();
      assertThat(touched.getFiles()).hasSize(2);
      assertThat(touched.getFiles().get(0).getFields()).containsExactly(0, -2, 2, 3);
      assertThat(touched.getFiles().get(1).getFields()).containsExactly(1);
      assertThat(touched.getPhysicalRows()).isEqualTo(100);
      assertThat(table.dataset().getFragments().get(2).metadata().getFiles()).hasSize(1);
    }
  }

  @Test
  void createWithFragmentsMakesOneFragmentPerCopyInOneVersion() {
    try (VectorSchemaRoot batch = rows(allocator, 0, 2);
        LanceTable table = LanceTable.createWithFragments(allocator, tmp.resolve("t"), batch, 300)) {
      assertThat(table.fragmentCount()).isEqualTo(300);
      assertThat(table.planScan()).isEqualTo(300);
      assertThat(table.countRows()).isEqualTo(600);
      assertThat(table.versionCount()).isEqualTo(1);
      try (VectorSchemaRoot one = rows(allocator, 2, 2)) {
        assertThat(table.append(one)).isEqualTo(2);
      }
      assertThat(table.fragmentCount()).isEqualTo(301);
    }
  }
}
