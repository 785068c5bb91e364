package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.github.luben.zstd.Zstd;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.store.CountingObjectStore;
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
 * PyArrowReadsQuiverIT) reads them whole, the footer's frame table and the in-buffer index of earlier files
 * describe them only exactly, and point reads of a file whose buffers span many frames return the file's
 * values.
 */
class ZstdFramesTest extends DataFileTestBase {
  private static final int ROWS = 40_000;
  private static final int BATCH = 8192;

  @Test
  void aBufferIsFramesThatArrowsOwnCodecDecompressesWhole() {
    byte[] raw = new byte[100_003];
    for (int i = 0; i < raw.length; i++) {
      raw[i] = (byte) (i / 7 + i % 13);
    }
    try (ArrowBuf in = allocator.buffer(raw.length)) {
      in.setBytes(0, raw);
      in.writerIndex(raw.length);
      ZstdFrames.Packed p = ZstdFrames.compress(allocator, in, 1, ZstdFrames.FRAME_BYTES);
      byte[] packed;
      try (ArrowBuf out = p.buf()) {
        packed = new byte[(int) out.writerIndex()];
        out.getBytes(0, packed);
        assertThat(p.declared()).isEqualTo(raw.length);
        ZstdFrames.Index index = ZstdFrames.frames(ZstdFrames.FRAME_BYTES, raw.length, packed.length - 8, 0, longs(p.frameSizes()));
        assertThat(index.count()).isEqualTo((raw.length + ZstdFrames.FRAME_BYTES - 1) / ZstdFrames.FRAME_BYTES);
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
          assertThat(back).as("Arrow Java's codec reads the concatenated frames").isEqualTo(raw);
        }
      }
      assertThat(Zstd.decompress(Arrays.copyOfRange(packed, 8, packed.length), raw.length)).isEqualTo(raw);
    }
  }

  private ZstdFrames.Packed probe(byte[] raw, double minSavings) {
    try (ArrowBuf in = allocator.buffer(raw.length);
        ZstdFrames.Compressor c = new ZstdFrames.Compressor(1, ZstdFrames.FRAME_BYTES, minSavings)) {
      in.setBytes(0, raw);
      in.writerIndex(raw.length);
      return c.compress(allocator, in);
    }
  }

  @Test
  void aProbingCompressorGivesUpOnABufferWhoseFirst64KiBSaveTooLittle() {
    java.util.SplittableRandom random = new java.util.SplittableRandom(7);
    byte[] noise = new byte[512 * 1024];
    for (int i = 0; i < noise.length; i++) {
      noise[i] = (byte) random.nextInt();
    }
    assertThat(probe(noise, 0.25)).as("random bytes: not compressed past the probe").isNull();
    byte[] text = new byte[512 * 1024];
    for (int i = 0; i < text.length; i++) {
      text[i] = (byte) ('a' + (i / 3) % 7);
    }
    ZstdFrames.Packed packed = probe(text, 0.25);
    assertThat(packed).isNotNull();
    packed.buf().close();
    // The probe judges the first 64 KiB only: noise there and compressible bytes after are stored raw, though the
    // whole would have saved enough; a buffer of at most 128 KiB is never probed.
    byte[] mixed = text.clone();
    System.arraycopy(noise, 0, mixed, 0, (int) ZstdFrames.Compressor.PROBE_BYTES);
    assertThat(probe(mixed, 0.25)).isNull();
    ZstdFrames.Packed small = probe(Arrays.copyOf(noise, 128 * 1024), 0.25);
    assertThat(small).as("too small to probe: compressed whole, judged by its caller").isNotNull();
    small.buf().close();
    try (ArrowBuf in = allocator.buffer(mixed.length);
        ZstdFrames.Compressor plain = new ZstdFrames.Compressor(1, ZstdFrames.FRAME_BYTES)) {
      in.setBytes(0, mixed);
      in.writerIndex(mixed.length);
      ZstdFrames.Packed whole = plain.compress(allocator, in);
      assertThat(whole).as("without a minimum saving there is no probe").isNotNull();
      whole.buf().close();
    }
  }

  @Test
  void framesDescribeABufferOnlyExactly() {
    long[] sizes = {100, 120, 30};
    long declared = 2L * ZstdFrames.FRAME_BYTES + 5;
    assertThat(ZstdFrames.frames(ZstdFrames.FRAME_BYTES, declared, 250, 0, sizes).starts()).containsExactly(0, 100, 220, 250);
    assertThat(ZstdFrames.frames(ZstdFrames.FRAME_BYTES, declared + ZstdFrames.FRAME_BYTES, 250, 0, sizes))
        .as("declares more than its frames hold").isNull();
    assertThat(ZstdFrames.frames(ZstdFrames.FRAME_BYTES, 2L * ZstdFrames.FRAME_BYTES, 250, 0, sizes))
        .as("declares fewer frames").isNull();
    assertThat(ZstdFrames.frames(ZstdFrames.FRAME_BYTES, declared, 249, 0, sizes)).as("sizes do not sum to the payload").isNull();
    assertThat(ZstdFrames.frames(ZstdFrames.FRAME_BYTES, declared, 250, 0, new long[] {100, 150, 0})).as("an empty frame").isNull();
    assertThat(ZstdFrames.frames(ZstdFrames.MAX_FRAME_BYTES, ZstdFrames.MAX_FRAME_BYTES, 1, 0, new long[] {1}))
        .as("a frame expanding beyond the bound").isNull();
    assertThat(ZstdFrames.frames(ZstdFrames.MAX_FRAME_BYTES + 1, declared, 250, 0, sizes)).as("frames too large").isNull();
  }

  @Test
  void theInBufferIndexOfEarlierFilesIsAbsentUnlessItDescribesTheBufferExactly() {
    byte[] raw = new byte[3 * ZstdFrames.FRAME_BYTES + 5];
    Arrays.fill(raw, (byte) 'q');
    byte[] packed = inBufferIndexed(raw);
    long payload = packed.length - 8;
    assertThat(ZstdFrames.index(head(packed), raw.length, payload).count()).isEqualTo(4);
    assertThat(Zstd.decompress(Arrays.copyOfRange(packed, 8, packed.length), raw.length))
        .as("decoders skip the index frame").isEqualTo(raw);
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

  /** {@code raw} as the first framed build wrote it: length, index frame, then 4 KiB frames. */
  private static byte[] inBufferIndexed(byte[] raw) {
    int count = (raw.length + ZstdFrames.FRAME_BYTES - 1) / ZstdFrames.FRAME_BYTES;
    java.io.ByteArrayOutputStream frames = new java.io.ByteArrayOutputStream();
    java.nio.ByteBuffer index = java.nio.ByteBuffer.allocate(8 + 20 + 4 * count).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    index.putLong(raw.length).putInt(ZstdFrames.INDEX_MAGIC).putInt(12 + 4 * count).putInt(ZstdFrames.INDEX_TAG)
        .putInt(ZstdFrames.FRAME_BYTES).putInt(count);
    for (int f = 0; f < count; f++) {
      byte[] frame = Zstd.compress(Arrays.copyOfRange(raw, f * ZstdFrames.FRAME_BYTES,
          Math.min(raw.length, (f + 1) * ZstdFrames.FRAME_BYTES)), 1);
      index.putInt(frame.length);
      frames.writeBytes(frame);
    }
    return concat(index.array(), frames.toByteArray());
  }

  private static long[] longs(int[] ints) {
    return Arrays.stream(ints).asLongStream().toArray();
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

  @Test
  void theFooterListsTheFramesSoATakeReadsEachBufferOnceWithoutItsPrefix() {
    try (VectorSchemaRoot data = data()) {
      Files.write(store, "data/t.arrow", data, allocator, BATCH, FileCompression.zstd(1));
    }
    CountingObjectStore counting = new CountingObjectStore(store);
    DataFileReader fresh = new DataFileReader(counting, new MetadataCache(1 << 20), ReadOptions.defaults());
    DataFileMetadata md = fresh.loadAllBatches("data/t.arrow"); // only the point reads are counted
    PointReader points = new PointReader(counting, fresh, 0);
    counting.reset();
    int row = 3 * ZstdFrames.FRAME_BYTES / 8 + 7; // in frame 3 of the int64 values
    try (PointReader.Result r = points.read("data/t.arrow", List.of(new PointReader.Cells(2, 0, new int[] {row})),
        List.of(), allocator)) {
      assertThat(((BigIntVector) r.values().get(0).vector()).get(0)).isEqualTo((2L * BATCH + row) * 3);
    }
    ZstdFrames.Index ids = md.frames(2, 1);
    assertThat(counting.readCalls()).as("one round").isEqualTo(1);
    assertThat(counting.bytesRead()).as("frame 3 only").isEqualTo(ids.starts()[4] - ids.starts()[3]);
    counting.reset();
    try (PointReader.Result r = points.read("data/t.arrow", List.of(new PointReader.Cells(2, 1, new int[] {row})),
        List.of(), allocator)) {
      assertThat(r.values().get(0).vector().getObject(0).toString()).isEqualTo(name(2L * BATCH + row));
    }
    assertThat(counting.readCalls()).as("offsets, then value bytes").isEqualTo(2);
    assertThat(counting.bytesRead()).isLessThan(md.bufferRange(2, 3)[1] + md.bufferRange(2, 4)[1]);
  }

  @Test
  void aFrameTableThatDoesNotDescribeTheFileIsIgnoredAndReadsStayExact() {
    try (VectorSchemaRoot data = data()) {
      Files.write(store, "data/x.arrow", data, allocator, BATCH, FileCompression.zstd(1));
    }
    DataFileMetadata md = reader.metadata("data/x.arrow");
    FrameTable.Builder wrong = new FrameTable.Builder(ZstdFrames.FRAME_BYTES);
    for (int b = 0; b < md.batchCount(); b++) { // every buffer claims frames that do not sum to its payload
      for (int i = 0; i < md.bufferCount(); i++) {
        wrong.add(i, new ZstdFrames.Packed(null, 2L * ZstdFrames.FRAME_BYTES, new int[] {3, 4}));
      }
      wrong.endBatch();
    }
    FrameTable.Builder oneBatch = new FrameTable.Builder(ZstdFrames.FRAME_BYTES);
    oneBatch.add(1, new ZstdFrames.Packed(null, 10, new int[] {5}));
    oneBatch.endBatch();
    String valid = oneBatch.value(); // well formed, for a file of one batch
    for (String bad : new String[] {wrong.value(), "not base64!", "AQ==", valid, "AoAgAQA=",
        java.util.Base64.getEncoder().encodeToString(new byte[] {1, (byte) 0x80, 0x20, 5, 0})}) {
      DataFileMetadata tampered = md.withFrameTable(bad);
      for (int b = 0; b < md.batchCount(); b++) {
        for (int i = 0; i < md.bufferCount(); i++) {
          assertThat(tampered.frames(b, i)).as("table " + bad).isNull();
        }
      }
      MetadataCache cache = new MetadataCache(1 << 20);
      cache.get(store.locationOf("data/x.arrow"), loc -> tampered);
      DataFileReader withBadTable = new DataFileReader(store, cache, ReadOptions.defaults());
      int[] rows = {5, 1029, 8000};
      try (PointReader.Result r = new PointReader(store, withBadTable, 0).read("data/x.arrow",
          List.of(new PointReader.Cells(3, 0, rows), new PointReader.Cells(3, 1, rows)), List.of(), allocator)) {
        for (int k = 0; k < rows.length; k++) {
          long row = 3L * BATCH + rows[k];
          assertThat(((BigIntVector) r.values().get(0).vector()).get(k)).isEqualTo(row * 3);
          assertThat(r.values().get(1).vector().getObject(k).toString()).isEqualTo(name(row));
        }
      }
    }
  }

  @Test
  void filesOfTheFirstFramedBuildKeepTheirInBufferIndex() throws Exception {
    java.nio.file.Path dir = java.nio.file.Path.of(getClass().getResource("/compat/framed-1.1/table/data").toURI());
    java.nio.file.Path file;
    try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(dir)) {
      file = files.filter(f -> f.toFile().length() > 20_000).findFirst().orElseThrow(); // the 4,096-row file
    }
    store.write("data/old.arrow", java.nio.file.Files.readAllBytes(file));
    DataFileMetadata md = reader.metadata("data/old.arrow");
    assertThat(md.hasFrameTable()).isFalse();
    long[] range = md.bufferRange(1, 1); // batch 1's int64 ids: 16 KiB in four frames
    byte[] buffer = Arrays.copyOfRange(store.read("data/old.arrow"), (int) range[0], (int) (range[0] + range[1]));
    assertThat(ZstdFrames.index(head(buffer), 2048 * 8, buffer.length - 8).count()).isEqualTo(4);
    CountingObjectStore counting = new CountingObjectStore(store);
    PointReader points = new PointReader(counting, reader, 0);
    int[] rows = {3, 700, 1500, 2047};
    try (PointReader.Result r = points.read("data/old.arrow",
        List.of(new PointReader.Cells(1, 0, rows), new PointReader.Cells(1, 1, rows)), List.of(), allocator)) {
      for (int k = 0; k < rows.length; k++) {
        long i = 2048 + rows[k];
        assertThat(((BigIntVector) r.values().get(0).vector()).get(k)).isEqualTo(i);
        Object s = r.values().get(1).vector().getObject(k);
        assertThat(s == null ? null : s.toString()).isEqualTo(i % 7 == 3 ? null : "value-" + i * 7919L % 100003);
      }
    }
  }

  private static ZstdFrames.Index frames(DataFileMetadata md, int batch, int buffer) {
    assertThat(md.hasFrameTable()).isTrue();
    return md.frames(batch, buffer);
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
