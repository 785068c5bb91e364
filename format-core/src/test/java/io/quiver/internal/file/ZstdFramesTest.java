package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.github.luben.zstd.Zstd;
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
  void aBufferIsAnIndexAndFramesThatArrowsOwnCodecDecompressesWhole() {
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
        ZstdFrames.Index index = ZstdFrames.index(head(packed), raw.length, packed.length - 8);
        assertThat(index.count()).isEqualTo((raw.length + ZstdFrames.FRAME_BYTES - 1) / ZstdFrames.FRAME_BYTES);
        assertThat(index.frameBytes()).isEqualTo(ZstdFrames.FRAME_BYTES);
        assertThat(index.length(index.count() - 1)).isEqualTo(raw.length % ZstdFrames.FRAME_BYTES);
        for (int f = 0; f < index.count(); f++) { // each frame alone decodes to its slice
          byte[] frame = Arrays.copyOfRange(packed, 8 + (int) index.starts()[f], 8 + (int) index.starts()[f + 1]);
          assertThat(Zstd.decompress(frame, (int) index.length(f)))
              .isEqualTo(Arrays.copyOfRange(raw, (int) index.start(f), (int) (index.start(f) + index.length(f))));
        }
        CompressionCodec arrow = CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.ZSTD);
        out.getReferenceManager().retain(); // Arrow's decompress releases its input
        try (ArrowBuf whole = arrow.decompress(allocator, out)) {
          byte[] back = new byte[(int) whole.writerIndex()];
          whole.getBytes(0, back);
          assertThat(back).as("Arrow Java's codec skips the index frame").isEqualTo(raw);
        }
      }
      assertThat(Zstd.decompress(Arrays.copyOfRange(packed, 8, packed.length), raw.length)).isEqualTo(raw);
    }
  }

  @Test
  void theIndexIsAbsentUnlessItDescribesTheBufferExactly() {
    byte[] raw = new byte[3 * ZstdFrames.FRAME_BYTES + 5];
    Arrays.fill(raw, (byte) 'q');
    byte[] packed;
    try (ArrowBuf in = allocator.buffer(raw.length)) {
      in.setBytes(0, raw);
      in.writerIndex(raw.length);
      try (ArrowBuf out = ZstdFrames.compress(allocator, in, 1)) {
        packed = new byte[(int) out.writerIndex()];
        out.getBytes(0, packed);
      }
    }
    long payload = packed.length - 8;
    assertThat(ZstdFrames.index(head(packed), raw.length, payload).count()).isEqualTo(4);
    assertThat(ZstdFrames.index(head(packed), raw.length + ZstdFrames.FRAME_BYTES, payload))
        .as("declares more than its frames hold").isNull();
    assertThat(ZstdFrames.index(head(packed), 3L * ZstdFrames.FRAME_BYTES, payload))
        .as("declares fewer frames").isNull();
    assertThat(ZstdFrames.index(head(packed), raw.length, payload - 1)).as("sizes do not sum to the payload").isNull();
    assertThat(ZstdFrames.index(Arrays.copyOf(packed, 30), raw.length, payload)).as("index cut short").isNull();
    byte[] tag = packed.clone();
    tag[16] ^= 1;
    assertThat(ZstdFrames.index(head(tag), raw.length, payload)).as("another tag").isNull();
    byte[] size = packed.clone();
    size[28] ^= 1;
    assertThat(ZstdFrames.index(head(size), raw.length, payload)).as("a frame size changed").isNull();
    byte[] plain = concat(new byte[8], Zstd.compress(raw, 1)); // one ordinary frame, as other writers write
    assertThat(ZstdFrames.index(head(plain), raw.length, plain.length - 8)).isNull();
  }

  @Test
  void pointReadsOfBuffersSpanningManyFramesReturnTheFilesValues() {
    try (VectorSchemaRoot data = data()) {
      Files.write(store, "data/f.arrow", data, allocator, BATCH, FileCompression.zstd(1));
      DataFileMetadata md = reader.metadata("data/f.arrow");
      assertThat(frames(md, 0, 1).count()).as("int64 values of batch 0").isEqualTo(BATCH * 8 / ZstdFrames.FRAME_BYTES);
      assertThat(frames(md, 0, 4).count()).as("string bytes of batch 0").isGreaterThan(BATCH * 8 / ZstdFrames.FRAME_BYTES);
      PointReader points = new PointReader(store, reader, ReadOptions.DEFAULT_COALESCE_GAP_BYTES);
      int[] rows = {0, 1023, 1024, 4097, 8191};
      assertThat(frames(md, 1, 1).count()).as("int64 values of batch 1").isEqualTo(BATCH * 8 / ZstdFrames.FRAME_BYTES);
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
  void aDamagedFrameIsACorruptFileAndRowsInOtherFramesStillRead() {
    try (VectorSchemaRoot data = data()) {
      Files.write(store, "data/d.arrow", data, allocator, BATCH, FileCompression.zstd(1));
      DataFileMetadata md = reader.metadata("data/d.arrow");
      long[] range = md.bufferRange(0, 1);
      ZstdFrames.Index index = frames(md, 0, 1);
      byte[] file = store.read("data/d.arrow");
      int third = (int) (range[0] + 8 + index.starts()[2]);
      file[third + frameHeaderLength(file[third + 4])] |= 0b110; // block type 3: reserved, never valid
      store.write("data/d.arrow", file);
      DataFileReader fresh = new DataFileReader(store, new MetadataCache(1 << 20), ReadOptions.defaults());
      PointReader points = new PointReader(store, fresh, ReadOptions.DEFAULT_COALESCE_GAP_BYTES);
      assertThatExceptionOfType(CorruptFileException.class)
          .isThrownBy(() -> points.read("data/d.arrow", List.of(new PointReader.Cells(0, 0, new int[] {2 * ZstdFrames.FRAME_BYTES / 8 + 52})),
              List.of(), allocator).close())
          .withMessageContaining("data/d.arrow")
          .withMessageContaining("frame 2");
      try (PointReader.Result r = points.read("data/d.arrow",
          List.of(new PointReader.Cells(0, 0, new int[] {100, 5000})), List.of(), allocator)) {
        PointReader.Values ids = r.values().get(0);
        assertThat(((BigIntVector) ids.vector()).get(ids.index(0))).isEqualTo(300);
        assertThat(((BigIntVector) ids.vector()).get(ids.index(1))).isEqualTo(15_000);
      }
    }
  }

  private ZstdFrames.Index frames(DataFileMetadata md, int batch, int buffer) {
    long[] range = md.bufferRange(batch, buffer);
    byte[] bytes = Arrays.copyOfRange(store.read(md.location().substring(md.location().indexOf("data/"))),
        (int) range[0], (int) (range[0] + range[1]));
    long declared = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(0);
    return ZstdFrames.index(head(bytes), declared, bytes.length - 8);
  }

  private static byte[] head(byte[] buffer) {
    return Arrays.copyOf(buffer, Math.min(buffer.length, 8 + ZstdFrames.INDEX_PEEK));
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
