package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.MemoryObjectStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every batch holds exactly rowsPerBatch rows except the last, whatever sizes the caller writes. */
class RechunkingTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              TestData.field("id", new ArrowType.Int(64, true), false),
              TestData.nullable("name", ArrowType.Utf8.INSTANCE),
              TestData.nullable("tags", ArrowType.LargeList.INSTANCE,
                  TestData.nullable("item", ArrowType.Utf8.INSTANCE)),
              TestData.nullable("s", ArrowType.Struct.INSTANCE,
                  TestData.nullable("l", ArrowType.List.INSTANCE,
                      TestData.nullable("item", new ArrowType.Int(32, true))))));

  @ParameterizedTest(name = "{0} rows in one write")
  @ValueSource(ints = {0, 1, 7, 1000})
  void oneWrite(int rows) {
    check(64, new int[] {rows});
  }

  @ParameterizedTest(name = "writes of 0, 1, 7, 1000 rows, rowsPerBatch={0}")
  @ValueSource(ints = {1, 7, 64, 2000})
  void writesOf0_1_7_1000(int rowsPerBatch) {
    check(rowsPerBatch, new int[] {0, 1, 7, 1000});
  }

  @Property(tries = 40, seed = "20240601")
  void anyPiecesAnyBatchSize(
      @ForAll @Size(max = 8) List<@IntRange(max = 150) Integer> pieces,
      @ForAll @IntRange(min = 1, max = 100) int rowsPerBatch) {
    check(rowsPerBatch, pieces.stream().mapToInt(Integer::intValue).toArray());
  }

  private static void check(int rowsPerBatch, int[] pieces) {
    int total = Arrays.stream(pieces).sum();
    MemoryObjectStore store = new MemoryObjectStore("mem://t");
    DataFileReader reader = new DataFileReader(store, new MetadataCache(1 << 20), ReadOptions.defaults());
    try (RootAllocator allocator = new RootAllocator()) {
      try (VectorSchemaRoot data = TestData.randomBatch(SCHEMA, total, total, allocator)) {
        BigIntVector id = (BigIntVector) data.getVector("id");
        for (int i = 0; i < total; i++) {
          id.set(i, i);
        }
        WrittenFile written = Files.write(store, "f.arrow", data, allocator, rowsPerBatch, pieces);
        assertThat(written.rowCount()).isEqualTo(total);
        DataFileMetadata md = reader.metadata("f.arrow");
        List<Integer> sizes = new ArrayList<>();
        for (int b = 0; b < md.batchCount(); b++) {
          sizes.add(md.batchRowCount(b));
        }
        List<Integer> expected = new ArrayList<>();
        for (int left = total; left > 0; left -= rowsPerBatch) {
          expected.add(Math.min(rowsPerBatch, left));
        }
        assertThat(sizes).as("batch sizes for pieces " + Arrays.toString(pieces)).isEqualTo(expected);
        long next = 0;
        for (int b = 0; b < md.batchCount(); b++) {
          assertThat(md.batchStart(b)).isEqualTo(next);
          try (VectorSchemaRoot batch = reader.readBatch("f.arrow", b, new int[] {0}, allocator)) {
            BigIntVector ids = (BigIntVector) batch.getVector(0);
            for (int i = 0; i < batch.getRowCount(); i++) {
              assertThat(ids.get(i)).as("rows must stay in order").isEqualTo(next++);
            }
          }
        }
        assertThat(next).isEqualTo(total);
        Files.assertFileEquals(reader, "f.arrow", data, allocator);
      }
      assertThat(allocator.getAllocatedMemory()).isEqualTo(0);
    }
  }
}
