package io.quiver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code quiver import} of Arrow IPC files and streams whose record batches are compressed (body compression
 * ZSTD or LZ4_FRAME, as pyarrow writes with {@code compression=}), written here by Arrow Java's writers
 * with arrow-compression's codecs and read back cell for cell; a damaged compressed buffer is a one-line
 * error that commits nothing.
 */
class ImportArrowTest {
  private static final int ROWS = 3000;
  private static final int BATCH = 1000;

  @TempDir
  Path dir;

  private static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
      new Field("x", FieldType.nullable(new ArrowType.FloatingPoint(
          org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE)), null),
      new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

  /** The cells of row i, as {@link ImportRoundTripTest#cells} prints them. */
  private static String expected(int i) {
    return i + "|" + (i % 7 == 0 ? "null" : Double.toString(i / 3.0)) + "|" + "value " + (i % 10) + "|";
  }

  /** Writes ROWS rows in batches of BATCH, each compressed with the codec (an IPC file or stream). */
  private Path write(String name, CompressionUtil.CodecType codec, boolean stream) throws IOException {
    Path f = dir.resolve(name);
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        OutputStream out = Files.newOutputStream(f)) {
      DictionaryProvider none = new DictionaryProvider.MapDictionaryProvider();
      try (ArrowWriter w = stream
          ? new ArrowStreamWriter(root, none, Channels.newChannel(out), IpcOption.DEFAULT,
              CommonsCompressionFactory.INSTANCE, codec)
          : new ArrowFileWriter(root, none, Channels.newChannel(out), null, IpcOption.DEFAULT,
              CommonsCompressionFactory.INSTANCE, codec)) {
        w.start();
        for (int start = 0; start < ROWS; start += BATCH) {
          root.allocateNew();
          BigIntVector id = (BigIntVector) root.getVector("id");
          Float8Vector x = (Float8Vector) root.getVector("x");
          VarCharVector s = (VarCharVector) root.getVector("s");
          for (int k = 0; k < BATCH; k++) {
            int i = start + k;
            id.setSafe(k, i);
            if (i % 7 == 0) {
              x.setNull(k);
            } else {
              x.setSafe(k, i / 3.0);
            }
            s.setSafe(k, ("value " + (i % 10)).getBytes(StandardCharsets.UTF_8));
          }
          root.setRowCount(BATCH);
          w.writeBatch();
        }
        w.end();
      }
    }
    return f;
  }

  @ParameterizedTest(name = "{0}, {1}")
  @CsvSource({"ZSTD, file", "ZSTD, stream", "LZ4_FRAME, file", "LZ4_FRAME, stream"})
  void compressedRecordBatchesImportCellForCell(CompressionUtil.CodecType codec, String kind) throws IOException {
    boolean stream = kind.equals("stream");
    Path f = write("in." + (stream ? "arrows" : "arrow"), codec, stream);
    assertThat(containsCodecFrames(f, codec)).as("the file's batches are compressed").isTrue();
    String uri = dir.resolve("t").toUri().toString();
    CliRunner.Result r = CliRunner.run("import", uri, f.toString(), "--progress", "none");
    assertThat(r.code()).as(r::toString).isZero();
    assertThat(r.out()).contains("imported " + ROWS + " rows");
    List<String> want = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      want.add(expected(i));
    }
    assertThat(ImportRoundTripTest.cells(uri)).containsExactlyElementsOf(want);
  }

  @Test
  void aDamagedCompressedBufferIsAOneLineErrorAndCommitsNothing() throws IOException {
    Path f = write("damaged.arrow", CompressionUtil.CodecType.ZSTD, false);
    byte[] bytes = Files.readAllBytes(f);
    int frame = indexOf(bytes, ZSTD_MAGIC, 0);
    assertThat(frame).isPositive();
    for (int i = frame + 4; i < Math.min(bytes.length, frame + 40); i++) {
      bytes[i] = (byte) 0xFF;
    }
    Files.write(f, bytes);
    String uri = dir.resolve("t").toUri().toString();
    CliRunner.Result r = CliRunner.run("import", uri, f.toString(), "--progress", "none");
    assertThat(r.code()).as(r::toString).isEqualTo(1);
    assertThat(r.err().trim().lines()).hasSize(1);
    assertThat(r.err()).contains("cannot read Arrow IPC file " + f)
        .contains("a ZSTD-compressed buffer does not decompress").doesNotContain("\tat ");
    assertThat(CliRunner.run("info", uri).code()).isEqualTo(1);
  }

  private static final byte[] ZSTD_MAGIC = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD};
  private static final byte[] LZ4_MAGIC = {0x04, 0x22, 0x4D, 0x18};

  private static boolean containsCodecFrames(Path f, CompressionUtil.CodecType codec) throws IOException {
    return indexOf(Files.readAllBytes(f), codec == CompressionUtil.CodecType.ZSTD ? ZSTD_MAGIC : LZ4_MAGIC, 0) >= 0;
  }

  private static int indexOf(byte[] b, byte[] what, int from) {
    outer:
    for (int i = from; i + what.length <= b.length; i++) {
      for (int k = 0; k < what.length; k++) {
        if (b[i + k] != what[k]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
