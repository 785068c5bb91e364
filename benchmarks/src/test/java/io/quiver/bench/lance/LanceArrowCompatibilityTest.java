package io.quiver.bench.lance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.BufferLedger;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;

/**
 * Lance 7.0.0 (built against Arrow 18.3.0) on this module's classpath, where the arrow-bom gives
 * Arrow 19.0.0 for everything except arrow-dataset (pinned to 18.3.0 in benchmarks/pom.xml). Uses
 * Lance's raw API, not the facade, so a linkage or C-data ABI break shows up here first.
 */
class LanceArrowCompatibilityTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.notNullable("id", new ArrowType.Int(64, true)),
              Field.nullable("name", new ArrowType.Utf8())));

  @TempDir Path dir;

  @Test
  @SuppressWarnings("try") // LanceScanner.close() is declared to throw Exception
  void createAppendScanRoundTripsOnArrow19() throws Exception {
    try (BufferAllocator allocator = new RootAllocator()) {
      String uri = dir.resolve("t.lance").toString();
      try (VectorSchemaRoot first = batch(allocator, 0, 3);
          VectorSchemaRoot second = batch(allocator, 3, 2);
          ArrowReader r1 = BatchReader.of(allocator, SCHEMA, List.of(first));
          Dataset created =
              Dataset.write()
                  .allocator(allocator)
                  .reader(r1)
                  .uri(uri)
                  .mode(WriteParams.WriteMode.CREATE)
                  .execute();
          ArrowReader r2 = BatchReader.of(allocator, SCHEMA, List.of(second));
          Dataset appended =
              Dataset.write()
                  .allocator(allocator)
                  .reader(r2)
                  .uri(uri)
                  .mode(WriteParams.WriteMode.APPEND)
                  .execute()) {
        assertThat(created.version()).isEqualTo(1);
        assertThat(appended.version()).isEqualTo(2);
        assertThat(appended.countRows()).isEqualTo(5);

        List<Long> ids = new ArrayList<>();
        List<String> names = new ArrayList<>();
        try (LanceScanner scanner = appended.newScan();
            ArrowReader reader = scanner.scanBatches()) {
          while (reader.loadNextBatch()) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector name = (VarCharVector) root.getVector("name");
            for (int i = 0; i < root.getRowCount(); i++) {
              ids.add(id.get(i));
              names.add(name.isNull(i) ? null : new String(name.get(i)));
            }
          }
        }
        assertThat(ids).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(names).containsExactly("n0", "n1", null, "n3", "n4");
      }
      assertThat(allocator.getAllocatedMemory()).isZero();
    }
  }

  /**
   * Both allocation managers are on the classpath (Quiver's arrow-memory-unsafe, Lance's
   * arrow-memory-netty). Prints which one Arrow picked, so the build log records it; the
   * round-trip above runs under that one. Run with {@code -Darrow.allocation.manager.type=Unsafe}
   * (or Netty) to force the other.
   */
  @Test
  void reportsTheAllocationManagerInUse() {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBuf buf = allocator.buffer(8)) {
      String manager = ((BufferLedger) buf.getReferenceManager()).getAllocationManager().getClass()
          .getName();
      System.out.println(
          "Arrow allocation manager: "
              + manager
              + " (arrow.allocation.manager.type="
              + System.getProperty("arrow.allocation.manager.type")
              + ")");
      assertThat(manager).containsAnyOf("Netty", "Unsafe");
    }
  }

  private static VectorSchemaRoot batch(BufferAllocator allocator, int from, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    root.allocateNew();
    for (int i = 0; i < rows; i++) {
      id.set(i, from + i);
      if (from + i == 2) {
        name.setNull(i);
      } else {
        name.setSafe(i, ("n" + (from + i)).getBytes());
      }
    }
    root.setRowCount(rows);
    return root;
  }
}
