package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.MemoryObjectStore;
import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.util.List;
import java.util.Set;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Data-file format 1.1: ZSTD-compressed bodies written, ZSTD and LZ4_FRAME bodies read, cell for cell. */
class CompressedDataFileTest extends DataFileTestBase {
  @ParameterizedTest(name = "{0}")
  @MethodSource("io.quiver.internal.file.DataFileRoundTripTest#everyType")
  void zstdRoundTripsEveryTypeWithNulls(Field field) {
    Schema schema = new Schema(List.of(field));
    try (VectorSchemaRoot data = TestData.randomBatch(schema, 300, field.getName().hashCode(), allocator)) {
      WrittenFile written =
          Files.write(store, "data/z.arrow", data, allocator, 64, FileCompression.zstd(3), 0, 1, 100, 199);
      assertThat(written.formatMinor()).isEqualTo(1);
      DataFileMetadata md = reader.metadata("data/z.arrow");
      assertThat(md.formatMinor()).isEqualTo(1);
      for (int b = 0; b < md.batchCount(); b++) {
        assertThat(md.compression(b)).isEqualTo("ZSTD");
      }
      Files.assertFileEquals(reader, "data/z.arrow", data, allocator);
    }
  }

  @Test
  void arrowJavaWithItsCompressionModuleReadsACompressedFileCellForCell() throws Exception {
    Schema schema = TestData.allTypesSchema();
    try (VectorSchemaRoot data = TestData.randomBatch(schema, 500, 42, allocator)) {
      Files.write(store, "data/all.arrow", data, allocator, 128, FileCompression.zstd(1), 10, 490);
      Files.assertFileEquals(reader, "data/all.arrow", data, allocator);
      Files.assertArrowJavaReads(store.read("data/all.arrow"), data, allocator, CommonsCompressionFactory.INSTANCE);
    }
  }

  @Test
  void compressibleColumnsShrinkAndProjectionFetchesOnlyTheCompressedBytes() {
    Schema schema = new Schema(List.of(TestData.nullable("a", new ArrowType.Int(64, true)),
        TestData.nullable("b", new ArrowType.Int(64, true))));
    try (VectorSchemaRoot data = sequence(schema, 50_000)) {
      WrittenFile plain = Files.write(store, "data/plain.arrow", data, allocator, 8192);
      WrittenFile zstd = Files.write(store, "data/zstd.arrow", data, allocator, 8192, FileCompression.zstd(3));
      assertThat(plain.formatMinor()).isEqualTo(0);
      assertThat(zstd.sizeBytes()).as("a slowly growing int64 compresses").isLessThan(plain.sizeBytes() / 4);
      long plainBytes = reader.metadata("data/plain.arrow").projectedBodyBytes(new int[] {1});
      long zstdBytes = reader.metadata("data/zstd.arrow").projectedBodyBytes(new int[] {1});
      assertThat(zstdBytes).isLessThan(plainBytes / 4);
      Files.assertFileEquals(reader, "data/zstd.arrow", data, allocator);
      try (VectorSchemaRoot b = reader.readBatch("data/zstd.arrow", 2, new int[] {1}, allocator)) {
        BigIntVector v = (BigIntVector) b.getVector(0);
        assertThat(v.get(0)).isEqualTo((2 * 8192) / 7 + 1);
        assertThat(b.getSchema().getFields()).extracting(Field::getName).containsExactly("b");
      }
    }
  }

  @Test
  void plainColumnsAreStoredUncompressedInsideACompressedBody() {
    Schema schema = new Schema(List.of(TestData.nullable("a", new ArrowType.Int(64, true)),
        TestData.nullable("b", new ArrowType.Int(64, true))));
    try (VectorSchemaRoot data = sequence(schema, 20_000)) {
      Files.write(store, "data/mixed.arrow", data, allocator, 8192, FileCompression.zstd(3).withPlainColumns(Set.of(1)));
      Files.write(store, "data/plain.arrow", data, allocator, 8192);
      DataFileMetadata mixed = reader.metadata("data/mixed.arrow");
      DataFileMetadata plain = reader.metadata("data/plain.arrow");
      assertThat(mixed.formatMinor()).isEqualTo(1);
      assertThat(mixed.compression(0)).isEqualTo("ZSTD");
      // Column b: its Arrow bytes plus the 8-byte marker per buffer (validity and values), 3 batches.
      assertThat(mixed.projectedBodyBytes(new int[] {1})).isEqualTo(plain.projectedBodyBytes(new int[] {1}) + 3 * 2 * 8);
      assertThat(mixed.projectedBodyBytes(new int[] {0})).isLessThan(plain.projectedBodyBytes(new int[] {0}) / 4);
      Files.assertFileEquals(reader, "data/mixed.arrow", data, allocator);
    }
  }

