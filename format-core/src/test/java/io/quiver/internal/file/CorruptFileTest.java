package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.fail;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.UnsupportedFormatException;
import io.quiver.store.MemoryObjectStore;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.flatbuf.Block;
import org.apache.arrow.flatbuf.Footer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Truncated, bit-flipped and hostile files fail with CorruptFileException naming the file, before
 * anything sized by their numbers is allocated. Flips inside data buffers are not tested: Arrow IPC has
 * no checksums, so they can go unnoticed.
 */
class CorruptFileTest {
  private static final String BAD = "bad.arrow";
  private final RootAllocator allocator = new RootAllocator();
  private final MemoryObjectStore store = new MemoryObjectStore("mem://corrupt");
  private final String badLocation = store.locationOf(BAD);

  @AfterEach
  void noLeaks() {
    assertThat(allocator.getAllocatedMemory()).as("leaked Arrow memory").isEqualTo(0);
    allocator.close();
  }

  private byte[] smallFile() {
    Files.writeRandom(store, "small.arrow", ProjectionTest.SCHEMA, 200, 11, allocator, 64);
    return store.read("small.arrow");
  }

  private byte[] largeFile() {
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      fields.add(TestData.nullable("c" + i, new ArrowType.Int(64, true)));
    }
    fields.add(TestData.nullable("s", ArrowType.Utf8.INSTANCE));
    Files.writeRandom(store, "large.arrow", new Schema(fields), 5000, 12, allocator, 1000);
    byte[] bytes = store.read("large.arrow");
    assertThat(bytes.length > 4 * DataFileReader.TAIL_READ_BYTES).isTrue();
    return bytes;
  }

  /** Stores the bytes as BAD and reads all of it with a cold cache and a 1 MiB allocator limit. */
  private void readEverything(byte[] bytes) {
    store.write(BAD, bytes);
    DataFileReader reader = new DataFileReader(store, new MetadataCache(1 << 20), ReadOptions.defaults());
    try (BufferAllocator limited = allocator.newChildAllocator("limited", 0, 1 << 20)) {
      DataFileMetadata md = reader.metadata(BAD);
      for (int b = 0; b < md.batchCount(); b++) {
        reader.readBatch(BAD, b, Files.allColumns(md), limited).close();
      }
    }
  }

  private CorruptFileException assertCorrupt(byte[] bytes, String expectedDetail) {
    CorruptFileException e = assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> readEverything(bytes)).actual();
    assertThat(e.path()).isEqualTo(badLocation);
    assertThat(e.getMessage().contains(badLocation)).as(e.getMessage()).isTrue();
    assertThat(e.getMessage().contains(expectedDetail)).as("expected '" + expectedDetail + "' in: " + e.getMessage()).isTrue();
    return e;
  }

  @Test
  void intactFilesRead() {
    readEverything(smallFile());
    readEverything(largeFile());
  }

  @Test
  void truncationIsDetectedAtAnyLength() {
    for (byte[] file : List.of(smallFile(), largeFile())) {
      int n = file.length;
      for (int cut : new int[] {0, 1, 6, 8, 17, 100, n / 4, n / 2, n - 70_000, n - 1000, n - 11, n - 10, n - 7, n - 6, n - 1}) {
        if (cut >= 0 && cut < n) {
          assertCorrupt(Arrays.copyOf(file, cut), "");
        }
      }
    }
  }

  @Test
  void flippedBitsInFooterAndBatchMetadataNeverEscapeAsOtherErrors() {
    for (byte[] file : List.of(smallFile(), largeFile())) {
      List<int[]> regions = metadataRegions(file);
      SplittableRandom random = new SplittableRandom(Long.getLong("quiver.fuzz.seed", 5));
      int tried = 0;
      int detected = 0;
      for (int[] region : regions) {
        int step = Boolean.getBoolean("quiver.fuzz.full") ? 1 : Math.max(1, (region[1] - region[0]) / 400);
        for (int pos = region[0]; pos < region[1]; pos += step) {
          byte[] flipped = file.clone();
          flipped[pos] ^= (byte) (1 << random.nextInt(8));
          tried++;
          try {
            readEverything(flipped);
          } catch (CorruptFileException | UnsupportedFormatException e) {
            assertThat(e.getMessage().contains(badLocation)).as(e.getMessage()).isTrue();
            detected++;
          } catch (RuntimeException | Error e) {
            throw new AssertionError("flip at " + pos + " escaped as " + e, e);
          }
        }
      }
      System.out.printf("bit flips in %d-byte file metadata: %d of %d detected%n", file.length, detected, tried);
      // Names, nullability flags, padding and metadata values can change undetected; structure cannot.
      assertThat(detected > tried / 3).as(detected + " of " + tried + " flips detected").isTrue();
    }
  }

  @Test
  void wrongMagicFooterLengthAndForeignContentAreRejected() {
    byte[] file = smallFile();
    int n = file.length;
    byte[] magic = file.clone();
    magic[n - 1] = '2';
    assertCorrupt(magic, "ARROW1");
    for (int footerLen : new int[] {0, -5, Integer.MAX_VALUE, n - 10 + 1}) {
      byte[] bad = file.clone();
      ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putInt(n - 10, footerLen);
      assertCorrupt(bad, "footer length " + footerLen);
    }
    byte[] noise = new byte[5000];
    new SplittableRandom(1).nextBytes(noise);
    assertCorrupt(noise, "ARROW1");
    assertCorrupt(new byte[0], "0 bytes long");
    assertCorrupt(ipcStream(), "ARROW1");
  }

  @Test
  void absurdBufferLengthIsRejectedWithoutAllocating() {
    byte[] file = largeFile();
    // The data buffer of c0 in batch 0: validity (1000 bits = 125 bytes, padded to 128) then 8000 bytes.
    int at = find(file, le(128, 8000), 0, file.length);
    for (long absurd : new long[] {Long.MAX_VALUE, 1L << 40, Integer.MAX_VALUE, 8000 + 1_000_000}) {
      byte[] bad = file.clone();
      ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putLong(at + 8, absurd);
      assertCorrupt(bad, "outside its body");
    }
    byte[] negative = file.clone();
    ByteBuffer.wrap(negative).order(ByteOrder.LITTLE_ENDIAN).putLong(at, -8);
    assertCorrupt(negative, "outside its body");
  }

  @Test
  void absurdBatchAndNodeLengthsAreRejectedWithoutAllocating() {
    // one batch of 1234 rows: the RecordBatch length and every top-level node length are 1234
    Schema schema =
        new Schema(List.of(TestData.field("i", new ArrowType.Int(64, true), false),
            TestData.field("s", ArrowType.Struct.INSTANCE, false,
                TestData.field("x", ArrowType.Bool.INSTANCE, false))));
    Files.writeRandom(store, "one.arrow", schema, 1234, 1, allocator, 10_000);
    byte[] file = store.read("one.arrow");
    int[] meta = metadataRegions(file).get(1);
    byte[] rows = le(1234);
    for (long absurd : new long[] {1L << 40, -1, Integer.MAX_VALUE, 1 << 24}) {
      byte[] bad = file.clone();
      int count = 0;
      for (int at = find(bad, rows, meta[0], meta[1]); at >= 0; at = find(bad, rows, at + 8, meta[1])) {
        ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putLong(at, absurd);
        count++;
      }
      assertThat(count).as("batch length + 3 node lengths").isEqualTo(4);
      assertCorrupt(bad, absurd < 0 || absurd > Integer.MAX_VALUE ? "claims " + absurd + " rows" : "claims " + absurd + " values");
    }
    // a lone node length that disagrees with the batch
    byte[] bad = file.clone();
    int node = find(bad, rows, find(bad, rows, meta[0], meta[1]) + 8, meta[1]);
    ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putLong(node, 1233);
    assertCorrupt(bad, "expected 1234");
  }

  @Test
  void absurdBlockLengthsInTheFooterAreRejected() {
    byte[] file = largeFile();
    Footer footer = footer(file);
    Block block = footer.recordBatches(new Block(), 2);
    int at = find(file, concat(le(block.offset()), le32(block.metaDataLength())), footerStart(file), file.length);
    assertThat(at > 0).isTrue();
    byte[] body = file.clone();
    ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN).putLong(at + 16, Long.MAX_VALUE);
    assertCorrupt(body, "record batch 2 is described as");
    byte[] meta = file.clone();
    ByteBuffer.wrap(meta).order(ByteOrder.LITTLE_ENDIAN).putInt(at + 8, Integer.MAX_VALUE);
    assertCorrupt(meta, "record batch 2 is described as");
    byte[] offset = file.clone();
    ByteBuffer.wrap(offset).order(ByteOrder.LITTLE_ENDIAN).putLong(at, file.length + 100L);
    assertCorrupt(offset, "record batch 2 is described as");
  }

  @Test
  void dictionariesAreRejectedAsUnsupportedContent() throws Exception {
    DictionaryEncoding encoding = new DictionaryEncoding(1L, false, new ArrowType.Int(32, true));
    Field field = new Field("d", new FieldType(true, new ArrowType.Int(32, true), encoding), null);
    try (VarCharVector dictionaryValues = new VarCharVector("dict", allocator);
        IntVector indices = (IntVector) field.createVector(allocator)) {
      dictionaryValues.allocateNew();
      dictionaryValues.setSafe(0, "a".getBytes());
      dictionaryValues.setValueCount(1);
      indices.allocateNew();
      indices.setSafe(0, 0);
      indices.setValueCount(1);
      DictionaryProvider.MapDictionaryProvider provider =
          new DictionaryProvider.MapDictionaryProvider(new Dictionary(dictionaryValues, encoding));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (VectorSchemaRoot root = new VectorSchemaRoot(List.of(field), List.of(indices), 1);
          ArrowFileWriter writer = new ArrowFileWriter(root, provider, Channels.newChannel(out))) {
        writer.start();
        writer.writeBatch();
        writer.end();
      }
      indices.getValidityBuffer(); // still owned by the try block
      assertCorrupt(out.toByteArray(), "dictionar");
    }
  }

  @Test
  void newerFormatVersionIsReportedAsUnsupported() {
    byte[] file = smallFile();
    int at = find(file, concat(le32(3), "1.0".getBytes()), footerStart(file), file.length);
    file[at + 4] = '9';
    store.write(BAD, file);
    UnsupportedFormatException e =
        assertThatExceptionOfType(UnsupportedFormatException.class).isThrownBy(() -> readEverything(file)).actual();
    assertThat(e.getMessage().contains(badLocation) && e.getMessage().contains("9.0")).as(e.getMessage()).isTrue();
  }

  @Test
  void corruptionInsideOneBatchNamesTheFileWhenReadingIt() {
    byte[] file = largeFile();
    // make the utf8 column's last offset point past its data: only detectable once loaded
    DataFileMetadata md =
        new DataFileReader(store, new MetadataCache(1 << 20), ReadOptions.defaults()).metadata("large.arrow");
    int offsetsBuffer = 8 * 2 + 1; // 8 int64 columns of 2 buffers, then validity, offsets, data of "s"
    long offsets = md.bodyOffset(0) + md.bufferOffset(0, offsetsBuffer);
    long last = offsets + md.bufferLength(0, offsetsBuffer) - 4;
    ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).putInt((int) last, 1 << 30);
    QuiverException e = assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> readEverything(file)).actual();
    assertThat(e.getMessage().contains(badLocation) && e.getMessage().contains("batch 0")).as(e.getMessage()).isTrue();
  }

  // ---- helpers ----

  private byte[] ipcStream() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = TestData.randomBatch(ProjectionTest.SCHEMA, 10, 1, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(out))) {
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (java.io.IOException e) {
      fail("", e);
    }
    return out.toByteArray();
  }

  private static int footerStart(byte[] file) {
    int footerLen = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getInt(file.length - 10);
    return file.length - 10 - footerLen;
  }

  private static Footer footer(byte[] file) {
    int start = footerStart(file);
    return Footer.getRootAsFooter(
        ByteBuffer.wrap(file, start, file.length - 10 - start).slice().order(ByteOrder.LITTLE_ENDIAN));
  }

  /** [start, end) of the footer and of each record batch's metadata. */
  private static List<int[]> metadataRegions(byte[] file) {
    List<int[]> regions = new ArrayList<>();
    regions.add(new int[] {footerStart(file), file.length});
    Footer footer = footer(file);
    for (int i = 0; i < footer.recordBatchesLength(); i++) {
      Block b = footer.recordBatches(new Block(), i);
      regions.add(new int[] {(int) b.offset(), (int) b.offset() + b.metaDataLength()});
    }
    return regions;
  }

  private static int find(byte[] hay, byte[] needle, int from, int to) {
    for (int i = Math.max(0, from); i + needle.length <= to; i++) {
      if (Arrays.equals(hay, i, i + needle.length, needle, 0, needle.length)) {
        return i;
      }
    }
    return -1;
  }

  private static byte[] le(long... values) {
    ByteBuffer b = ByteBuffer.allocate(8 * values.length).order(ByteOrder.LITTLE_ENDIAN);
    for (long v : values) {
      b.putLong(v);
    }
    return b.array();
  }

  private static byte[] le32(int v) {
    return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }
}
