package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import io.quiver.exceptions.CorruptFileException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * ZSTD buffers written as runs of frames: any ZSTD decoder (Arrow Java's codec here, pyarrow in
 * PyArrowReadsQuiverIT) reads them whole, the frame index is recovered from headers alone, and point reads
 * of a file whose buffers span many frames return the file's values.
 */
class ZstdFramesTest extends DataFileTestBase {
  private static final int ROWS = 40_000;
  private static final int BATCH = 8192;

  @Test
  void aBufferIsFramesOfFrameBytesThatArrowsOwnCodecDecompressesWhole() {
    byte[] raw = new byte[100_003];
    for (int i = 0; i < raw.length; i++) {
      raw[i] = (byte) (i / 7 + i % 13);
    }
    try (ArrowBuf in = allocator.buffer(raw.length)) {
      in.setBytes(0, raw);
      in.writerIndex(raw.length);
      byte[] packed;
      try (ArrowBuf out = ZstdFrames.compress(allocator, in, 1)) {
        packed = new byte[(int) out.writerIndex()];
        out.getBytes(0, packed);
        List<ZstdFrames.Frame> frames = ZstdFrames.index(packed, 8, packed.length - 8, raw.length);
        assertThat(frames).hasSize((raw.length + ZstdFrames.FRAME_BYTES - 1) / ZstdFrames.FRAME_BYTES);
        assertThat(frames.get(1).start()).isEqualTo(ZstdFrames.FRAME_BYTES);
        assertThat(frames.get(frames.size() - 1).length()).isEqualTo(raw.length % ZstdFrames.FRAME_BYTES);
        CompressionCodec arrow =
            CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.ZSTD);
        out.getReferenceManager().retain(); // Arrow's decompress releases its input
        try (ArrowBuf whole = arrow.decompress(allocator, out)) {
          byte[] back = new byte[(int) whole.writerIndex()];
          whole.getBytes(0, back);
          assertThat(back).isEqualTo(raw);
        }
      }
      assertThat(Zstd.decompress(Arrays.copyOfRange(packed, 8, packed.length), raw.length)).isEqualTo(raw);
    }
  }

  @Test
  void theIndexIsAbsentForWhatItCannotDescribeExactly() {
    byte[] data = "a few bytes that compress a little, a few bytes".getBytes(StandardCharsets.UTF_8);
    byte[] frame = Zstd.compress(data, 1);
    byte[] two = concat(frame, frame);
    assertThat(ZstdFrames.index(two, 0, two.length, 2L * data.length)).hasSize(2);
    assertThat(ZstdFrames.index(two, 0, two.length, 2L * data.length + 1)).as("declares more").isNull();
    assertThat(ZstdFrames.index(two, 0, two.length, data.length)).as("declares less").isNull();
    assertThat(ZstdFrames.index(two, 0, two.length - 3, 2L * data.length)).as("truncated").isNull();
    byte[] garbage = "not zstd at all, not even close".getBytes(StandardCharsets.UTF_8);
    assertThat(ZstdFrames.index(garbage, 0, garbage.length, 10)).isNull();
    try (ZstdCompressCtx ctx = new ZstdCompressCtx()) {
      ctx.setContentSize(false);
      byte[] unsized = ctx.compress(data);
      assertThat(ZstdFrames.index(concat(unsized, unsized), 0, 2 * unsized.length, 2L * data.length))
          .as("frames without a content size").isNull();
    }
  }

  @Test
  void pointReadsOfBuffersSpanningManyFramesReturnTheFilesValues() {
    try (VectorSchemaRoot data = data()) {
      Files.write(store, "data/f.arrow", data, allocator, BATCH, FileCompression.zstd(1));
      DataFileMetadata md = reader.metadata("data/f.arrow");
      assertThat(frames(md, 0, 1)).as("int64 values of batch 0").hasSize(8);
      assertThat(frames(md, 0, 4).size()).as("string bytes of batch 0").isGreaterThan(8);
      PointReader points = new PointReader(store, reader, ReadOptions.DEFAULT_COALESCE_GAP_BYTES);
      int[] rows = {0, 1023, 1024, 4097, 8191};
      assertThat(frames(md, 1, 1)).as("int64 values of batch 1").hasSize(8);
      try (PointReader.Result r = points.read("data/f.arrow",
          List.of(new PointReader.Cells(1, 0, rows), new PointReader.Cells(1, 1, rows),
              new PointReader.Cells(4, 1, new int[] {0, ROWS - 4 * BATCH - 1})),
          List.of(), allocator)) {
        PointReader.Values ids = r.values().get(0);
        PointReader.Values names = r.values().get(1);
        for (int k = 0; k < rows.length; k++) {
          long row = BATCH + rows[k];
          assertThat(((BigIntVector) ids.vector()).get(ids.index(k))).isEqualTo(row * 3);
          assertThat(names.vector().getObject(names.index(k)).toString()).isEqualTo(name(row));
        }
        PointReader.Values last = r.values().get(2);
        assertThat(last.vector().getObject(last.index(1)).toString()).isEqualTo(name(ROWS - 1));
      }
    }
  }

  @Test
  void aDamagedFrameIsACorruptFileNamingTheFile() {
    try (VectorSchemaRoot data = data()) {
      Files.write(store, "data/d.arrow", data, allocator, BATCH, FileCompression.zstd(1));
      DataFileMetadata md = reader.metadata("data/d.arrow");
      long[] range = md.bufferRange(0, 1);
      ZstdFrames.Frame third = frames(md, 0, 1).get(2);
      byte[] file = store.read("data/d.arrow");
      int header = (int) range[0] + 8 + third.compressedStart();
      file[header + frameHeaderLength(file[header + 4])] |= 0b110; // block type 3: reserved, never valid
      store.write("data/d.arrow", file);
      DataFileReader fresh = new DataFileReader(store, new MetadataCache(1 << 20), ReadOptions.defaults());
      PointReader points = new PointReader(store, fresh, ReadOptions.DEFAULT_COALESCE_GAP_BYTES);
      assertThatExceptionOfType(CorruptFileException.class)
          .isThrownBy(() -> points.read("data/d.arrow", List.of(new PointReader.Cells(0, 0, new int[] {2100})),
              List.of(), allocator).close())
          .withMessageContaining("data/d.arrow");
    }
  }

  private List<ZstdFrames.Frame> frames(DataFileMetadata md, int batch, int buffer) {
    long[] range = md.bufferRange(batch, buffer);
    byte[] bytes = Arrays.copyOfRange(store.read(md.location().substring(md.location().indexOf("data/"))),
        (int) range[0], (int) (range[0] + range[1]));
    long declared = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(0);
    return ZstdFrames.index(bytes, 8, bytes.length - 8, declared);
  }

  /** Bytes of a ZSTD frame header (RFC 8878 §3.1.1.1) from its descriptor byte. */
  private static int frameHeaderLength(byte descriptor) {
    int fcs = (descriptor & 0xff) >>> 6;
    boolean single = (descriptor & 0x20) != 0;
    int dict = new int[] {0, 1, 2, 4}[descriptor & 3];
    int size = fcs == 0 ? (single ? 1 : 0) : new int[] {1, 2, 4, 8}[fcs];
    return 4 + 1 + (single ? 0 : 1) + dict + size;
  }

  private VectorSchemaRoot data() {
    Schema schema = new Schema(List.of(TestData.nullable("id", new ArrowType.Int(64, true)),
        TestData.nullable("name", ArrowType.Utf8.INSTANCE)));
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    for (int i = 0; i < ROWS; i++) {
      id.setSafe(i, i * 3L);
      name.setSafe(i, name(i).getBytes(StandardCharsets.UTF_8));
    }
    root.setRowCount(ROWS);
    return root;
  }

  private static String name(long row) {
    return "name-" + row + "-" + Long.toHexString(row * 2654435761L);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
