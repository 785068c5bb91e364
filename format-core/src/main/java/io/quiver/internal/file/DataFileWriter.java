package io.quiver.internal.file;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.ObjectStore;
import io.quiver.store.support.StoreThreads;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flatbuf.BodyCompressionMethod;
import org.apache.arrow.flatbuf.CompressionType;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowBodyCompression;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.ArrowType.ArrowTypeID;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Streams batches into one Arrow IPC file through {@link ObjectStore#openWriter}; the object appears
 * only on {@link #finish()}, so a crashed or aborted writer never leaves a partial file for readers.
 *
 * <p>The file is an Arrow IPC file (no dictionaries) that any Arrow implementation can open. Without
 * compression it is data-file format 1.0; with {@link FileCompression} ZSTD it is format 1.1: every record
 * batch body uses Arrow's own buffer compression (ZSTD, each buffer a run of independent frames: {@link
 * ZstdFrames}), with the buffers of the columns the compression leaves plain stored uncompressed inside it, so an Arrow
 * reader with its compression module (pyarrow, Arrow C++, Arrow Java with {@code arrow-compression}) opens
 * it. Rows are re-chunked into record batches of exactly {@code rowsPerBatch} rows (the last may
 * be shorter) so that batch boundaries are predictable for readers regardless of how callers slice their
 * input. The footer's custom metadata records the Quiver format version under {@link #VERSION_KEY}.
 *
 * <p>Not thread-safe. Any failure while writing aborts the upload and frees memory; after that every call
 * but {@link #abort()} and {@link #close()} throws {@link IllegalStateException}. A {@link
 * SchemaMismatchException} from {@link #write} is detected before anything changes, so the writer stays
 * usable.
 */
public final class DataFileWriter implements AutoCloseable {
  public static final int FORMAT_MAJOR = 1, FORMAT_MINOR = 0;

  /** Format minor of a file whose record batch bodies are compressed (format 1.1). */
  public static final int COMPRESSED_FORMAT_MINOR = 1;

  /** Footer custom-metadata key holding "major.minor". */
  public static final String VERSION_KEY = "quiver.data_file.version";

  /** Footer custom-metadata key holding the zone statistics (docs/format.md §5.2). */
  public static final String ZONE_STATS_KEY = "quiver.zone_stats";

  /**
   * System property: how many threads (the writer's own included) compress a record batch's buffers; 1 (the
   * default) compresses on the writer's thread only. A writer reads it when it is created. Files are the same
   * bytes whatever it is: each buffer is compressed alone, and laid out in order. {@code quiver import} sets
   * it to the number of processors.
   */
  public static final String COMPRESSION_THREADS_PROPERTY = "quiver.write.compressionThreads";

  /** The helper threads of writers compressing on more than one thread (daemon, idle ones end). */
  private static final ExecutorService POOL =
      StoreThreads.elastic("quiver-compress");

  private enum State {
    OPEN,
    FINISHED,
    ABORTED
  }

  private final ObjectStore store;
  private final String key;
  private final Schema schema;
  private final int rowsPerBatch;
  private final BufferAllocator allocator;
  private final VectorSchemaRoot stage;
  private final ObjectStore.ObjectWriter out;
  private final BatchWriter arrow;
  /** Null when the file is written uncompressed (format 1.0). */
  /** Whether any column is compressed: bodies are then ZSTD-compressed, each buffer as {@link ZstdFrames}. */
  private final boolean compressing;
  /** Per preorder field of the schema: whether its buffers are compressed. */
  private final boolean[] compressedFields;
  private final FileCompression compression;
  /** The ZSTD context of every compressed buffer of the file; null when nothing is compressed. */
  private final ZstdFrames.Compressor zstd;
  /** Threads compressing a batch ({@link #COMPRESSION_THREADS_PROPERTY}), 1 to 64. */
  private final int threads;
  /** The ZSTD contexts of the helper threads, made when first needed; closed with {@link #zstd}. */
  private final ZstdFrames.Compressor[] helperZstd;
  private final int formatMinor;
  private final SchemaLayout layout;
  private final StatsCollector stats;
  /** The footer's custom metadata; the zone statistics are added when the file is finished. */
  private final Map<String, String> footer = new java.util.LinkedHashMap<>();
  /** Where each compressed buffer's frames are, for the footer (docs/format.md §5.1). */
  private final FrameTable.Builder frames;
  private State state = State.OPEN;
  private long rowCount;

  /** An uncompressed (format 1.0) data file. */
  public DataFileWriter(
      ObjectStore store, String key, Schema schema, BufferAllocator allocator, int rowsPerBatch) {
    this(store, key, schema, allocator, rowsPerBatch, FileCompression.NONE);
  }

  /**
   * A data file compressed as {@code compression} says: format 1.1 when it compresses at least one column,
   * else format 1.0 (byte for byte what an uncompressed writer writes).
   */
  public DataFileWriter(ObjectStore store, String key, Schema schema, BufferAllocator allocator, int rowsPerBatch,
      FileCompression compression) {
    if (store == null || key == null || schema == null || allocator == null || compression == null) {
      throw new InvalidArgumentException("store, key, schema, allocator and compression must not be null");
    }
    if (rowsPerBatch < 1) {
      throw new InvalidArgumentException("rowsPerBatch must be >= 1, got " + rowsPerBatch);
    }
    String unsupported = SchemaLayout.firstUnsupported(schema);
    if (unsupported != null) {
      throw new InvalidArgumentException(
          "cannot write data file " + store.locationOf(key) + ": " + unsupported);
    }
    this.store = store;
    this.key = key;
    this.schema = schema;
    this.rowsPerBatch = rowsPerBatch;
    SchemaLayout layout = new SchemaLayout(schema);
    this.layout = layout;
    this.stats = new StatsCollector(schema);
    this.compressedFields = compressedFields(layout, compression);
    this.compression = compression;
    boolean compress = false;
    for (int c = 0; c < layout.atomicField.length; c++) {
      compress |= compression.compresses(c);
    }
    this.compressing = compress;
    this.frames = new FrameTable.Builder(compression.frameBytes());
    this.zstd = compress
        ? new ZstdFrames.Compressor(compression.level(), compression.frameBytes(), compression.minSavings()) : null;
    this.threads = compress ? Math.max(1, Math.min(64, Integer.getInteger(COMPRESSION_THREADS_PROPERTY, 1))) : 1;
    this.helperZstd = new ZstdFrames.Compressor[threads - 1];
    this.formatMinor = compress ? COMPRESSED_FORMAT_MINOR : FORMAT_MINOR;
    BufferAllocator child = allocator.newChildAllocator("DataFileWriter " + key, 0, Long.MAX_VALUE);
    VectorSchemaRoot root = null;
    ObjectStore.ObjectWriter writer = null;
    try {
      root = VectorSchemaRoot.create(schema, child);
      this.stage = root;
      allocateStage();
      writer = store.openWriter(key);
      footer.put(VERSION_KEY, FORMAT_MAJOR + "." + formatMinor);
      BatchWriter fileWriter = new BatchWriter(root, Channels.newChannel(writer), footer);
      fileWriter.start();
      this.allocator = child;
      this.out = writer;
      this.arrow = fileWriter;
    } catch (IOException | RuntimeException e) {
      if (writer != null) {
        writer.abort();
      }
      if (root != null) {
        root.close();
      }
      child.close();
      if (zstd != null) {
        zstd.close();
      }
      throw failure("opening", e);
    }
  }

  /**
   * Appends the rows of a batch (any row count, may be 0). Rows are re-chunked so that every record batch
   * in the file holds exactly rowsPerBatch rows except the last. The batch's schema must equal the
   * writer's (field names, types, nullability, children; metadata is ignored) or {@link
   * SchemaMismatchException} names the first differing field. The caller keeps ownership of {@code
   * batch}.
   */
  public void write(VectorSchemaRoot batch) {
    ensureOpen();
    if (batch == null) {
      throw new InvalidArgumentException("batch must not be null");
    }
    checkSchema(batch.getSchema());
    try {
      int n = batch.getRowCount();
      if (n == rowsPerBatch && stage.getRowCount() == 0 && valueCounts(batch, n)) {
        // a whole record batch as it is: written from the caller's vectors, not copied into the stage first
        flush(batch);
        rowCount += n;
        return;
      }
      int offset = 0;
      while (offset < n) {
        int take = Math.min(rowsPerBatch - stage.getRowCount(), n - offset);
        append(batch, offset, take);
        offset += take;
        rowCount += take;
        if (stage.getRowCount() == rowsPerBatch) {
          flush();
        }
      }
    } catch (IOException | RuntimeException e) {
      abort();
      throw failure("writing", e);
    }
  }

  /** Whether every column of the batch holds exactly {@code n} values (its row count). */
  private static boolean valueCounts(VectorSchemaRoot batch, int n) {
    for (FieldVector v : batch.getFieldVectors()) {
      if (v.getValueCount() != n) {
        return false;
      }
    }
    return true;
  }

  /** Copies rows [offset, offset+count) of batch into the stage, in this writer's memory. */
  private void append(VectorSchemaRoot batch, int offset, int count) {
    List<FieldVector> sources = batch.getFieldVectors();
    List<FieldVector> slices = new java.util.ArrayList<>(sources.size());
    try {
      List<Field> fields = stage.getSchema().getFields();
      for (int i = 0; i < sources.size(); i++) {
        FieldVector source = sources.get(i);
        // Slice with the source's own allocator (buffers cannot move between unrelated root allocators)
        // into a vector built from our field, so child names match the stage even where the caller's
        // differ (list items are often named "$data$" after Arrow slicing).
        TransferPair pair = source.getTransferPair(fields.get(i), source.getAllocator());
        pair.splitAndTransfer(offset, count);
        slices.add((FieldVector) pair.getTo());
      }
      List<FieldVector> targets = stage.getFieldVectors();
      for (int i = 0; i < targets.size(); i++) {
        Appender.append(targets.get(i), slices.get(i));
      }
      stage.setRowCount(stage.getRowCount() + count);
    } finally {
      for (FieldVector v : slices) {
        v.close();
      }
    }
  }

  private void flush() throws IOException {
    flush(stage);
    stage.clear();
    allocateStage();
  }

  /** Writes {@code rows} (the stage, or a caller's batch of exactly rowsPerBatch rows) as one record batch. */
  private void flush(VectorSchemaRoot rows) throws IOException {
    long[] fieldBytes = new long[layout.fieldCount()];
    if (!compressing) {
      int[] field = {0};
      for (FieldVector v : rows.getFieldVectors()) {
        measure(v, field, fieldBytes);
      }
      try (ArrowRecordBatch batch = rawBatch(rows)) {
        arrow.write(batch);
      }
    } else {
      try (ArrowRecordBatch batch = compressedBatch(rows, fieldBytes)) {
        arrow.write(batch);
      }
    }
    frames.endBatch();
    long[] columnBytes = new long[layout.atomicField.length];
    for (int c = 0; c < columnBytes.length; c++) {
      int f = layout.atomicField[c];
      for (int i = f; i < layout.subtreeEnd[f]; i++) {
        columnBytes[c] += fieldBytes[i];
      }
    }
    stats.addBatch(rows, columnBytes);
  }

  /**
   * The rows as a record batch with a compressed body: the field nodes and buffers Arrow's unloader
   * would produce, in preorder, each buffer compressed by the codec or stored raw behind the -1 length
   * marker: a plain column's, and any whose compressed form saves too little ({@link FileCompression#keeps}).
   * The buffers are compressed first, on {@link #threads} threads when there are more than one
   * ({@link #compressAll}), then laid out in preorder: the same bytes however many threads compressed them.
   */
  private ArrowRecordBatch compressedBatch(VectorSchemaRoot rows, long[] fieldBytes) {
    List<ArrowFieldNode> nodes = new ArrayList<>();
    List<Unloaded> unloaded = new ArrayList<>();
    List<ArrowBuf> buffers = new ArrayList<>();
    try {
      int[] field = {0};
      for (FieldVector v : rows.getFieldVectors()) {
        unload(v, field, nodes, unloaded);
      }
      compressAll(unloaded);
      for (Unloaded u : unloaded) {
        ArrowBuf stored;
        if (u.compressed) {
          ZstdFrames.Packed packed = u.packed;
          u.packed = null;
          stored = packed == null ? null : packed.buf();
          long raw = u.source.writerIndex();
          if (packed == null) {
            stored = CompressionUtil.packageRawBuffer(allocator, u.source); // the probe: it saves too little
          } else if (raw > 0
              && !compression.keeps(stored.writerIndex() - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, raw)) {
            stored.close(); // saves too little to be worth a decompression on every read
            stored = CompressionUtil.packageRawBuffer(allocator, u.source);
          } else {
            frames.add(buffers.size(), packed);
          }
        } else {
          stored = CompressionUtil.packageRawBuffer(allocator, u.source);
        }
        buffers.add(stored);
        fieldBytes[u.field] += stored.writerIndex();
      }
      ArrowBodyCompression body = new ArrowBodyCompression(CompressionType.ZSTD, BodyCompressionMethod.BUFFER);
      ArrowRecordBatch batch =
          new ArrowRecordBatch(rows.getRowCount(), nodes, List.copyOf(buffers), body, true, false);
      buffers.clear(); // the batch owns them now
      return batch;
    } finally {
      buffers.forEach(ArrowBuf::close);
      unloaded.forEach(Unloaded::close);
    }
  }

  /**
   * One buffer of a compressed body, in preorder: the buffer as written ({@code source}: the vector's own, or
   * a zero-padded copy this writer closes), whether it is compressed, and once it is, its frames.
   */
  private static final class Unloaded implements AutoCloseable {
    final ArrowBuf source;
    final boolean ownsSource;
    final boolean compressed;
    final int field;
    /** Set by whichever thread compressed it (read after {@link Compression#await}). */
    ZstdFrames.Packed packed;

    Unloaded(ArrowBuf source, boolean ownsSource, boolean compressed, int field) {
      this.source = source;
      this.ownsSource = ownsSource;
      this.compressed = compressed;
      this.field = field;
    }

    @Override
    public void close() {
      if (packed != null) {
        packed.buf().close();
        packed = null;
      }
      if (ownsSource) {
        source.close();
      }
    }
  }

  /**
   * The rows as the record batch Arrow's unloader makes of them (format 1.0): their buffers, shared, except
   * bitmaps with bits set past their last value, which are written zero-padded ({@link #paddedBitmap}).
   */
  private ArrowRecordBatch rawBatch(VectorSchemaRoot rows) {
    List<ArrowFieldNode> nodes = new ArrayList<>();
    List<ArrowBuf> buffers = new ArrayList<>();
    try {
      for (FieldVector v : rows.getFieldVectors()) {
        unloadRaw(v, nodes, buffers);
      }
      ArrowRecordBatch batch = new ArrowRecordBatch(rows.getRowCount(), nodes, List.copyOf(buffers),
          NoCompressionCodec.DEFAULT_BODY_COMPRESSION, true, false);
      buffers.clear(); // the batch owns these references now
      return batch;
    } finally {
      buffers.forEach(ArrowBuf::close);
    }
  }

  private void unloadRaw(FieldVector v, List<ArrowFieldNode> nodes, List<ArrowBuf> buffers) {
    nodes.add(new ArrowFieldNode(v.getValueCount(), v.getNullCount()));
    for (ArrowBuf buf : v.getFieldBuffers()) {
      ArrowBuf padded = paddedBitmap(v, buf);
      if (padded == null) {
        buf.getReferenceManager().retain();
        padded = buf;
      }
      buffers.add(padded);
    }
    for (FieldVector child : v.getChildrenFromFields()) {
      unloadRaw(child, nodes, buffers);
    }
  }

  /**
   * A bitmap of {@code v} (its validity, or a boolean column's values) with bits set past its last value, as
   * a copy with those bits zero (the caller closes it); null for any other buffer. A caller's slice of a
   * longer vector may carry the bits of the values after it (and Appender's concatenation of such a slice
   * carries them into the stage); zeroing them keeps the file the same bytes whichever way its rows came.
   */
  private ArrowBuf paddedBitmap(FieldVector v, ArrowBuf buf) {
    int n = v.getValueCount();
    long last = n / 8;
    if (n % 8 == 0 || buf.writerIndex() != last + 1
        || !(buf == v.getValidityBuffer() || v instanceof BitVector && buf == v.getDataBuffer())) {
      return null;
    }
    byte tail = buf.getByte(last);
    byte kept = (byte) (tail & ((1 << (n % 8)) - 1));
    if (tail == kept) {
      return null;
    }
    ArrowBuf copy = allocator.buffer(last + 1);
    copy.setBytes(0, buf, 0, last);
    copy.setByte(last, kept);
    copy.writerIndex(last + 1);
    return copy;
  }

  /** Adds each preorder field's buffer bytes (uncompressed file) to {@code fieldBytes}. */
  private static void measure(FieldVector v, int[] field, long[] fieldBytes) {
    int me = field[0]++;
    for (ArrowBuf buf : v.getFieldBuffers()) {
      fieldBytes[me] += buf.writerIndex();
    }
    for (FieldVector child : v.getChildrenFromFields()) {
      measure(child, field, fieldBytes);
    }
  }

  private void unload(FieldVector v, int[] field, List<ArrowFieldNode> nodes, List<Unloaded> out) {
    int me = field[0];
    boolean compressed = compressedFields[field[0]++];
    nodes.add(new ArrowFieldNode(v.getValueCount(), v.getNullCount()));
    for (ArrowBuf own : v.getFieldBuffers()) {
      ArrowBuf padded = paddedBitmap(v, own);
      out.add(new Unloaded(padded != null ? padded : own, padded != null, compressed, me));
    }
    for (FieldVector child : v.getChildrenFromFields()) {
      unload(child, field, nodes, out);
    }
  }

  /**
   * Compresses the compressed buffers of a batch: on the caller's thread alone, or, with more than one
   * {@link #threads}, on the caller's and up to {@code threads - 1} threads of {@link #POOL} taking the
   * buffers one by one (each with a ZSTD context of its own) until none is left. Returns when every buffer
   * is compressed; the first failure is rethrown then.
   */
  private void compressAll(List<Unloaded> unloaded) {
    List<Unloaded> jobs = new ArrayList<>();
    for (Unloaded u : unloaded) {
      if (u.compressed) {
        jobs.add(u);
      }
    }
    int helpers = Math.min(threads - 1, jobs.size() - 1);
    if (helpers <= 0) {
      for (Unloaded u : jobs) {
        u.packed = zstd.compress(allocator, u.source);
      }
      return;
    }
    Compression work = new Compression(jobs);
    for (int h = 0; h < helpers; h++) {
      if (helperZstd[h] == null) {
        helperZstd[h] =
            new ZstdFrames.Compressor(compression.level(), compression.frameBytes(), compression.minSavings());
      }
      ZstdFrames.Compressor ctx = helperZstd[h];
      try {
        POOL.execute(() -> work.run(ctx));
      } catch (RejectedExecutionException | OutOfMemoryError e) {
        break; // no thread to be had: the caller's thread compresses the rest
      }
    }
    work.run(zstd);
    work.await();
  }

  /**
   * The buffers of one batch being compressed by several threads. A helper that starts after the last buffer
   * was taken does nothing, so a batch never waits for a thread to start, only for the buffers taken.
   */
  private final class Compression {
    private final List<Unloaded> jobs;
    private final AtomicInteger next = new AtomicInteger();
    private final CountDownLatch done;
    private volatile Throwable failure;

    Compression(List<Unloaded> jobs) {
      this.jobs = jobs;
      this.done = new CountDownLatch(jobs.size());
    }

    void run(ZstdFrames.Compressor ctx) {
      int i;
      while ((i = next.getAndIncrement()) < jobs.size()) {
        try {
          if (failure == null) {
            Unloaded u = jobs.get(i);
            u.packed = ctx.compress(allocator, u.source);
          }
        } catch (Throwable e) {
          failure = e;
        } finally {
          done.countDown();
        }
      }
    }

    /** Waits for every buffer; rethrows the first failure. */
    void await() {
      boolean interrupted = false;
      while (true) {
        try {
          done.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true; // the helpers finish the buffers they took: wait for them all the same
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      Throwable e = failure;
      if (e instanceof RuntimeException r) {
        throw r;
      }
      if (e instanceof Error err) {
        throw err;
      }
      if (e != null) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** Per preorder field: compressed unless it belongs to a plain atomic column (struct ancestors are). */
  private static boolean[] compressedFields(SchemaLayout layout, FileCompression compression) {
    boolean[] compressed = new boolean[layout.fieldCount()];
    java.util.Arrays.fill(compressed, compression.codec() != FileCompression.Codec.NONE);
    for (int c = 0; c < layout.atomicField.length; c++) {
      int f = layout.atomicField[c];
      for (int i = f; i < layout.subtreeEnd[f]; i++) {
        compressed[i] = compression.compresses(c);
      }
    }
    return compressed;
  }

  /** An Arrow file writer that also writes record batches built elsewhere (the compressed ones). */
  private static final class BatchWriter extends ArrowFileWriter {
    BatchWriter(VectorSchemaRoot root, WritableByteChannel out, Map<String, String> metadata) {
      super(root, null, out, metadata, IpcOption.DEFAULT);
    }

    void write(ArrowRecordBatch batch) throws IOException {
      writeRecordBatch(batch);
    }
  }

  /** VectorAppender needs allocated (not merely cleared) targets: it reads the first offset. */
  private void allocateStage() {
    for (FieldVector v : stage.getFieldVectors()) {
      v.setInitialCapacity(Math.min(rowsPerBatch, 4096));
      v.allocateNew();
    }
    stage.setRowCount(0);
  }

  /** Flushes, writes the footer, publishes the object. */
  public WrittenFile finish() {
    ensureOpen();
    long size;
    try {
      if (stage.getRowCount() > 0) {
        flush();
      }
      // ArrowFileWriter keeps the map and writes it into the footer at end().
      footer.put(ZONE_STATS_KEY, io.quiver.internal.codec.StatsCodec.encodeZones(stats.zones()));
      String frameTable = frames.value();
      if (frameTable != null) {
        footer.put(FrameTable.KEY, frameTable);
      }
      arrow.end();
      size = out.position();
    } catch (IOException | RuntimeException e) {
      abort();
      throw failure("finishing", e);
    }
    try {
      out.close();
    } catch (IOException | RuntimeException e) {
      abort();
      throw failure("publishing", e);
    }
    state = State.FINISHED;
    release();
    return new WrittenFile(key, size, rowCount, FORMAT_MAJOR, formatMinor, stats.fileColumns());
  }

  /** Discards: the object is never published. Idempotent; does nothing after a successful finish. */
  public void abort() {
    if (state != State.OPEN) {
      return;
    }
    state = State.ABORTED;
    try {
      out.abort();
    } finally {
      release();
    }
  }

  /** Aborts if finish() was not called. Frees all Arrow memory. */
  @Override
  public void close() {
    abort();
  }

  /** Rows accepted so far. */
  public long rowCount() {
    return rowCount;
  }

  public Schema schema() {
    return schema;
  }

  private void release() {
    // The ArrowFileWriter is deliberately not closed: closing it would write a footer and close the
    // channel, which publishes the object. It holds no Arrow memory of its own.
    stage.close();
    allocator.close();
    if (zstd != null) {
      zstd.close();
    }
    for (ZstdFrames.Compressor helper : helperZstd) {
      if (helper != null) {
        helper.close();
      }
    }
  }

  private void ensureOpen() {
    if (state != State.OPEN) {
      throw new IllegalStateException(
          "data file writer for " + store.locationOf(key) + " is " + state.name().toLowerCase()
              + "; open a new writer");
    }
  }

  private QuiverException failure(String what, Exception e) {
    if (e instanceof QuiverException q) {
      return q;
    }
    return new StoreException(
        "failed " + what + " data file " + store.locationOf(key) + "; nothing was published: " + e, e);
  }

  private void checkSchema(Schema actual) {
    List<Field> want = schema.getFields();
    List<Field> got = actual.getFields();
    String problem = compare(want, got, "");
    if (problem != null) {
      throw new SchemaMismatchException(
          "batch does not match the schema of data file " + store.locationOf(key) + ": " + problem
              + "; convert the batch to the file schema " + schema);
    }
  }

  /**
   * First difference between two field lists (names, types, nullability, children), or null. Names of
   * list items and map entries/keys/values are positional in Arrow and often rewritten by libraries, so
   * they are not compared.
   */
  static String compare(List<Field> want, List<Field> got, String prefix) {
    return compare(want, got, prefix, true, false);
  }

  private static String compare(
      List<Field> want, List<Field> got, String prefix, boolean checkNames, boolean inMap) {
    for (int i = 0; i < Math.max(want.size(), got.size()); i++) {
      if (i >= got.size()) {
        return "field '" + prefix + want.get(i).getName() + "' is missing (expected " + want.size()
            + " fields" + (prefix.isEmpty() ? "" : " in " + prefix.substring(0, prefix.length() - 1))
            + ", found " + got.size() + ")";
      }
      Field g = got.get(i);
      if (i >= want.size()) {
        return "field '" + prefix + g.getName() + "' is unexpected (expected " + want.size()
            + " fields, found " + got.size() + ")";
      }
      Field w = want.get(i);
      String path = prefix + w.getName();
      if (checkNames && !w.getName().equals(g.getName())) {
        return "field " + i + (prefix.isEmpty() ? "" : " of " + prefix.substring(0, prefix.length() - 1))
            + " is named '" + g.getName() + "', expected '" + w.getName() + "'";
      }
      if (!w.getType().equals(g.getType())) {
        return "field '" + path + "' has type " + g.getType() + ", expected " + w.getType();
      }
      if (w.isNullable() != g.isNullable()) {
        return "field '" + path + "' is " + (g.isNullable() ? "nullable" : "not nullable") + ", expected "
            + (w.isNullable() ? "nullable" : "not nullable");
      }
      if (g.getDictionary() != null) {
        return "field '" + path + "' is dictionary-encoded; decode it first";
      }
      boolean isMap = w.getType().getTypeID() == ArrowTypeID.Map;
      boolean positional =
          switch (w.getType().getTypeID()) {
            case List, LargeList, FixedSizeList, Map -> true;
            default -> inMap; // the entries struct of a map: key and value
          };
      String child = compare(w.getChildren(), g.getChildren(), path + ".", !positional, isMap);
      if (child != null) {
        return child;
      }
    }
    return null;
  }
}