  @Test
  void buffersThatSaveLessThanTheMinimumAreStoredRaw() {
    Schema schema = new Schema(List.of(TestData.field("r", new ArrowType.FloatingPoint(
        org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE), false)));
    int rows = 20_000;
    try (VectorSchemaRoot data = VectorSchemaRoot.create(schema, allocator)) {
      org.apache.arrow.vector.Float8Vector r = (org.apache.arrow.vector.Float8Vector) data.getVector(0);
      r.allocateNew(rows);
      java.util.Random random = new java.util.Random(5);
      for (int i = 0; i < rows; i++) { // 36 random mantissa bits: ZSTD saves about 16% in 1 KiB frames
        r.set(i, Double.longBitsToDouble(Double.doubleToLongBits(random.nextDouble()) & (-1L << 16)));
      }
      r.setValueCount(rows);
      data.setRowCount(rows);
      Files.write(store, "data/any.arrow", data, allocator, 8192, FileCompression.zstd(3));
      Files.write(store, "data/quarter.arrow", data, allocator, 8192, FileCompression.zstd(3).withMinSavings(0.25));
      long any = reader.metadata("data/any.arrow").projectedBodyBytes(new int[] {0});
      long quarter = reader.metadata("data/quarter.arrow").projectedBodyBytes(new int[] {0});
      assertThat(any).as("random doubles compress a little").isLessThan((long) rows * 8);
      assertThat(quarter).as("but not by a quarter: stored raw").isGreaterThanOrEqualTo((long) rows * 8).isGreaterThan(any);
      assertThat(reader.metadata("data/quarter.arrow").compression(0)).isEqualTo("ZSTD");
      Files.assertFileEquals(reader, "data/quarter.arrow", data, allocator);
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> FileCompression.zstd(3).withMinSavings(1.0));
    }
  }

  @Test
  void everyColumnPlainWritesAnUncompressedFormat10File() {
    Schema schema = new Schema(List.of(TestData.nullable("a", new ArrowType.Int(64, true))));
    try (VectorSchemaRoot data = sequence(schema, 100)) {
      WrittenFile all = Files.write(store, "data/p.arrow", data, allocator, 64, FileCompression.zstd(3).withPlainColumns(Set.of(0)));
      WrittenFile none = Files.write(store, "data/n.arrow", data, allocator, 64);
      assertThat(all.formatMinor()).isEqualTo(0);
      assertThat(store.read("data/p.arrow")).isEqualTo(store.read("data/n.arrow"));
      assertThat(none.formatMinor()).isEqualTo(0);
    }
  }

  @Test
  void structValidityIsReadFromACompressedBody() {
    Schema schema = new Schema(List.of(TestData.nullable("s", ArrowType.Struct.INSTANCE,
        TestData.nullable("x", new ArrowType.Int(32, true)), TestData.nullable("y", ArrowType.Utf8.INSTANCE))));
    try (VectorSchemaRoot data = TestData.randomBatch(schema, 200, 7, allocator)) {
      Files.write(store, "data/s0.arrow", data, allocator, 64);
      Files.write(store, "data/s1.arrow", data, allocator, 64, FileCompression.zstd(3));
      DataFileMetadata md = reader.metadata("data/s1.arrow");
      for (int b = 0; b < md.batchCount(); b++) {
        StructValidityBits plain = reader.readStructValidity("data/s0.arrow", b, 1, 0);
        StructValidityBits compressed = reader.readStructValidity("data/s1.arrow", b, 1, 0);
        assertThat(compressed.nullCount()).isEqualTo(plain.nullCount());
        for (int row = 0; row < plain.length(); row++) {
          assertThat(compressed.isNull(row)).as("batch " + b + " row " + row).isEqualTo(plain.isNull(row));
        }
      }
      Files.assertFileEquals(reader, "data/s1.arrow", data, allocator);
    }
  }

  @Test
  void lz4FrameFilesFromOtherWritersAreRead() throws Exception {
    Schema schema = TestData.allTypesSchema();
    try (VectorSchemaRoot data = TestData.randomBatch(schema, 300, 5, allocator)) {
      // Arrow Java's LZ4 codec is slow (about 70 KB/s); a few hundred rows is fine for a test.
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (VectorSchemaRoot slice = Files.slice(data, 0, 300);
          ArrowFileWriter w = new ArrowFileWriter(slice, null, Channels.newChannel(out), null, IpcOption.DEFAULT,
              CommonsCompressionFactory.INSTANCE, CompressionUtil.CodecType.LZ4_FRAME)) {
        w.start();
        w.writeBatch();
        w.end();
      }
      store.write("data/lz4.arrow", out.toByteArray());
      DataFileMetadata md = reader.metadata("data/lz4.arrow");
      assertThat(md.compression(0)).isEqualTo("LZ4_FRAME");
      Files.assertFileEquals(reader, "data/lz4.arrow", data, allocator);
    }
  }

  @Test
  void damagedCompressedBuffersAreCorruptFilesNamingTheBatchAndBuffer() {
    Schema schema = new Schema(List.of(TestData.nullable("a", new ArrowType.Int(64, true))));
    try (VectorSchemaRoot data = sequence(schema, 1000)) {
      Files.write(store, "data/c.arrow", data, allocator, 1000, FileCompression.zstd(3));
      byte[] good = store.read("data/c.arrow");
      DataFileMetadata md = reader.metadata("data/c.arrow");
      int values = 1; // buffer 0 is the validity, 1 the int64 values
      long at = md.bodyOffset(0) + md.bufferOffset(0, values);
      long length = md.bufferLength(0, values);
      long declared = java.nio.ByteBuffer.wrap(good, (int) at, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
      assertThat(declared).isEqualTo(8000);
      for (long hostile : new long[] {Long.MAX_VALUE, 1L << 40, 8064 + 1, -2, 7999, 8001}) {
        byte[] bad = good.clone();
        java.nio.ByteBuffer.wrap(bad, (int) at, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(hostile);
        assertCorrupt(bad, "buffer 1", "'a'");
      }
      byte[] garbage = good.clone();
      java.util.Arrays.fill(garbage, (int) at + 8, (int) (at + length), (byte) 0x5A);
      assertCorrupt(garbage, "buffer 1", "ZSTD");
    }
  }

  private void assertCorrupt(byte[] bytes, String... mentions) {
    MemoryObjectStore bad = new MemoryObjectStore("mem://bad");
    bad.write("data/c.arrow", bytes);
    DataFileReader r = new DataFileReader(bad, new MetadataCache(1 << 20), ReadOptions.defaults());
    try (RootAllocator small = new RootAllocator(1 << 20)) {
      CorruptFileException e = assertThatExceptionOfType(CorruptFileException.class)
          .isThrownBy(() -> r.readBatch("data/c.arrow", 0, new int[] {0}, small).close()).actual();
      assertThat(e.path()).isEqualTo(bad.locationOf("data/c.arrow"));
      assertThat(e.getMessage()).contains("record batch 0").contains(mentions);
    }
  }

  @Test
  void levelsOutsideZstdsRangeAreRejected() {
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> FileCompression.zstd(23))
        .withMessageContaining("-7..22");
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> FileCompression.zstd(-8));
  }

  /** Column i holds row / 7 + i (compressible), with a null every 97 rows. */
  private VectorSchemaRoot sequence(Schema schema, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    for (int c = 0; c < schema.getFields().size(); c++) {
      BigIntVector v = (BigIntVector) root.getVector(c);
      v.allocateNew(rows);
      for (int i = 0; i < rows; i++) {
        if (i % 97 == 0) {
          v.setNull(i);
        } else {
          v.set(i, i / 7 + c);
        }
      }
      v.setValueCount(rows);
    }
    root.setRowCount(rows);
    return root;
  }
}
