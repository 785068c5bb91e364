package io.quiver.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.fail;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.DistributedWriter;
import io.quiver.dataset.SampleTable;
import io.quiver.dataset.Session;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.exceptions.UnsupportedFormatException;
import io.quiver.internal.codec.ManifestBytes;
import io.quiver.internal.codec.MetadataCodec;
import io.quiver.manifest.Fragment;
import io.quiver.predicate.Predicate;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.TestStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * D1–D6 of the race catalogue (D6: hostile compressed buffers), against a real table in the store under test (store-agnostic: a subclass
 * supplies a fresh, empty store). Every damaged read is done by a fresh handle with a cold metadata cache and
 * a private allocator (closed after each damaged read, so a leak names the damage), under a preemptive
 * timeout: a hostile file must give the typed error ({@link CorruptFileException} naming the path, or {@link
 * UnsupportedFormatException}), never an {@link OutOfMemoryError}, a hang, or a raw Arrow/protobuf exception.
 *
 * <p>File-level cases stay where they are (memory only): absurd buffer, batch, node and block lengths inside
 * data files in {@code io.quiver.internal.file.CorruptFileTest}, arbitrary manifests in {@code
 * io.quiver.internal.codec.MetadataCodecTest}. A new store gets this suite with a one-method subclass, like {@code
 * MemoryHostileInputTest} here and {@code LocalHostileInputTest} in conformance-tests.
 *
 * <p>D6: the data files are compressed (the default, format 1.1); every declared uncompressed length of a
 * buffer is hostile input, bounded before anything is allocated.
 *
 * <p>The table: v1 create ids 0..20, v2 append 20..30, v3 delete ids 3 and 5 (a deletion file), tag
 * {@code t} on v3.
 */
public abstract class HostileInputContract {
  static final String URI_ = "hostile://table";
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** A fresh, empty store; {@code name} is unique per test and safe as a path segment. */
  protected abstract ObjectStore newStore(String name);

  protected ObjectStore store;
  private RootAllocator allocator;
  private long latest;

  @BeforeEach
  void createTable(TestInfo info) {
    String method = info.getTestMethod().map(m -> m.getName()).orElse("test");
    store = newStore(method + "-" + Long.toHexString(new Random().nextLong() & Long.MAX_VALUE));
    allocator = new RootAllocator();
    try (VectorSchemaRoot a = SampleTable.batch(allocator, 0, 20);
        Dataset ds = Dataset.create(URI_, SampleTable.SCHEMA, List.of(a), options(allocator));
        VectorSchemaRoot b = SampleTable.batch(allocator, 20, 10)) {
      ds.append(List.of(b));
      ds.delete(Predicate.in("id", List.of(3L, 5L)));
      ds.tags().create("t", ds.version());
      latest = ds.version();
    }
  }

  @AfterEach
  void close() {
    allocator.close();
    store.close();
  }

  protected DatasetOptions options(BufferAllocator alloc) {
    return DatasetOptions.builder()
        .allocator(alloc)
        .registry(TestStores.registry("hostile", TestStores.keepOpen(store)))
        .session(new Session(1 << 20))
        .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
        .build();
  }

  // ------------------------------------------------------------------------------------------ helpers

  /** Offsets of every class: header (magic, checksum, first payload bytes), middle, footer, end. */
  static List<Integer> flipOffsets(int length) {
    TreeSet<Integer> out = new TreeSet<>();
    for (int o : new int[] {0, 1, 3, 4, 7, 8, 12, length / 3, length / 2, 2 * length / 3, length - 12, length - 8,
        length - 5, length - 4, length - 1}) {
      if (o >= 0 && o < length) {
        out.add(o);
      }
    }
    return new ArrayList<>(out);
  }

  /** Truncated lengths of every class: empty, inside the header, middle, inside the footer, one short. */
  static List<Integer> truncations(int length) {
    TreeSet<Integer> out = new TreeSet<>();
    for (int n : new int[] {0, 1, 4, 8, length / 2, length - 12, length - 8, length - 4, length - 1}) {
      if (n >= 0 && n < length) {
        out.add(n);
      }
    }
    return new ArrayList<>(out);
  }

  /** A named damaged copy of some bytes. */
  record Damage(String what, byte[] bytes) {}

  static List<Damage> damages(byte[] original) {
    List<Damage> out = new ArrayList<>();
    for (int o : flipOffsets(original.length)) {
      byte[] b = original.clone();
      b[o] ^= (byte) 0xFF;
      out.add(new Damage("byte " + o + " of " + original.length + " flipped", b));
    }
    for (int n : truncations(original.length)) {
      out.add(new Damage("truncated to " + n + " of " + original.length, Arrays.copyOf(original, n)));
    }
    return out;
  }

