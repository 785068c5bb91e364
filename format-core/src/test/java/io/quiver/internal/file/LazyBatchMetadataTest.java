package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.SampleTable;
import io.quiver.dataset.ScanMetrics;
import io.quiver.dataset.Session;
import io.quiver.dataset.ValidationReport;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.predicate.Predicate;
import io.quiver.store.ByteRange;
import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.TestStores;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Record-batch metadata is loaded lazily: opening a data file reads its tail (footer, zone statistics, the
 * messages that lie in it); the other batches' messages are fetched only for the batches a scan, take or
 * validation reads, and are checked then as thoroughly as they were when parsed eagerly.
 */
class LazyBatchMetadataTest {
  private static final String URI_ = "lazy://table";
  /** Rows and rows per batch of the table: 400 batches, most of whose messages lie before the 64 KiB tail. */
  private static final int ROWS = 20_000;
  private static final int BATCH = 50;

  private final RootAllocator allocator = new RootAllocator();
  private final MemoryObjectStore memory = new MemoryObjectStore(URI_);
  private final RecordingStore recording = new RecordingStore(memory);
  private String dataFile;

  @BeforeEach
  void createTable() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, ROWS);
        Dataset ds = Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options(new Session(1 << 20)))) {
      assertThat(ds.manifest().fragments()).hasSize(1);
      dataFile = ds.manifest().fragments().get(0).files().get(0).path();
    }
  }

  @AfterEach
  void noLeaks() {
    assertThat(allocator.getAllocatedMemory()).as("leaked Arrow memory").isEqualTo(0);
    allocator.close();
  }

  private DatasetOptions options(Session session) {
    return DatasetOptions.builder()
        .allocator(allocator)
        .session(session)
        .registry(TestStores.registry("lazy", TestStores.keepOpen(recording)))
        .rowsPerBatch(BATCH)
        .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
        .build();
  }

  /** The data file's metadata with every batch loaded, read apart from the table (its own cache). */
  private DataFileMetadata fullMetadata() {
    return new DataFileReader(memory, new MetadataCache(64 << 20), ReadOptions.defaults()).loadAllBatches(dataFile);
  }

  /** [start, end) of batch {@code b}: its message and its body. */
  private static long[] batchRegion(DataFileMetadata md, int b) {
    return new long[] {md.metadataOffset(b), md.bodyOffset(b) + md.bodyLength(b)};
  }

  /** Asserts every range fetched from the data file before its footer lies inside one of {@code batches}. */
  private void assertFetchedOnlyBatches(DataFileMetadata md, int... batches) {
    int last = md.batchCount() - 1;
    long tail = Math.min(md.fileSize() - DataFileReader.TAIL_READ_BYTES, md.bodyOffset(last) + md.bodyLength(last));
    List<long[]> fetched = recording.ranges(dataFile);
    assertThat(fetched).as("the data file was read").isNotEmpty();
    for (long[] r : fetched) {
      if (r[0] >= tail) {
        continue;
      }
      boolean inside = false;
      for (int b : batches) {
        long[] region = batchRegion(md, b);
        inside |= r[0] >= region[0] && r[0] + r[1] <= region[1];
      }
      assertThat(inside).as("range [" + r[0] + ", +" + r[1] + ") lies in one of batches "
          + java.util.Arrays.toString(batches) + " (or the footer and tail from " + tail + ")").isTrue();
    }
  }

  @Test
  void aColdFilteredScanFetchesNoMetadataOfPrunedBatches() {
    DataFileMetadata md = fullMetadata();
    assertThat(md.batchCount()).isEqualTo(ROWS / BATCH);
    assertThat(md.metadataOffset(1)).as("the test needs messages outside the tail")
        .isLessThan(md.fileSize() - DataFileReader.TAIL_READ_BYTES);
    try (Dataset ds = Dataset.open(URI_, options(new Session(1 << 20)))) {
      recording.reset();
      ScanMetrics metrics = new ScanMetrics();
      List<Long> ids = SampleTable.scanIds(ds.newScan()
          .filter(Predicate.and(Predicate.ge("id", 10_010L), Predicate.lt("id", 10_040L))).metrics(metrics).open());
      assertThat(ids).isEqualTo(SampleTable.range(10_010, 10_040));
      assertThat(metrics.batchesPruned()).isEqualTo(md.batchCount() - 1);
      assertFetchedOnlyBatches(md, 10_010 / BATCH);
      assertThat(metrics.bytesFetched()).as("the scan's metrics count what the store returned")
          .isEqualTo(recording.bytes());
      long oneBatch = batchRegion(md, 200)[1] - batchRegion(md, 200)[0];
      assertThat(recording.bytes()).as("tail + footer + one batch's message and body")
          .isLessThanOrEqualTo(md.fileSize() - md.metadataOffset(md.batchCount() - 1) + DataFileReader.TAIL_READ_BYTES
              + oneBatch);

      // Warm: the footer and batch 200's message are cached; another batch costs its message and body only.
      recording.reset();
      ids = SampleTable.scanIds(ds.newScan()
          .filter(Predicate.and(Predicate.ge("id", 5_000L), Predicate.lt("id", 5_010L))).open());
      assertThat(ids).isEqualTo(SampleTable.range(5_000, 5_010));
      for (long[] r : recording.ranges(dataFile)) {
        long[] region = batchRegion(md, 100);
        assertThat(r[0] >= region[0] && r[0] + r[1] <= region[1]).as("warm: only batch 100").isTrue();
      }
    }
  }

  @Test
  void aFullScanLoadsEveryBatchInFewRequests() throws Exception {
    DataFileMetadata md = fullMetadata();
    try (Dataset ds = Dataset.open(URI_, options(new Session(64 << 20)))) {
      recording.reset();
      long rows = 0;
      try (org.apache.arrow.vector.ipc.ArrowReader reader = ds.newScan().columns("id").open()) {
        while (reader.loadNextBatch()) {
          rows += reader.getVectorSchemaRoot().getRowCount();
        }
      }
      assertThat(rows).isEqualTo(ROWS);
      long messages = 0;
      for (int b = 0; b < md.batchCount(); b++) {
        messages += md.metadataLength(b);
      }
      assertThat(recording.bytes()).as("every message is fetched once").isGreaterThan(messages);
      // the messages are coalesced (ReadOptions' gap), not fetched one request per batch
      assertThat(recording.calls()).isLessThan(md.batchCount());
    }
  }

  @Test
  void takeOnAColdHandleFetchesOnlyTheBatchesOfItsRows() {
    DataFileMetadata md = fullMetadata();
    try (Dataset ds = Dataset.open(URI_, options(new Session(1 << 20)))) {
      recording.reset();
      long[] addresses = {10_001, 520, 17_499};
      try (VectorSchemaRoot rows = ds.take(addresses, List.of())) {
        assertThat(SampleTable.checkRows(rows)).containsExactly(10_001L, 520L, 17_499L);
      }
      assertFetchedOnlyBatches(md, 10_001 / BATCH, 520 / BATCH, 17_499 / BATCH);
    }
  }

  @Test
  void validateOnAColdHandleChecksEveryBatchMessage() {
    try (Dataset ds = Dataset.open(URI_, options(new Session(1 << 20)))) {
      assertThat(ds.validate().isValid()).isTrue();
    }
    DataFileMetadata md = fullMetadata();
    damageMessage(md, 123);
    try (Dataset ds = Dataset.open(URI_, options(new Session(1 << 20)))) {
      ValidationReport report = ds.validate();
      assertThat(report.problemsOf(ValidationReport.Kind.CORRUPT_FILE)).singleElement()
          .satisfies(p -> assertThat(p.message()).contains("record batch 123"));
    }
    try (Dataset ds = Dataset.open(URI_, options(new Session(1 << 20)))) {
      // a scan that never needs batch 123 reads its rows; one that does names the file
      assertThat(SampleTable.scanIds(ds.newScan()
          .filter(Predicate.lt("id", 100L)).open())).isEqualTo(SampleTable.range(0, 100));
      assertThatExceptionOfType(CorruptFileException.class)
          .isThrownBy(() -> SampleTable.scanIds(ds.newScan().filter(Predicate.eq("id", 123L * BATCH)).open()))
          .satisfies(e -> assertThat(e.getMessage()).contains(dataFile).contains("record batch 123"));
    }
  }

  /** Makes batch {@code b}'s message claim more flatbuffer bytes than its block holds. */
  private void damageMessage(DataFileMetadata md, int b) {
    byte[] bytes = memory.read(dataFile);
    int at = (int) md.metadataOffset(b);
    ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(buf.getInt(at)).as("continuation marker").isEqualTo(-1);
    buf.putInt(at + 4, md.metadataLength(b) * 2);
    memory.write(dataFile, bytes);
  }

  @Test
  void concurrentScansShareOneCachedMetadata() throws Exception {
    Session session = new Session(64 << 20);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (Dataset ds = Dataset.open(URI_, options(session))) {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<List<Long>>> results = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        long from = (t * 1237L) % (ROWS - 200);
        results.add(pool.submit(() -> {
          start.await();
          return SampleTable.scanIds(ds.newScan()
              .filter(Predicate.and(Predicate.ge("id", from), Predicate.lt("id", from + 120))).open());
        }));
      }
      start.countDown();
      for (int t = 0; t < results.size(); t++) {
        long from = (t * 1237L) % (ROWS - 200);
        assertThat(results.get(t).get()).isEqualTo(SampleTable.range(from, from + 120));
      }
      DataFileMetadata cached = MetadataCache.of(session).getIfPresent(memory.locationOf(dataFile));
      assertThat(cached).isNotNull();
      for (int t = 0; t < results.size(); t++) {
        long from = (t * 1237L) % (ROWS - 200);
        for (long row = from; row < from + 120; row += BATCH) {
          assertThat(cached.isLoaded((int) (row / BATCH))).isTrue();
        }
      }
      // every batch, now loaded concurrently by full scans, reads back the same rows
      List<Future<List<Long>>> full = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        full.add(pool.submit(() -> SampleTable.scanIds(ds.newScan().open())));
      }
      for (Future<List<Long>> f : full) {
        assertThat(f.get()).isEqualTo(SampleTable.range(0, ROWS));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- the reader itself ----

  private static Schema longs(int columns) {
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < columns; i++) {
      fields.add(TestData.nullable("c" + i, new ArrowType.Int(64, true)));
    }
    return new Schema(fields);
  }

  @Test
  void metadataReadsTheTailOnlyAndTheCacheIsChargedForLoadedBatches() {
    Files.writeRandom(memory, "w.arrow", longs(2), 99_900, 5, allocator, 333);
    MetadataCache cache = new MetadataCache(64 << 20, Runnable::run);
    DataFileReader reader = new DataFileReader(recording, cache, ReadOptions.defaults());
    recording.reset();
    DataFileMetadata md = reader.metadata("w.arrow");
    assertThat(md.batchCount()).isEqualTo(300);
    assertThat(md.rowCount()).isEqualTo(99_900);
    assertThat(md.isLoaded(0)).as("far from the tail").isFalse();
    assertThat(md.isLoaded(299)).as("the last message lies in the tail").isTrue();
    assertThat(recording.ranges("w.arrow")).as("one read: the tail, holding the footer")
        .singleElement().satisfies(r -> assertThat(r[0]).isEqualTo(md.fileSize() - DataFileReader.TAIL_READ_BYTES));
    long before = cache.estimatedSize();
    recording.reset();
    reader.loadBatches("w.arrow", 3, 1, 2, 3);
    assertThat(recording.calls()).as("adjacent messages in one request").isLessThanOrEqualTo(1);
    assertThat(md.isLoaded(1) && md.isLoaded(2) && md.isLoaded(3) && !md.isLoaded(4)).isTrue();
    reader.loadAllBatches("w.arrow");
    assertThat(cache.estimatedSize()).as("loaded batches are charged to the cache").isGreaterThan(before);
    recording.reset();
    reader.loadAllBatches("w.arrow");
    reader.readBatch("w.arrow", 50, new int[] {0}, allocator).close();
    assertThat(recording.ranges("w.arrow")).as("loaded once: only the body is read").hasSize(1);
  }

  @Test
  void aSmallFileIsLoadedWhole() {
    Files.writeRandom(memory, "s.arrow", longs(2), 500, 5, allocator, 50);
    DataFileReader reader = new DataFileReader(recording, new MetadataCache(1 << 20), ReadOptions.defaults());
    DataFileMetadata md = reader.metadata("s.arrow");
    recording.reset();
    reader.loadAllBatches("s.arrow");
    assertThat(recording.calls()).as("every message came with the tail").isZero();
    assertThat(md.isLoaded(0)).isTrue();
  }

  @Test
  void aFileWithoutZoneStatisticsIsLoadedWhenParsed() throws Exception {
    // written by plain Arrow: no zone statistics to give the row counts
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = TestData.randomBatch(longs(8), 2000, 3, allocator);
        ArrowFileWriter writer = new ArrowFileWriter(root, null, Channels.newChannel(out))) {
      writer.start();
      for (int i = 0; i < 60; i++) {
        writer.writeBatch();
      }
      writer.end();
    }
    assertThat(out.size()).isGreaterThan(4 * DataFileReader.TAIL_READ_BYTES);
    memory.write("plain.arrow", out.toByteArray());
    DataFileReader reader = new DataFileReader(recording, new MetadataCache(1 << 20), ReadOptions.defaults());
    DataFileMetadata md = reader.metadata("plain.arrow");
    assertThat(md.zoneStats()).isEmpty();
    for (int b = 0; b < md.batchCount(); b++) {
      assertThat(md.isLoaded(b)).isTrue();
    }
    assertThat(md.rowCount()).isEqualTo(60 * 2000);
  }

  /** Writes w.arrow, 100 batches of 999 rows of 8 int64 columns; returns its metadata with every batch loaded. */
  private DataFileMetadata writeHundredBatches() {
    Files.writeRandom(memory, "w.arrow", longs(8), 99_900, 5, allocator, 999);
    return new DataFileReader(memory, new MetadataCache(64 << 20), ReadOptions.defaults()).loadAllBatches("w.arrow");
  }

  @Test
  void aDamagedMessageLoadedLazilyIsACorruptFileNamingItAndStaysUnloaded() {
    DataFileMetadata full = writeHundredBatches();
    byte[] bytes = memory.read("w.arrow");
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt((int) full.metadataOffset(7) + 4, 1 << 30);
    memory.write("bad.arrow", bytes);
    DataFileReader reader = new DataFileReader(memory, new MetadataCache(64 << 20), ReadOptions.defaults());
    DataFileMetadata md = reader.metadata("bad.arrow");
    reader.readBatch("bad.arrow", 6, new int[] {0, 1}, allocator).close();
    for (int attempt = 0; attempt < 2; attempt++) {
      assertThatExceptionOfType(CorruptFileException.class)
          .isThrownBy(() -> reader.readBatch("bad.arrow", 7, new int[] {0}, allocator))
          .satisfies(e -> assertThat(e.path()).isEqualTo(memory.locationOf("bad.arrow")))
          .withMessageContaining("record batch 7 metadata claims");
      assertThat(md.isLoaded(7)).isFalse();
    }
    assertThatExceptionOfType(CorruptFileException.class)
        .isThrownBy(() -> reader.loadBatches("bad.arrow", 6, 7, 8)).withMessageContaining("record batch 7");
    assertThatExceptionOfType(CorruptFileException.class)
        .isThrownBy(() -> md.bufferRange(7, 0)).withMessageContaining("record batch 7");
  }

  @Test
  void aMessageWithAnotherRowCountThanItsZoneStatisticsIsACorruptFile() {
    DataFileMetadata full = writeHundredBatches();
    byte[] bytes = memory.read("w.arrow");
    // batch 4 says 998 rows in its RecordBatch length and every node: consistent in itself
    int from = (int) full.metadataOffset(4);
    int to = from + full.metadataLength(4);
    ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    int replaced = 0;
    for (int at = from; at + 8 <= to; at++) {
      if (buf.getLong(at) == 999) {
        buf.putLong(at, 998);
        replaced++;
      }
    }
    assertThat(replaced).as("the batch length and 8 node lengths").isEqualTo(9);
    memory.write("bad.arrow", bytes);
    DataFileReader reader = new DataFileReader(memory, new MetadataCache(64 << 20), ReadOptions.defaults());
    assertThat(reader.metadata("bad.arrow").rowCount()).isEqualTo(99_900);
    assertThatExceptionOfType(CorruptFileException.class)
        .isThrownBy(() -> reader.readBatch("bad.arrow", 4, new int[] {0}, allocator))
        .withMessageContaining("record batch 4 holds 998 rows but the footer's zone statistics say 999");
  }

  /** Records every ranged read (key, offset, bytes returned). */
  static final class RecordingStore extends ForwardingObjectStore {
    private final List<Object[]> reads = java.util.Collections.synchronizedList(new ArrayList<>());

    RecordingStore(ObjectStore delegate) {
      super(delegate);
    }

    void reset() {
      reads.clear();
    }

    long calls() {
      return reads.size();
    }

    long bytes() {
      synchronized (reads) {
        return reads.stream().mapToLong(r -> (long) r[2]).sum();
      }
    }

    /** {offset, length} of every read of {@code key}. */
    List<long[]> ranges(String key) {
      synchronized (reads) {
        return reads.stream().filter(r -> r[0].equals(key)).map(r -> new long[] {(long) r[1], (long) r[2]}).toList();
      }
    }

    @Override
    public byte[] read(String key) {
      byte[] data = super.read(key);
      reads.add(new Object[] {key, 0L, (long) data.length});
      return data;
    }

    @Override
    public byte[] readRange(String key, long offset, int length) {
      byte[] data = super.readRange(key, offset, length);
      reads.add(new Object[] {key, offset, (long) data.length});
      return data;
    }

    @Override
    public int readRangeInto(String key, long offset, ByteBuffer target) {
      int n = super.readRangeInto(key, offset, target);
      reads.add(new Object[] {key, offset, (long) n});
      return n;
    }

    @Override
    public List<byte[]> readRanges(String key, List<ByteRange> ranges) {
      List<byte[]> data = super.readRanges(key, ranges);
      for (int i = 0; i < data.size(); i++) {
        reads.add(new Object[] {key, ranges.get(i).offset(), (long) data.get(i).length});
      }
      return data;
    }
  }
}
