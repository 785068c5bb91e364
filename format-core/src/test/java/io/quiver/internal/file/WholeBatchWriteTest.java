package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A write of exactly rowsPerBatch rows into an empty stage is written from the caller's
 * vectors without the copy into the stage: the file is byte for byte the one the staged path writes,
 * compressed or not, statistics included, and its values read back.
 */
class WholeBatchWriteTest extends DataFileTestBase {
  /** Not a multiple of 8: bitmaps of whole batches end inside a byte, whose other bits a slice may set. */
  private static final int ROWS_PER_BATCH = 100;

  @ParameterizedTest(name = "zstd={0}")
  @ValueSource(booleans = {false, true})
  void wholeBatchesWriteTheBytesTheStageWrites(boolean zstd) {
    FileCompression compression = zstd ? FileCompression.zstd(1) : FileCompression.NONE;
    int rows = 3 * ROWS_PER_BATCH + 17;
    try (VectorSchemaRoot data = TestData.randomBatch(TestData.allTypesSchema(), rows, 42, allocator)) {
      // whole batches (the direct path), then the last, shorter one through the stage
      Files.write(store, "whole.arrow", data, allocator, ROWS_PER_BATCH, compression,
          ROWS_PER_BATCH, ROWS_PER_BATCH, ROWS_PER_BATCH, 17);
      // pieces that never meet an empty stage with a whole batch: every row is copied into the stage
      Files.write(store, "staged.arrow", data, allocator, ROWS_PER_BATCH, compression,
          ROWS_PER_BATCH - 1, 1, ROWS_PER_BATCH - 1, 1, ROWS_PER_BATCH - 1, 1, 17);
      byte[] whole = store.read("whole.arrow");
      byte[] staged = store.read("staged.arrow");
      assertThat(Arrays.mismatch(whole, staged)).as("first differing byte of " + whole.length + " and "
          + staged.length).isEqualTo(-1);
      Files.assertFileEquals(reader, "whole.arrow", data, allocator);
      assertThat(reader.metadata("whole.arrow").batchCount()).isEqualTo(4);
    }
  }

  @ParameterizedTest(name = "level {0}")
  @ValueSource(ints = {1, 3})
  void aReusedContextCompressesEachFrameAsAFreshOneDoes(int level) {
    byte[] first = new byte[3 * ZstdFrames.FRAME_BYTES + 11];
    byte[] second = new byte[2 * ZstdFrames.FRAME_BYTES + 5];
    for (int i = 0; i < first.length; i++) {
      first[i] = (byte) (i % 251 ^ i / 97);
    }
    for (int i = 0; i < second.length; i++) {
      second[i] = (byte) (i / 13);
    }
    try (ZstdFrames.Compressor compressor = new ZstdFrames.Compressor(level, ZstdFrames.FRAME_BYTES)) {
      for (byte[] raw : new byte[][] {first, second, first}) {
        try (ArrowBuf in = allocator.buffer(raw.length)) {
          in.setBytes(0, raw);
          in.writerIndex(raw.length);
          ZstdFrames.Packed p = compressor.compress(allocator, in);
          try (ArrowBuf out = p.buf()) {
            byte[] packed = new byte[(int) out.writerIndex()];
            out.getBytes(0, packed);
            ZstdFrames.Index index = ZstdFrames.frames(ZstdFrames.FRAME_BYTES, raw.length, packed.length - 8, 0,
                Arrays.stream(p.frameSizes()).asLongStream().toArray());
            for (int f = 0; f < index.count(); f++) {
              byte[] frame = Arrays.copyOfRange(packed, 8 + (int) index.starts()[f], 8 + (int) index.starts()[f + 1]);
              byte[] content = Arrays.copyOfRange(raw, (int) index.start(f), (int) (index.start(f) + index.length(f)));
              assertThat(frame).as("frame " + f).isEqualTo(Zstd.compress(content, level));
            }
          }
        }
      }
    }
  }
}