  /** What a damaged read may do: succeed (only if {@code mayRead}) or throw the typed error naming the key. */
  private void expectTypedError(String key, Damage damage, boolean mayRead, Consumer<BufferAllocator> read) {
    expectTypedError(List.of(key), damage, mayRead, read);
  }

  /** As above; the corrupt-file error may name any of {@code keys}. */
  private void expectTypedError(List<String> keys, Damage damage, boolean mayRead, Consumer<BufferAllocator> read) {
    String key = keys.get(0);
    Throwable thrown = null;
    try (RootAllocator alloc = new RootAllocator(64L << 20)) {
      try {
        readWithin(() -> read.accept(alloc), key + " " + damage.what());
      } catch (CorruptFileException | UnsupportedFormatException e) {
        thrown = e;
      } catch (HangError e) {
        throw e;
      } catch (Throwable e) {
        throw new AssertionError(key + " " + damage.what() + ": expected a typed error, got " + e, e);
      }
    } catch (IllegalStateException leak) {
      throw new AssertionError(key + " " + damage.what() + ": Arrow memory leaked: " + leak.getMessage(), leak);
    }
    if (thrown == null) {
      if (!mayRead) {
        fail(key + " " + damage.what() + ": read without error");
      }
      return;
    }
    if (thrown instanceof CorruptFileException c) {
      assertThat(keys).as(damage.what() + ": " + c.getMessage()).anyMatch(k -> c.path().contains(k));
    }
  }

  /** A damaged read that did not finish within {@link #TIMEOUT}. */
  private static final class HangError extends AssertionError {
    HangError(String message) {
      super(message);
    }
  }

