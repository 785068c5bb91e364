package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A writer compressing each record batch on several threads ({@link
 * DataFileWriter#COMPRESSION_THREADS_PROPERTY}) writes the bytes a writer compressing on its own thread
 * writes (frame table and statistics included), and its values read back.
 */
class CompressionThreadsTest extends DataFileTestBase {
  private static final int ROWS_PER_BATCH = 100;

  @AfterEach
  void clearProperty() {
    System.clearProperty(DataFileWriter.COMPRESSION_THREADS_PROPERTY);
  }

  @ParameterizedTest(name = "{0} threads")
  @ValueSource(ints = {2, 3, 64})
  void threadsWriteTheBytesOneThreadWrites(int threads) {
    int rows = 5 * ROWS_PER_BATCH + 17;
    // min savings 0: every compressed buffer is kept, so the frame table lists them all
    FileCompression[] compressions = {FileCompression.zstd(1), FileCompression.zstd(3).withMinSavings(0)};
    for (int c = 0; c < compressions.length; c++) {
      FileCompression compression = compressions[c];
      // keys of their own: the reader caches a file's metadata by key
      try (VectorSchemaRoot data = TestData.randomBatch(TestData.allTypesSchema(), rows, 7, allocator)) {
        System.clearProperty(DataFileWriter.COMPRESSION_THREADS_PROPERTY);
        Files.write(store, "one" + c + ".arrow", data, allocator, ROWS_PER_BATCH, compression,
            ROWS_PER_BATCH, ROWS_PER_BATCH, 2 * ROWS_PER_BATCH, ROWS_PER_BATCH, 17);
        System.setProperty(DataFileWriter.COMPRESSION_THREADS_PROPERTY, Integer.toString(threads));
        Files.write(store, "many" + c + ".arrow", data, allocator, ROWS_PER_BATCH, compression,
            ROWS_PER_BATCH, ROWS_PER_BATCH, 2 * ROWS_PER_BATCH, ROWS_PER_BATCH, 17);
        byte[] one = store.read("one" + c + ".arrow");
        byte[] many = store.read("many" + c + ".arrow");
        assertThat(Arrays.mismatch(one, many)).as("first differing byte of " + one.length + " and "
            + many.length).isEqualTo(-1);
        Files.assertFileEquals(reader, "many" + c + ".arrow", data, allocator);
      }
    }
  }
}
