package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.write.CompressionConfig;
import io.quiver.schema.FieldIdAllocator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Data files written with frames of 1 KiB, 4 KiB, 64 KiB and 1 MiB ({@link FileCompression#frameBytes}, the
 * table's {@code write.compression.frame-bytes}): the frame table records the size, and the files read back
 * cell for cell by full scans, projected scans, point reads and Arrow Java's own reader, with buffers smaller
 * than one frame, of exactly one frame and of a length that is not a multiple of the frame size; several
 * compression threads write the bytes one thread writes.
 */
class FrameBytesTest extends DataFileTestBase {
  static final int[] FRAME_SIZES = {1024, 4096, 64 * 1024, 1 << 20};
  /** Atomic column (and buffer, in a batch) indices of {@link #data}'s schema. */
  private static final int ID = 0, NAME = 1, SEVEN = 2, ID_VALUES = 1;

  /** How a batch's int64 id values (8 bytes a row) lie against the frames. */
  enum Fit {
    SMALLER_THAN_A_FRAME,
    EXACTLY_ONE_FRAME,
    NOT_A_MULTIPLE;

    int rowsPerBatch(int frameBytes) {
      int perFrame = frameBytes / 8;
      return switch (this) {
        case SMALLER_THAN_A_FRAME -> perFrame / 2;
        case EXACTLY_ONE_FRAME -> perFrame;
        case NOT_A_MULTIPLE -> 3 * perFrame + 13;
      };
    }
  }

  static Stream<Arguments> sizesAndFits() {
    List<Arguments> all = new ArrayList<>();
    for (int frameBytes : FRAME_SIZES) {
      for (Fit fit : Fit.values()) {
        all.add(Arguments.of(frameBytes, fit));
      }
    }
    return all.stream();
  }

  @AfterEach
  void clearThreads() {
    System.clearProperty(DataFileWriter.COMPRESSION_THREADS_PROPERTY);
  }

  @ParameterizedTest(name = "{0}-byte frames, {1}")
  @MethodSource("sizesAndFits")
  void filesOfEveryFrameSizeReadBackCellForCell(int frameBytes, Fit fit) throws Exception {
    int rowsPerBatch = fit.rowsPerBatch(frameBytes);
    int rows = 2 * rowsPerBatch + 5; // two whole batches, then a last one smaller than a frame
    FileCompression compression = FileCompression.zstd(1).withFrameBytes(frameBytes);
    try (VectorSchemaRoot data = data(rows)) {
      Files.write(store, "data/f.arrow", data, allocator, rowsPerBatch, compression, rows / 3, rows - rows / 3);
      DataFileMetadata md = reader.metadata("data/f.arrow");
      assertThat(md.batchCount()).isEqualTo(3);
      assertThat(md.hasFrameTable()).isTrue();
      for (int b = 0; b < md.batchCount(); b++) {
        long idBytes = 8L * md.batchRowCount(b);
        ZstdFrames.Index ids = md.frames(b, ID_VALUES);
        assertThat(ids).as("batch %d's ids are listed", b).isNotNull();
        assertThat(ids.frameBytes()).isEqualTo(frameBytes);
        assertThat(ids.declared()).isEqualTo(idBytes);
        assertThat(ids.count()).as("frames of batch %d's %d id bytes", b, idBytes)
            .isEqualTo((int) ((idBytes + frameBytes - 1) / frameBytes));
        for (int i = 0; i < md.bufferCount(); i++) {
          ZstdFrames.Index frames = md.frames(b, i);
          if (frames != null) {
            assertThat(frames.frameBytes()).as("batch %d buffer %d", b, i).isEqualTo(frameBytes);
          }
        }
      }
      // full scan, then projected scans
      Files.assertFileEquals(reader, "data/f.arrow", data, allocator);
      for (int[] columns : new int[][] {{NAME}, {ID, SEVEN}, {SEVEN}}) {
        for (int b = 0; b < md.batchCount(); b++) {
          try (VectorSchemaRoot actual = reader.readBatch("data/f.arrow", b, columns, allocator);
              VectorSchemaRoot slice = Files.slice(data, (int) md.batchStart(b), md.batchRowCount(b))) {
            List<FieldVector> wanted = new ArrayList<>();
            for (int c : columns) {
              wanted.add(slice.getVector(c));
            }
            Files.assertSameData(new VectorSchemaRoot(wanted), actual);
          }
        }
      }
      // point reads: the rows either side of every frame boundary of the ids, and the ends of every batch
      PointReader points = new PointReader(store, reader, ReadOptions.DEFAULT_COALESCE_GAP_BYTES);
      for (int b = 0; b < md.batchCount(); b++) {
        int n = md.batchRowCount(b);
        TreeSet<Integer> wanted = new TreeSet<>(List.of(0, n / 2, n - 1));
        for (int boundary = frameBytes / 8; boundary < n; boundary += frameBytes / 8) {
          wanted.addAll(List.of(boundary - 1, boundary));
        }
        int[] at = wanted.stream().mapToInt(Integer::intValue).toArray();
        try (PointReader.Result r = points.read("data/f.arrow", List.of(new PointReader.Cells(b, ID, at),
            new PointReader.Cells(b, NAME, at), new PointReader.Cells(b, SEVEN, at)), List.of(), allocator)) {
          for (int k = 0; k < at.length; k++) {
            long row = md.batchStart(b) + at[k];
            for (int c = 0; c < 3; c++) {
              PointReader.Values v = r.values().get(c);
              assertThat(text(v.vector(), v.index(k))).as("row %d column %d", row, c)
                  .isEqualTo(text(data.getVector(c), (int) row));
            }
          }
        }
      }
      Files.assertArrowJavaReads(store.read("data/f.arrow"), data, allocator, CommonsCompressionFactory.INSTANCE);
      // the same bytes when each batch is compressed on three threads
      System.setProperty(DataFileWriter.COMPRESSION_THREADS_PROPERTY, "3");
      Files.write(store, "data/threads.arrow", data, allocator, rowsPerBatch, compression, rows / 3, rows - rows / 3);
      byte[] one = store.read("data/f.arrow");
      byte[] three = store.read("data/threads.arrow");
      assertThat(Arrays.mismatch(one, three)).as("first differing byte of %d and %d", one.length, three.length)
          .isEqualTo(-1);
    }
  }

  private static String text(FieldVector v, int index) {
    return v.isNull(index) ? null : v.getObject(index).toString();
  }

  @Test
  void theDefaultFrameSizeIsTheOneKibibyteOfEarlierFiles() {
    assertThat(FileCompression.zstd(1).frameBytes()).isEqualTo(1024).isEqualTo(ZstdFrames.FRAME_BYTES);
    assertThat(CompressionConfig.of(Map.of()).frameBytes()).isEqualTo(1024);
    try (VectorSchemaRoot none = data(0)) {
      io.quiver.schema.Schema schema = io.quiver.schema.Schema.fromArrow(none.getSchema(), new FieldIdAllocator(0));
      assertThat(CompressionConfig.of(Map.of()).forFile(schema).frameBytes()).isEqualTo(1024);
      assertThat(CompressionConfig.of(Map.of(CompressionConfig.FRAME_BYTES_KEY, " 65536 ")).forFile(schema)
          .frameBytes()).isEqualTo(65536);
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(ints = {0, -1024, 512, 1000, 3072, 2 << 20})
  void aWriterRefusesAFrameSizeThatIsNotAPowerOfTwoFromOneKibibyteToOneMebibyte(int frameBytes) {
    assertThatExceptionOfType(InvalidArgumentException.class)
        .isThrownBy(() -> FileCompression.zstd(1).withFrameBytes(frameBytes))
        .withMessageContaining(Integer.toString(frameBytes)).withMessageContaining("power of two from 1024 to 1048576");
  }

  /** Rows of id (int64, i × 3, every 97th null), name (utf8, every 11th null) and seven (int32, always 7). */
  private VectorSchemaRoot data(int rows) {
    Schema schema = new Schema(List.of(TestData.nullable("id", new ArrowType.Int(64, true)),
        TestData.nullable("name", ArrowType.Utf8.INSTANCE), TestData.nullable("seven", new ArrowType.Int(32, true))));
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    IntVector seven = (IntVector) root.getVector("seven");
    for (int i = 0; i < rows; i++) {
      if (i % 97 == 5) {
        id.setNull(i);
      } else {
        id.setSafe(i, i * 3L);
      }
      if (i % 11 == 3) {
        name.setNull(i);
      } else {
        name.setSafe(i, ("name-" + i + "-" + Long.toHexString(i * 2654435761L)).getBytes(StandardCharsets.UTF_8));
      }
      seven.setSafe(i, 7);
    }
    root.setRowCount(rows);
    return root;
  }
}