  /** Runs {@code read} on its own thread and rethrows what it threw; a read past {@link #TIMEOUT} is a hang. */
  private static void readWithin(Runnable read, String what) throws Throwable {
    java.util.concurrent.ExecutorService thread = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "hostile-read");
      t.setDaemon(true);
      return t;
    });
    try {
      thread.submit(read).get(TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new HangError(what + ": hang (no result within " + TIMEOUT + ")");
    } finally {
      thread.shutdownNow();
    }
  }

  /** Writes each damage of {@code key} in turn, runs {@code read}, and puts the original back. */
  private void eachDamage(String key, boolean mayRead, Consumer<BufferAllocator> read) {
    byte[] original = store.read(key);
    try {
      for (Damage d : damages(original)) {
        store.write(key, d.bytes());
        expectTypedError(key, d, mayRead, read);
      }
    } finally {
      store.write(key, original);
    }
  }

  /** Opens the latest version with a cold cache and reads every row and the validation report. */
  private void readLatest(BufferAllocator alloc) {
    try (Dataset ds = Dataset.open(URI_, options(alloc))) {
      ds.validate();
      SampleTable.scanIds(ds.newScan().open());
    }
  }

  private Fragment fragment(int index) {
    try (Dataset ds = Dataset.open(URI_, options(allocator))) {
      return ds.manifest().fragments().get(index);
    }
  }

  private void rewriteLatestManifest(Consumer<io.quiver.internal.proto.ManifestFile.Builder> edit) {
    String key = ObjectStoreCommitStore.manifestKey(latest);
    ManifestBytes.rewrite(store, key, edit);
  }

  /** Absolute ranges {offset, length} of every buffer of every record batch of a data file. */
  private List<long[]> valueBuffers(String key) {
    io.quiver.internal.file.DataFileMetadata md = new io.quiver.internal.file.DataFileReader(store,
        new io.quiver.internal.file.MetadataCache(1 << 20), io.quiver.internal.file.ReadOptions.defaults()).metadata(key);
    List<long[]> out = new ArrayList<>();
    for (int b = 0; b < md.batchCount(); b++) {
      for (int k = 0; k < md.bufferCount(); k++) {
        out.add(md.bufferRange(b, k));
      }
    }
    return out;
  }

  private static boolean insideAny(List<long[]> ranges, long offset) {
    return ranges.stream().anyMatch(r -> offset >= r[0] && offset < r[0] + r[1]);
  }

  private List<String> dataFiles() {
    return store.listAll("data/").stream().map(ObjectInfo::key).toList();
  }

  // ---------------------------------------------------------------------------------------------- D1

  @Test
  void d1_damagedManifestIsACorruptFileNamingIt() {
    String key = ObjectStoreCommitStore.manifestKey(latest);
    eachDamage(key, false, this::readLatest);
  }

  @Test
  void d1_damagedTransactionFileIsACorruptFileNamingIt() {
    String key;
    try (Dataset ds = Dataset.open(URI_, options(allocator))) {
      key = ds.manifest().transactionPath();
    }
    assertThat(key).isNotEmpty();
    String location = store.locationOf(key);
    byte[] original = store.read(key);
    for (Damage d : damages(original)) {
      expectTypedError(location, d, false, alloc -> MetadataCodec.decodeTransaction(d.bytes(), location));
    }
    // Through the table: damage is reported (validate) or the file is not needed; never a raw error.
    eachDamage(key, true, this::readLatest);
  }

  @Test
  void d1_damagedDataFileIsTypedAndTruncationsAreAlwaysCaught() {
    String key = fragment(0).files().get(0).path();
    byte[] original = store.read(key);
    // A flipped byte gives the typed error or, if the reader never needs it (padding, unused metadata), the
    // right values: readLatest checks every scanned row against SampleTable. Never a raw error. A flip inside
    // a value buffer decodes to another value (Arrow IPC has no checksums, docs/format.md §5.1): not tried.
    List<long[]> values = valueBuffers(key);
    byte[] before = store.read(key);
    try {
      for (Damage d : damages(before)) {
        if (d.what().contains("flipped") && insideAny(values, Integer.parseInt(d.what().split(" ")[1]))) {
          continue;
        }
        store.write(key, d.bytes());
        expectTypedError(key, d, true, this::readLatest);
      }
    } finally {
      store.write(key, before);
    }
    // Every truncation is noticed.
    try {
      for (int n : truncations(original.length)) {
        store.write(key, Arrays.copyOf(original, n));
        expectTypedError(key, new Damage("truncated to " + n, null), false, this::readLatest);
      }
    } finally {
      store.write(key, original);
    }
  }

  @Test
  void d1_aDamagedBatchMessageLoadedLazilyIsACorruptFileNamingItWhenItsBatchIsRead() {
    // a fragment of 400 batches: most messages lie before the tail read and are loaded only when needed
    try (Dataset ds = Dataset.open(URI_, options(allocator).toBuilder().rowsPerBatch(50).build());
        VectorSchemaRoot big = SampleTable.batch(allocator, 30, 20_000)) {
      ds.append(List.of(big));
    }
    Fragment fragment;
    try (Dataset ds = Dataset.open(URI_, options(allocator))) {
      fragment = ds.manifest().fragments().get(ds.manifest().fragments().size() - 1);
    }
    String key = fragment.files().get(0).path();
    byte[] original = store.read(key);
    java.nio.ByteBuffer bytes = java.nio.ByteBuffer.wrap(original.clone()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    int footerLen = bytes.getInt(original.length - 10);
    int footerStart = original.length - 10 - footerLen;
    org.apache.arrow.flatbuf.Footer footer = org.apache.arrow.flatbuf.Footer.getRootAsFooter(
        java.nio.ByteBuffer.wrap(original, footerStart, footerLen).slice().order(java.nio.ByteOrder.LITTLE_ENDIAN));
    org.apache.arrow.flatbuf.Block block = footer.recordBatches(new org.apache.arrow.flatbuf.Block(), 200);
    assertThat(block.offset()).as("batch 200's message lies before the tail").isLessThan(original.length - (64 << 10));
    bytes.putInt((int) block.offset() + 4, Integer.MAX_VALUE); // its flatbuffer length: past its block
    store.write(key, bytes.array());
    try (RootAllocator alloc = new RootAllocator(64L << 20)) {
      try (Dataset ds = Dataset.open(URI_, options(alloc))) {
        // a read that never needs batch 200 is unaffected: its message is never fetched
        assertThat(SampleTable.scanIds(ds.newScan().filter(Predicate.lt("id", 1_000L)).open()))
            .containsExactlyInAnyOrderElementsOf(SampleTable.range(0, 1_000).stream().filter(id -> id != 3 && id != 5)
                .toList());
        long inBatch200 = 30 + 200 * 50 + 7;
        assertThatExceptionOfType(CorruptFileException.class)
            .isThrownBy(() -> SampleTable.scanIds(ds.newScan().filter(Predicate.eq("id", inBatch200)).open()))
            .satisfies(e -> assertThat(e.path()).contains(key))
            .withMessageContaining("record batch 200");
        long address = (fragment.id() << 32) | (inBatch200 - 30);
        assertThatExceptionOfType(CorruptFileException.class)
            .isThrownBy(() -> ds.take(new long[] {address}, List.of()).close())
            .satisfies(e -> assertThat(e.path()).contains(key));
        assertThat(ds.validate().problemsOf(io.quiver.dataset.ValidationReport.Kind.CORRUPT_FILE))
            .anySatisfy(p -> assertThat(p.message()).contains("record batch 200"));
      }
    } finally {
      store.write(key, original);
    }
  }

  @Test
  void d1_damagedDeletionFileIsTyped() {
    String key = fragment(0).deletionFile().orElseThrow().path();
    byte[] original = store.read(key);
    eachDamage(key, true, this::readLatest);
    try {
      for (int n : truncations(original.length)) {
        store.write(key, Arrays.copyOf(original, n));
        expectTypedError(key, new Damage("truncated to " + n, null), false, this::readLatest);
      }
    } finally {
      store.write(key, original);
    }
  }

  @Test
  void d1_damagedTagFileIsACorruptFileNamingIt() {
    List<ObjectInfo> tags = store.listAll(io.quiver.internal.table.TagStore.TAGS_PREFIX);
    assertThat(tags.size()).isEqualTo(1);
    eachDamage(tags.get(0).key(), false, alloc -> {
      try (Dataset ds = Dataset.open(URI_, options(alloc)); Dataset at = ds.checkout("t")) {
        at.version();
      }
    });
  }

  @Test
  void d1_damagedWriteResultEncodingIsACorruptFile() {
    byte[] original;
    try (DistributedWriter w = DistributedWriter.open(URI_, options(allocator));
        VectorSchemaRoot b = SampleTable.batch(allocator, 100, 5)) {
      original = w.write(List.of(b)).encode();
    }
    for (Damage d : damages(original)) {
      expectTypedError("", d, false, alloc -> WriteResult.decode(d.bytes()));
    }
  }

  @Test
  void d1_damagedStagedColumnWriteEncodingIsACorruptFile() throws Exception {
    byte[] original;
    try (Dataset ds = Dataset.open(URI_, options(allocator))) {
      Fragment f = ds.manifest().fragments().get(0);
      io.quiver.dataset.ColumnSchema schema = ds.columns().newSchema(
          List.of(new Field("extra", FieldType.nullable(new ArrowType.Int(32, true)), null)), List.of(), List.of());
      try (org.apache.arrow.vector.ipc.ArrowReader reader = oneIntColumn(schema.arrowSchema(), (int) f.physicalRows())) {
        original = ds.columns().writeFragment(f.id(), reader, schema).encode();
      }
    }
    for (Damage d : damages(original)) {
      expectTypedError("", d, false, alloc -> io.quiver.dataset.StagedColumnWrite.decode(d.bytes()));
    }
  }

  /** One batch of {@code rows} rows for a one-int-column schema: the values are the row numbers. */
  private org.apache.arrow.vector.ipc.ArrowReader oneIntColumn(Schema schema, int rows) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      IntVector v = (IntVector) root.getVector(0);
      v.allocateNew(rows);
      for (int i = 0; i < rows; i++) {
        v.set(i, i);
      }
      root.setRowCount(rows);
      try (org.apache.arrow.vector.ipc.ArrowStreamWriter w =
          new org.apache.arrow.vector.ipc.ArrowStreamWriter(root, null, java.nio.channels.Channels.newChannel(out))) {
        w.start();
        w.writeBatch();
        w.end();
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return new org.apache.arrow.vector.ipc.ArrowStreamReader(new java.io.ByteArrayInputStream(out.toByteArray()), allocator);
  }

  @Test
  void d1_aDamagedConcurrentVersionFailsTheCommitAndNothingIsCommitted() {
    try (Dataset ds = Dataset.open(URI_, options(allocator))) {
      byte[] good = store.read(ObjectStoreCommitStore.manifestKey(latest));
      String next = ObjectStoreCommitStore.manifestKey(latest + 1);
      store.write(next, Arrays.copyOf(good, good.length / 2)); // a torn "concurrent" version
      List<String> versions = versionKeys();
      CorruptFileException e = assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> {
        try (VectorSchemaRoot b = SampleTable.batch(allocator, 500, 1)) {
          ds.append(List.of(b));
        }
      }).actual();
      assertThat(e.path()).contains(next);
      assertThat(versionKeys()).as("nothing committed").isEqualTo(versions);
    }
  }

  private List<String> versionKeys() {
    return store.listAll(ObjectStoreCommitStore.VERSIONS_PREFIX).stream().map(ObjectInfo::key).toList();
  }

  /**
   * D1 for segmented manifests (format 1.2): the latest version's root, one of its segment lists and one of its
   * segments, flipped and
   * truncated byte by byte, and missing, are each a typed error naming that file; the table reads again once
   * the file is back.
   */
  @Test
  void d1_damagedOrMissingRootsSegmentListsAndSegmentsAreCorruptFilesNamingThem() {
    String root;
    String segment;
    String list;
    try (Dataset ds = Dataset.open(URI_, options(allocator))) {
      ds.updateConfig(java.util.Map.of("manifest.segment.merge-factor", "2", "manifest.segment.max-fragments", "4",
          "manifest.segment.list-max-segments", "2"), java.util.Set.of());
      for (int i = 0; i < 12; i++) {
        try (VectorSchemaRoot b = SampleTable.batch(allocator, 100 + 10L * i, 3)) {
          ds.append(List.of(b));
        }
      }
      io.quiver.manifest.FragmentList fragments = (io.quiver.manifest.FragmentList) ds.manifest().fragments();
      assertThat(fragments.lists()).isNotEmpty();
      root = MetadataCodec.rootPath(ds.version(), ds.manifest().transactionUuid());
      segment = ds.manifest().segments().get(0).path();
      list = fragments.lists().get(0).path();
    }
    for (String key : List.of(root, list, segment)) {
      eachDamage(key, false, this::readLatest);
      byte[] original = store.read(key);
      store.delete(key);
      expectTypedError(store.locationOf(key), new Damage("missing", null), false, this::readLatest);
      store.write(key, original);
    }
    readLatest(allocator);
  }

  // ---------------------------------------------------------------------------------------------- D2

  @Test
  void d2_manifestPathsEscapingTheRootAreRejectedOnRead() {
    String key = ObjectStoreCommitStore.manifestKey(latest);
    byte[] original = store.read(key);
    for (String hostile : new String[] {"../outside.arrow", "/etc/passwd", "s3://other/x.arrow", "data/../../x.arrow",
        "file:///etc/passwd", "data//x.arrow"}) {
      store.write(key, ManifestBytes.rewrite(ManifestBytes.flatten(store, original), b -> b.getManifestBuilder().getFragmentsBuilder(0)
          .getFilesBuilder(0).setPath(hostile)));
      CorruptFileException e = assertThatExceptionOfType(CorruptFileException.class).as(hostile).isThrownBy(() -> readLatest(allocator)).actual();
      assertThat(e.getMessage()).contains(hostile);
      assertThat(e.path()).contains(key);
    }
    store.write(key, original);
    readLatest(allocator);
  }

  // ---------------------------------------------------------------------------------------------- D3

  @Test
  void d3_absurdRowCountsInTheManifestAreRejectedWithoutAllocating() {
    String key = ObjectStoreCommitStore.manifestKey(latest);
    byte[] original = store.read(key);
    // Rejected by the manifest's own checks, or (within the format's range) as a mismatch with the data
    // file's footer, before any buffer of that size is allocated (the reading allocator is capped at 64 MiB).
    List<String> named = List.of(key, fragment(0).files().get(0).path());
    for (long rows : new long[] {-1L, Long.MAX_VALUE, Fragment.MAX_ROWS + 1, Integer.MAX_VALUE, Fragment.MAX_ROWS}) {
      store.write(key, ManifestBytes.rewrite(ManifestBytes.flatten(store, original), b -> b.getManifestBuilder().getFragmentsBuilder(0)
          .setPhysicalRows(rows)));
      expectTypedError(named, new Damage("physical rows " + rows, null), false, this::readLatest);
    }
    store.write(key, original);
  }

  // ---------------------------------------------------------------------------------------------- D4

  @Test
  void d4_batchesWhoseSchemaDoesNotMatchAreRejectedAndNothingIsCommitted() {
    List<Schema> wrong = List.of(
        new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null))),
        new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null))),
        new Schema(List.of(new Field("other", FieldType.nullable(new ArrowType.Int(64, true)), null))));
    try (Dataset ds = Dataset.open(URI_, options(allocator))) {
      List<Long> ids = SampleTable.scanIds(ds.newScan().open());
      List<String> files = dataFiles();
      for (Schema schema : wrong) {
        try (VectorSchemaRoot b = root(schema, 3)) {
          assertThatExceptionOfType(SchemaMismatchException.class).as(schema.toString()).isThrownBy(() -> ds.append(List.of(b)));
          try (DistributedWriter w = DistributedWriter.open(URI_, options(allocator))) {
            assertThatExceptionOfType(SchemaMismatchException.class).as(schema.toString()).isThrownBy(() -> w.write(List.of(b)));
          }
        }
      }
      assertThat(ds.latestVersion()).as("nothing committed").isEqualTo(latest);
      assertThat(SampleTable.scanIds(ds.newScan().open())).isEqualTo(ids);
      assertThat(dataFiles()).as("no data file left behind").isEqualTo(files);
    }
  }

  // ---------------------------------------------------------------------------------------------- D6

  @Test
  void d6_contradictoryColumnStatisticsAreIgnoredAndImpossibleOnesRejected() {
    String key = ObjectStoreCommitStore.manifestKey(latest);
    byte[] original = store.read(key);
    try {
      // Bounds the other way round, and bounds of another kind than the column's: unknown, so never pruned by.
      rewriteLatestManifest(b -> {
        var files = b.getManifestBuilder().getFragmentsBuilder(0).getFilesBuilder(0).getStatsBuilder();
        for (int i = 0; i < files.getColumnsCount(); i++) {
          var c = files.getColumnsBuilder(i);
          if (c.getFieldId() == 1) { // id
            c.getLowerBuilder().setIntValue(1000);
            c.getUpperBuilder().setIntValue(-1000);
          } else {
            c.getLowerBuilder().setBoolValue(true);
            c.getUpperBuilder().setBoolValue(true);
          }
        }
      });
      try (Dataset ds = Dataset.open(URI_, options(allocator))) {
        assertThat(SampleTable.scanIds(ds.newScan().filter(Predicate.lt("id", 6L)).open()))
            .containsExactly(0L, 1L, 2L, 4L);
        assertThat(SampleTable.scanIds(ds.newScan().filter(Predicate.eq("name", "name-1")).open()))
            .containsExactly(1L);
      }
      // Counts no file can have: the manifest is corrupt, and the error names it.
      store.write(key, original);
      rewriteLatestManifest(b -> b.getManifestBuilder().getFragmentsBuilder(0).getFilesBuilder(0).getStatsBuilder()
          .getColumnsBuilder(0).setNullCount(Long.MAX_VALUE));
      expectTypedError(key, new Damage("null count above the row count", null), false, this::readLatest);
    } finally {
      store.write(key, original);
    }
  }

  private VectorSchemaRoot root(Schema schema, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    for (int i = 0; i < rows; i++) {
      if (root.getVector(0) instanceof BigIntVector v) {
        v.setSafe(i, 1000 + i);
      } else if (root.getVector(0) instanceof IntVector v) {
        v.setSafe(i, 1000 + i);
      }
    }
    root.setRowCount(rows);
    return root;
  }

  // ---------------------------------------------------------------------------------------------- D6

  @Test
  void d6_hostileUncompressedLengthsOfCompressedBuffersAreCorruptFilesNamingTheBufferWithoutAllocating() {
    // A fragment of 500 rows written with every saving kept, so that batch 0 has compressed buffers to lie about.
    String key;
    try (Dataset ds = Dataset.open(URI_, options(allocator)); VectorSchemaRoot rows = SampleTable.batch(allocator, 1000, 500)) {
      ds.updateConfig(java.util.Map.of("write.compression.min-savings", "0"), java.util.Set.of());
      ds.append(List.of(rows));
      List<Fragment> fragments = ds.manifest().fragments();
      key = fragments.get(fragments.size() - 1).files().get(0).path();
    }
    byte[] original = store.read(key);
    io.quiver.internal.file.DataFileMetadata md = new io.quiver.internal.file.DataFileReader(store,
        new io.quiver.internal.file.MetadataCache(1 << 20), io.quiver.internal.file.ReadOptions.defaults()).metadata(key);
    assertThat(md.isCompressed(0)).as("tables are written compressed by default").isTrue();
    int checked = 0;
    try {
      for (int b = 0; b < md.bufferCount(); b++) {
        long[] range = md.bufferRange(0, b);
        if (range[1] < 8) {
          continue;
        }
        long declared = littleEndianLong(original, (int) range[0]);
        if (declared <= 0) {
          continue; // stored raw (-1) or empty (0): no length to lie about
        }
        // Past any bound, past the batch's values, just past and just short of the real length, negative.
        for (long hostile : new long[] {Long.MAX_VALUE, 1L << 40, Integer.MAX_VALUE, declared + 4096, declared + 1,
            declared - 1, -2}) {
          byte[] bad = original.clone();
          putLittleEndianLong(bad, (int) range[0], hostile);
          expectCorruptBuffer(key, bad, b, "declares " + hostile + " of " + declared + " bytes");
        }
        byte[] garbage = original.clone();
        Arrays.fill(garbage, (int) range[0] + 8, (int) (range[0] + range[1]), (byte) 0x5A);
        expectCorruptBuffer(key, garbage, b, "payload overwritten");
        checked++;
      }
    } finally {
      store.write(key, original);
    }
    assertThat(checked).as("compressed buffers in batch 0").isGreaterThan(0);
    readLatest(allocator);
  }

  /**
   * The footer's frame table (§5.1) lies: every damage keeps the file's length (the table's base64 value is
   * rewritten in place). Scans read whole buffers and never use it: they read every row exactly. A take
   * either reads exactly (a table or entry it can tell is wrong is ignored) or fails with a {@link
   * CorruptFileException} naming the file; never another exception, a leak, a hang or wrong values. And
   * {@code validate()} reports each damage as {@code FRAME_TABLE_MISMATCH} on the file.
   */
  @Test
  void d6_aLyingFrameTableIsIgnoredOrATypedErrorAndValidateReportsIt() {
    String key;
    long[] addresses;
    try (Dataset ds = Dataset.open(URI_, options(allocator)); VectorSchemaRoot rows = SampleTable.batch(allocator, 1000, 500)) {
      ds.updateConfig(java.util.Map.of("write.compression.min-savings", "0"), java.util.Set.of());
      ds.append(List.of(rows));
      Fragment last = ds.manifest().fragments().get(ds.manifest().fragments().size() - 1);
      key = last.files().get(0).path();
      addresses = new long[] {last.id() << 32, (last.id() << 32) | 130, (last.id() << 32) | 257, (last.id() << 32) | 499};
    }
    byte[] original = store.read(key);
    String value = frameTableValue(original);
    int at = indexOf(original, value.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    assertThat(at).as("the frame table's value is stored once in the footer").isPositive();
    byte[] table = java.util.Base64.getDecoder().decode(value);
    List<long[]> varints = varints(table); // {start, length, value} of every varint after the version byte
    // varints: frame bytes, batch count, entry count of batch 0, then per entry: index delta, declared,
    // frame count, sizes. Find an entry with at least two frames whose first two sizes can move by one.
    int entry = -1;
    for (int i = 3; i + 2 < varints.size(); ) {
      int frames = (int) varints.get(i + 2)[2];
      if (frames >= 2 && i + 4 < varints.size() && sameLength(varints.get(i + 3)[2], varints.get(i + 3)[2] + 1)
          && sameLength(varints.get(i + 4)[2], varints.get(i + 4)[2] - 1)) {
        entry = i;
        break;
      }
      i += 3 + frames;
    }
    assertThat(entry).as("an entry of several frames in " + varints.size() + " varints").isPositive();
    int e = entry;
    List<Damage> damages = new ArrayList<>();
    char[] bang = new char[value.length()];
    Arrays.fill(bang, '!');
    damages.add(new Damage("not base64", new String(bang).getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    damages.add(new Damage("another table version", edit(table, t -> t[0] = 2)));
    damages.add(new Damage("another batch count", edit(table, t -> putVarint(t, varints.get(1), varints.get(1)[2] + 1))));
    damages.add(new Damage("a buffer index past the buffers", edit(table, t -> putVarint(t, varints.get(3), 127))));
    damages.add(new Damage("frame sizes that do not sum to the payload",
        edit(table, t -> putVarint(t, varints.get(e + 3), varints.get(e + 3)[2] + 1))));
    damages.add(new Damage("a frame boundary one byte late", edit(table, t -> {
      putVarint(t, varints.get(e + 3), varints.get(e + 3)[2] + 1);
      putVarint(t, varints.get(e + 4), varints.get(e + 4)[2] - 1);
    })));
    if (sameLength(varints.get(e + 1)[2], varints.get(e + 1)[2] - 1)) {
      damages.add(new Damage("a declared length one short",
          edit(table, t -> putVarint(t, varints.get(e + 1), varints.get(e + 1)[2] - 1))));
    }
    try {
      for (Damage d : damages) {
        byte[] bad = original.clone();
        System.arraycopy(d.bytes(), 0, bad, at, value.length());
        store.write(key, bad);
        try (RootAllocator alloc = new RootAllocator(64L << 20)) {
          readWithin(() -> {
            try (Dataset ds = Dataset.open(URI_, options(alloc))) {
              assertThat(SampleTable.scanIds(ds.newScan().open())).as(d.what()).hasSize(28 + 500);
              try (VectorSchemaRoot taken = ds.take(addresses, List.of("id", "name", "s", "tags"))) {
                assertThat(SampleTable.checkRows(taken)).as(d.what()).containsExactly(1000L, 1130L, 1257L, 1499L);
              } catch (CorruptFileException c) {
                assertThat(c.path()).as(d.what()).contains(key);
              }
              assertThat(ds.validate().problems()).as(d.what()).isNotEmpty().allSatisfy(p -> {
                assertThat(p.kind()).isEqualTo(io.quiver.dataset.ValidationReport.Kind.FRAME_TABLE_MISMATCH);
                assertThat(p.location()).isEqualTo(key);
              });
            }
          }, key + " with " + d.what());
        } catch (Throwable t) {
          throw new AssertionError(d.what() + ": " + t, t);
        }
      }
    } finally {
      store.write(key, original);
    }
    try (Dataset ds = Dataset.open(URI_, options(allocator))) {
      assertThat(ds.validate().problems()).as("the undamaged table").isEmpty();
    }
  }

  /** The footer's frame-table value, read with Arrow's own file reader. */
  private String frameTableValue(byte[] file) {
    try (var reader = new org.apache.arrow.vector.ipc.ArrowFileReader(
        new org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel(file), allocator)) {
      reader.getRecordBlocks(); // reads the footer
      String v = reader.getMetaData().get("quiver.zstd_frames");
      assertThat(v).as("the file has a frame table").isNotNull();
      return v;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /** {start, length, value} of each LEB128 varint of {@code table} after its first (version) byte. */
  private static List<long[]> varints(byte[] table) {
    List<long[]> out = new ArrayList<>();
    int i = 1;
    while (i < table.length) {
      int start = i;
      long v = 0;
      int shift = 0;
      byte b;
      do {
        b = table[i++];
        v |= (long) (b & 0x7f) << shift;
        shift += 7;
      } while ((b & 0x80) != 0);
      out.add(new long[] {start, i - start, v});
    }
    return out;
  }

  private static int varintLength(long v) {
    int n = 1;
    while ((v >>>= 7) != 0) {
      n++;
    }
    return n;
  }

  private static boolean sameLength(long a, long b) {
    return b >= 0 && varintLength(a) == varintLength(b);
  }

  /** Writes {@code value} over the varint {@code at} ({start, length, value}), which must keep its length. */
  private static void putVarint(byte[] table, long[] at, long value) {
    assertThat(varintLength(value)).as("a same-length varint").isEqualTo((int) at[1]);
    int i = (int) at[0];
    for (int k = 0; k < at[1]; k++) {
      table[i++] = (byte) ((value & 0x7f) | (k + 1 < at[1] ? 0x80 : 0));
      value >>>= 7;
    }
  }

  /** The base64 of an edited copy of {@code table}. */
  private static byte[] edit(byte[] table, Consumer<byte[]> edit) {
    byte[] t = table.clone();
    edit.accept(t);
    return java.util.Base64.getEncoder().encode(t);
  }

  /** Writes {@code bytes} under {@code key}; a cold read must fail naming the file, batch 0 and the buffer. */
  private void expectCorruptBuffer(String key, byte[] bytes, int buffer, String what) {
    store.write(key, bytes);
    Throwable thrown = null;
    try (RootAllocator alloc = new RootAllocator(64L << 20)) {
      readWithin(() -> readLatest(alloc), key + " buffer " + buffer + " " + what);
    } catch (Throwable e) {
      thrown = e;
    }
    assertThat(thrown).as("buffer " + buffer + " " + what).isInstanceOf(CorruptFileException.class);
    CorruptFileException c = (CorruptFileException) thrown;
    assertThat(c.path()).contains(key);
    assertThat(c.getMessage()).as(what).contains("record batch 0 buffer " + buffer + " (");
  }

  private static long littleEndianLong(byte[] b, int at) {
    return java.nio.ByteBuffer.wrap(b, at, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
  }

  private static void putLittleEndianLong(byte[] b, int at, long value) {
    java.nio.ByteBuffer.wrap(b, at, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(value);
  }

  // ---------------------------------------------------------------------------------------------- D5

  @Test
  void d5_unknownFutureFormatVersionIsRefusedNamingIt() {
    rewriteLatestManifest(b -> b.getManifestBuilder().getFormatVersionBuilder().setMajor(2).setMinor(7));
    UnsupportedFormatException e = assertThatExceptionOfType(UnsupportedFormatException.class).isThrownBy(() -> readLatest(allocator)).actual();
    assertThat(e.getMessage()).contains("2.7");
  }

  @Test
  void d5_unknownReaderFeatureIsRefusedNamingIt() {
    rewriteLatestManifest(b -> b.getManifestBuilder().addReaderFeatures("time-machine"));
    UnsupportedFormatException e = assertThatExceptionOfType(UnsupportedFormatException.class).isThrownBy(() -> readLatest(allocator)).actual();
    assertThat(e.getMessage()).contains("time-machine");
  }

  @Test
  void d5_unknownDataFileMajorVersionIsRefusedNamingIt() {
    rewriteLatestManifest(b -> b.getManifestBuilder().getFragmentsBuilder(0).getFilesBuilder(0).setFileMajor(9));
    UnsupportedFormatException e = assertThatExceptionOfType(UnsupportedFormatException.class).isThrownBy(() -> readLatest(allocator)).actual();
    assertThat(e.getMessage()).contains("9.");
  }
}
