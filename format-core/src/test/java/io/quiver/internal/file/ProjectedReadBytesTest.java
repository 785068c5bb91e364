package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.CountingObjectStore;
import io.quiver.store.MemoryObjectStore;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** A projected read fetches metadata once and then exactly the projected columns' buffers. */
class ProjectedReadBytesTest {
  private static final int COLUMNS = 16;
  private static final int ROWS = 10_000;

  @Test
  void readingOneColumnOfAWideTableFetchesOnlyThatColumn() {
    MemoryObjectStore memory = new MemoryObjectStore("mem://wide");
    CountingObjectStore store = new CountingObjectStore(memory);
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < COLUMNS; i++) {
      fields.add(TestData.nullable("c" + i, new ArrowType.Int(64, true)));
    }
    Schema schema = new Schema(fields);
    try (RootAllocator allocator = new RootAllocator()) {
      WrittenFile file = Files.writeRandom(memory, "wide.arrow", schema, ROWS, 7, allocator, 2048);
      DataFileReader reader = new DataFileReader(store, new MetadataCache(1 << 20), new ReadOptions(0));
      int[] projection = {5};

      store.reset();
      DataFileMetadata md = reader.loadAllBatches("wide.arrow"); // every batch's layout, as a whole-file read needs
      long metadataBytes = store.bytesRead();
      long metadataCalls = store.readCalls();
      long projected = md.projectedBodyBytes(projection);
      readAll(reader, "wide.arrow", md, projection, allocator);
      long cold = store.bytesRead();
      assertThat(cold).as("cold: metadata + projected body bytes").isEqualTo(metadataBytes + projected);
      assertThat(cold * 5 < file.sizeBytes()).as("cold read " + cold + " of a " + file.sizeBytes() + " byte file").isTrue();
      // validity and data of one column are adjacent unless padding separates them: 1-2 reads per batch
      assertThat(store.readCalls() <= metadataCalls + 2L * md.batchCount()).isTrue();
      assertThat(store.headCalls()).isEqualTo(1);

      store.reset();
      readAll(reader, "wide.arrow", md, projection, allocator);
      assertThat(store.bytesRead()).as("warm: exactly the projected body bytes").isEqualTo(projected);
      assertThat(store.readCalls() <= 2L * md.batchCount()).isTrue();
      assertThat(store.headCalls()).isEqualTo(0);

      // one column of 8-byte values with ~20% nulls: its data plus validity bitmaps
      // batches of 2048 rows and a last one of 1808: 8-byte values plus a validity bitmap each
      assertThat(projected).as("projected bytes of one int64 column").isEqualTo(ROWS * 8L + 4 * (2048 / 8) + 1808 / 8);
      System.out.printf(
          "projected read of 1/%d columns: file %d bytes, metadata %d bytes in %d reads, projected body %d"
              + " bytes, cold total %d bytes (%.1f%% of file)%n",
          COLUMNS, file.sizeBytes(), metadataBytes, metadataCalls, projected, cold,
          100.0 * cold / file.sizeBytes());
      assertThat(allocator.getAllocatedMemory()).isEqualTo(0);
    }
  }

  @Test
  void coalescingMergesNearbyRangesIntoFewerReads() {
    MemoryObjectStore memory = new MemoryObjectStore("mem://wide");
    CountingObjectStore store = new CountingObjectStore(memory);
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < COLUMNS; i++) {
      fields.add(TestData.nullable("c" + i, new ArrowType.Int(32, true)));
    }
    try (RootAllocator allocator = new RootAllocator()) {
      Files.writeRandom(memory, "w.arrow", new Schema(fields), 1024, 3, allocator, 1024);
      int[] everyOther = {0, 2, 4, 6, 8, 10, 12, 14};
      DataFileReader exact = new DataFileReader(store, new MetadataCache(1 << 20), new ReadOptions(0));
      DataFileMetadata md = exact.loadAllBatches("w.arrow");
      store.reset();
      readAll(exact, "w.arrow", md, everyOther, allocator);
      assertThat(store.bytesRead()).isEqualTo(md.projectedBodyBytes(everyOther));
      assertThat(store.readCalls()).as("one read per column (validity + data are adjacent) when gaps are not bridged").isEqualTo(8);

      DataFileReader coalescing = new DataFileReader(store, new MetadataCache(1 << 20), ReadOptions.defaults());
      coalescing.loadAllBatches("w.arrow");
      store.reset();
      readAll(coalescing, "w.arrow", md, everyOther, allocator);
      assertThat(store.readCalls()).as("4 KiB gaps are bridged by the 8 KiB default").isEqualTo(1);
      assertThat(store.bytesRead() > md.projectedBodyBytes(everyOther)).isTrue();
      assertThat(allocator.getAllocatedMemory()).isEqualTo(0);
    }
  }

  @Test
  void coalescingRules() {
    List<long[]> wanted = List.of(
        new long[] {100, 10}, new long[] {0, 10}, new long[] {10, 5}, new long[] {50, 0},
        new long[] {112, 8}, new long[] {105, 20}, new long[] {1000, 10});
    // touching ranges merge even with gap 0; empty ones vanish; overlapping ones always merge
    assertThat(java.util.Arrays.deepToString(DataFileReader.coalesce(wanted, 0, 1 << 20))).isEqualTo("[[0, 15], [100, 125], [1000, 1010]]");
    assertThat(java.util.Arrays.deepToString(DataFileReader.coalesce(wanted, 100, 1 << 20))).isEqualTo("[[0, 125], [1000, 1010]]");
    assertThat(java.util.Arrays.deepToString(DataFileReader.coalesce(wanted, 100, 50))).as("merged size capped").isEqualTo("[[0, 15], [100, 125], [1000, 1010]]");
  }

  private static void readAll(
      DataFileReader reader, String key, DataFileMetadata md, int[] projection, RootAllocator allocator) {
    for (int b = 0; b < md.batchCount(); b++) {
      try (VectorSchemaRoot root = reader.readBatch(key, b, projection, allocator)) {
        assertThat(root.getRowCount()).isEqualTo(md.batchRowCount(b));
      }
    }
  }
}
