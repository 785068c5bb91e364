package io.quiver.internal.file;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.UnsupportedFormatException;
import io.quiver.internal.codec.StatsCodec;
import io.quiver.manifest.ColumnStats;
import io.quiver.manifest.FileStats;
import io.quiver.store.ObjectStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.flatbuf.Block;
import org.apache.arrow.flatbuf.BodyCompression;
import org.apache.arrow.flatbuf.BodyCompressionMethod;
import org.apache.arrow.flatbuf.CompressionType;
import org.apache.arrow.flatbuf.Footer;
import org.apache.arrow.flatbuf.KeyValue;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.MetadataVersion;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.BufferLayout;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.ArrowType.ArrowTypeID;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Reads data files through ranged reads, fetching only the projected columns' buffers, so that reading
 * one column of a wide table costs that column's bytes plus the (cached) metadata. Thread-safe.
 *
 * <p>Every number taken from a file is checked against the file size before anything is allocated from
 * it, and loaded vectors are checked structurally (buffer sizes, offsets), so a truncated, bit-flipped or hostile file fails with {@link
 * CorruptFileException} naming it rather than with an Arrow exception or an {@link OutOfMemoryError}.
 * Flipped bytes inside data buffers can go unnoticed: Arrow IPC has no checksums.
 *
 * <p>Compressed record batch bodies (ZSTD or LZ4_FRAME, data-file format 1.1 or any Arrow writer's) are
 * decompressed buffer by buffer after the ranged reads, only for the projected columns; every declared
 * uncompressed length is bounded by what the batch can hold before anything is allocated ({@link
 * BodyDecompression}).
 */
public final class DataFileReader {
  /** Bytes read from the end of the file at once: usually the whole footer and the last batches' metadata. */
  static final int TAIL_READ_BYTES = 64 * 1024;
  /** Limits that no sane file reaches; beyond them a length is treated as corruption, not allocated. */
  static final int MAX_FOOTER_BYTES = 64 << 20;
  static final int MAX_BATCH_METADATA_BYTES = 64 << 20;
  static final long MAX_TOTAL_METADATA_BYTES = 256L << 20;
  private static final int MAX_SCHEMA_FIELDS = 1_000_000;
  private static final int MAX_READ_CHUNK = 1 << 30;
  /** Coalescing never builds a single read larger than this out of separate buffers. */
  private static final long MAX_MERGED_DATA_RANGE = 256L << 20;
  private static final byte[] MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);
  /** Leading magic padded to 8 bytes, plus trailing int32 footer length and magic. */
  private static final int MIN_FILE_BYTES = 8 + 4 + MAGIC.length;

  private final ObjectStore store;
  private final MetadataCache cache;
  private final ReadOptions options;

  public DataFileReader(ObjectStore store, MetadataCache cache, ReadOptions options) {
    if (store == null || cache == null || options == null) {
      throw new InvalidArgumentException("store, cache and options must not be null");
    }
    this.store = store;
    this.cache = cache;
    this.options = options;
  }

  /** The tuning this reader was built with (scans plan their fetches with it). */
  public ReadOptions options() {
    return options;
  }

  /**
   * The file's metadata, cached under {@code store.locationOf(key)}: footer, schema, batch blocks and row
   * counts, and the layouts of the batches whose messages lie in the tail read; the other batches' layouts
   * are loaded when needed ({@link #loadBatches}), unless the file has no usable zone statistics, in which
   * case every batch is loaded here. Corrupt, truncated or hostile files throw {@link CorruptFileException}
   * naming {@code store.locationOf(key)} (here, or for a batch's message when that batch is loaded); a file
   * written by a newer Quiver format major version throws {@link UnsupportedFormatException}.
   */
  public DataFileMetadata metadata(String key) {
    String location = store.locationOf(key);
    return cache.get(location, loc -> new Parser(key, loc).parse());
  }

  /**
   * The file's metadata with the layouts of {@code batches} (any order, repeats allowed) loaded: the
   * messages of those not loaded yet are fetched through this reader's store in one coalesced pass
   * (nearby messages merged as {@link ReadOptions#coalesceGapBytes()} allows) and checked. Readers call it
   * with the batches they are about to read, so that batches they skip are never fetched.
   *
   * @throws InvalidArgumentException if a batch does not exist
   * @throws CorruptFileException if a batch's message is damaged or hostile, or gives another row count
   *     than the footer's zone statistics
   */
  public DataFileMetadata loadBatches(String key, int... batches) {
    DataFileMetadata md = metadata(key);
    load(key, md, batches);
    return md;
  }

  /** The file's metadata with every batch's layout loaded (in one coalesced pass): for whole-file reads. */
  public DataFileMetadata loadAllBatches(String key) {
    DataFileMetadata md = metadata(key);
    int[] all = new int[md.batchCount()];
    for (int b = 0; b < all.length; b++) {
      all[b] = b;
    }
    load(key, md, all);
    return md;
  }

  /** Loads the layouts of those of {@code batches} that are missing, through this reader's store. */
  private void load(String key, DataFileMetadata md, int[] batches) {
    int[] missing = md.unloaded(batches);
    if (missing == null) {
      return;
    }
    Arrays.sort(missing);
    String location = md.location();
    List<long[]> blocks = new ArrayList<>(missing.length);
    for (int b : missing) {
      blocks.add(new long[] {md.metadataOffset(b), md.metadataLength(b)});
    }
    ByteBuffer[] messages = fetchMessages(store, key, location, blocks, options.coalesceGapBytes(), null, 0);
    boolean grew = false;
    for (int i = 0; i < missing.length; i++) {
      int b = missing[i];
      DataFileMetadata.BatchLayout loaded = parseBatch(location, b, messages[i], md.bodyLength(b), md.layout());
      if (loaded.rows() != md.batchRowCount(b)) {
        throw new CorruptFileException(
            location,
            "record batch " + b + " holds " + loaded.rows() + " rows but the footer's zone statistics say "
                + md.batchRowCount(b) + "; the file is damaged, rewrite it");
      }
      grew |= md.install(b, loaded);
    }
    if (grew) {
      cache.reweigh(location, md);
    }
  }

  /**
   * The messages of {@code blocks} ({offset, length} each, within the file), in the given order: from
   * {@code tail} (the file's bytes from {@code tailStart}, or null) when it holds them, else fetched with
   * one read per coalesced run.
   */
  private static ByteBuffer[] fetchMessages(
      ObjectStore store, String key, String location, List<long[]> blocks, int gap, byte[] tail, long tailStart) {
    List<long[]> outside = new ArrayList<>();
    for (long[] b : blocks) {
      if (tail == null || b[0] < tailStart) {
        outside.add(b);
      }
    }
    long[][] ranges = coalesce(outside, gap, MAX_BATCH_METADATA_BYTES);
    byte[][] rangeBytes = new byte[ranges.length][];
    for (int r = 0; r < ranges.length; r++) {
      rangeBytes[r] = readExact(store, key, location, ranges[r][0], (int) (ranges[r][1] - ranges[r][0]));
    }
    ByteBuffer[] out = new ByteBuffer[blocks.size()];
    for (int i = 0; i < out.length; i++) {
      long offset = blocks.get(i)[0];
      int length = (int) blocks.get(i)[1];
      ByteBuffer meta;
      if (tail != null && offset >= tailStart) {
        meta = ByteBuffer.wrap(tail, (int) (offset - tailStart), length).slice();
      } else {
        int r = containing(ranges, offset);
        meta = ByteBuffer.wrap(rangeBytes[r], (int) (offset - ranges[r][0]), length).slice();
      }
      out[i] = meta.order(ByteOrder.LITTLE_ENDIAN);
    }
    return out;
  }

  /**
   * One record batch with only the given atomic columns (ascending, distinct indices; else {@link
   * InvalidArgumentException}). The result's schema is the file schema projected to those columns: struct
   * ancestors kept with only their projected descendants, in schema order. The caller owns (closes) the
   * returned root. An empty projection gives a root with 0 columns and the batch's row count.
   */
  public VectorSchemaRoot readBatch(String key, int batch, int[] atomicColumns, BufferAllocator allocator) {
    return readBatch(key, batch, atomicColumns, allocator, null, -1);
  }

  /**
   * Like {@link #readBatch(String, int, int[], BufferAllocator)}, taking the bytes from read {@code read} of
   * {@code prefetch} (planned with {@link #wantedBuffers} of the same batch and columns) instead of fetching
   * them; a null {@code prefetch} fetches them here.
   */
  public VectorSchemaRoot readBatch(
      String key, int batch, int[] atomicColumns, BufferAllocator allocator, Prefetch prefetch, int read) {
    if (allocator == null) {
      throw new InvalidArgumentException("allocator must not be null");
    }
    DataFileMetadata md = metadata(key);
    md.checkBatch(batch);
    boolean[] selected = md.selectFields(atomicColumns);
    Schema projected = md.projectedSchema(selected);
    int rows = md.batchRowCount(batch);
    if (atomicColumns.length == 0) {
      return new VectorSchemaRoot(projected, List.of(), rows);
    }
    load(key, md, new int[] {batch});
    SchemaLayout layout = md.layout();
    List<ArrowFieldNode> nodes = new ArrayList<>();
    for (int f = 0; f < selected.length; f++) {
      if (selected[f]) {
        nodes.add(new ArrowFieldNode(md.nodeLength(batch, f), md.nodeNullCount(batch, f)));
      }
    }
    List<long[]> wanted = wanted(md, batch, selected); // absolute offset, length, per selected buffer in order
    String location = md.location();
    List<ArrowBuf> owned = new ArrayList<>(); // fetched (or copied) here: closed once loaded
    List<ArrowBuf> buffers;
    List<ArrowBuf> decompressed = new ArrayList<>();
    VectorSchemaRoot root = null;
    try {
      if (prefetch != null) {
        buffers = prefetch.buffers(read, wanted.stream().map(w -> w[1]).toList(), allocator, owned);
      } else {
        buffers = fetchAll(key, location, wanted, allocator, owned);
      }
      byte codec = md.codec(batch);
      if (codec != BodyDecompression.NONE) {
        BodyDecompression.decompressAll(codec, layout, selected, nodes, buffers, allocator, decompressed,
            BodyDecompression.Where.batch(location, batch));
      }
      String problem = checkBuffers(layout, selected, nodes, buffers);
      if (problem != null) {
        throw new CorruptFileException(
            location, "batch " + batch + " has inconsistent buffers (" + problem + "); rewrite the file");
      }
      root = VectorSchemaRoot.create(projected, allocator);
      try (ArrowRecordBatch recordBatch = new ArrowRecordBatch(rows, nodes, buffers)) {
        new VectorLoader(root).load(recordBatch);
      }
      VectorSchemaRoot result = root;
      root = null;
      return result;
    } catch (QuiverException | OutOfMemoryException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CorruptFileException(
          location,
          "batch " + batch + " does not decode as its metadata describes (" + e.getMessage()
              + "); the file is damaged, rewrite it from its source",
          e);
    } finally {
      owned.forEach(ArrowBuf::close);
      decompressed.forEach(ArrowBuf::close);
      if (root != null) {
        root.close();
      }
    }
  }

  /**
   * The byte ranges ({@code {offset, length}}, offsets from the start of the file) that {@link #readBatch}
   * fetches for one batch and these atomic columns, in the order it takes them: what a {@link FetchPlan}
   * plans for that read.
   */
  public List<long[]> wantedBuffers(String key, int batch, int[] atomicColumns) {
    DataFileMetadata md = metadata(key);
    md.checkBatch(batch);
    if (atomicColumns.length == 0) {
      return List.of();
    }
    boolean[] selected = md.selectFields(atomicColumns);
    load(key, md, new int[] {batch});
    return wanted(md, batch, selected);
  }

  private static List<long[]> wanted(DataFileMetadata md, int batch, boolean[] selected) {
    SchemaLayout layout = md.layout();
    List<long[]> wanted = new ArrayList<>();
    long body = md.bodyOffset(batch);
    for (int f = 0; f < selected.length; f++) {
      if (!selected[f]) {
        continue;
      }
      for (int k = 0; k < layout.bufferCount[f]; k++) {
        int b = layout.bufferStart[f] + k;
        wanted.add(new long[] {body + md.bufferOffset(batch, b), md.bufferLength(batch, b)});
      }
    }
    return wanted;
  }

  /** One batch's wanted buffers fetched here: one request per coalesced run, sliced per buffer. */
  private List<ArrowBuf> fetchAll(
      String key, String location, List<long[]> wanted, BufferAllocator allocator, List<ArrowBuf> owned) {
    long[][] ranges = coalesce(wanted, options.coalesceGapBytes(), MAX_MERGED_DATA_RANGE);
    ArrowBuf[] fetched = new ArrowBuf[ranges.length];
    for (int r = 0; r < ranges.length; r++) {
      fetched[r] = fetch(key, location, ranges[r][0], ranges[r][1] - ranges[r][0], allocator);
      owned.add(fetched[r]);
    }
    List<ArrowBuf> buffers = new ArrayList<>(wanted.size());
    for (long[] w : wanted) {
      if (w[1] == 0) {
        buffers.add(allocator.getEmpty());
        continue;
      }
      int r = containing(ranges, w[0]);
      buffers.add(fetched[r].slice(w[0] - ranges[r][0], w[1]));
    }
    return buffers;
  }

  /**
   * The validity of the struct that is the ancestor at {@code depth} (0 = a top-level field) of atomic
   * column {@code atomicColumn}, in one record batch: one ranged read of that struct's validity buffer
   * (none when the batch metadata says it has no nulls, or only nulls), never the members' values.
   *
   * @throws InvalidArgumentException if the column index is out of range, or the column has no struct
   *     ancestor at that depth
   * @throws CorruptFileException if the buffer is shorter than the batch's rows need
   */
  public StructValidityBits readStructValidity(String key, int batch, int atomicColumn, int depth) {
    return readStructValidity(key, batch, atomicColumn, depth, null, -1);
  }

  /**
   * Like {@link #readStructValidity(String, int, int, int)}, taking the bytes from read {@code read} of
   * {@code prefetch} (planned with {@link #structValidityRange} of the same arguments); a null {@code
   * prefetch} fetches them here.
   */
  public StructValidityBits readStructValidity(
      String key, int batch, int atomicColumn, int depth, Prefetch prefetch, int read) {
    DataFileMetadata md = loadBatches(key, batch);
    ValidityBuffer v = validityBuffer(md, batch, atomicColumn, depth);
    SchemaLayout layout = md.layout();
    if (v.fetch() == null) {
      return new StructValidityBits((int) v.length(), v.nulls(), null);
    }
    long[] range = v.fetch();
    byte[] raw = range[1] == 0 ? new byte[0]
        : prefetch != null ? prefetch.bytes(read, 0, (int) range[1])
        : readExact(store, key, md.location(), range[0], (int) range[1]);
    long need = (v.length() + 7) / 8;
    byte codec = md.codec(batch);
    byte[] bits;
    if (codec == BodyDecompression.NONE) {
      bits = raw;
    } else {
      BufferLayout validity = BufferLayout.validityVector();
      bits = raw.length == 0 ? new byte[0] : BodyDecompression.decompress(codec, raw,
          BodyDecompression.bound(validity, v.length(), -1),
          BodyDecompression.Where.batch(md.location(), batch)
              .buffer(v.buffer(), layout.path(v.node()), BufferLayout.BufferType.VALIDITY));
    }
    if (bits.length < need) {
      throw new CorruptFileException(
          md.location(),
          "batch " + batch + " struct '" + layout.path(v.node()) + "' has a validity buffer of "
              + (codec == BodyDecompression.NONE ? v.bytes() : bits.length) + " bytes for " + v.length()
              + " rows with " + v.nulls() + " nulls (" + need + " needed); rewrite the file");
    }
    return new StructValidityBits((int) v.length(), v.nulls(), bits);
  }

  /**
   * The byte range ({@code {offset, length}}) {@link #readStructValidity} fetches for these arguments, or
   * an empty list when it fetches nothing (no nulls, only nulls, or no rows).
   */
  public List<long[]> structValidityRange(String key, int batch, int atomicColumn, int depth) {
    long[] fetch = validityBuffer(loadBatches(key, batch), batch, atomicColumn, depth).fetch();
    return fetch == null || fetch[1] == 0 ? List.of() : List.<long[]>of(fetch);
  }

  /** Where a struct's validity is in one batch; {@code fetch} is the range to read, null when none is. */
  private record ValidityBuffer(int node, int buffer, long length, long nulls, long bytes, long[] fetch) {}

  private static ValidityBuffer validityBuffer(DataFileMetadata md, int batch, int atomicColumn, int depth) {
    md.checkBatch(batch);
    SchemaLayout layout = md.layout();
    int node = structAncestor(md, atomicColumn, depth);
    long length = md.nodeLength(batch, node);
    long nulls = md.nodeNullCount(batch, node);
    int buffer = layout.bufferStart[node]; // a struct's only buffer is its validity
    long bytes = md.bufferLength(batch, buffer);
    if (nulls == 0 || nulls == length || length == 0) {
      return new ValidityBuffer(node, buffer, length, nulls, bytes, null);
    }
    long need = (length + 7) / 8;
    long offset = md.bodyOffset(batch) + md.bufferOffset(batch, buffer);
    long fetch;
    if (md.codec(batch) == BodyDecompression.NONE) {
      fetch = bytes < need ? 0 : need;
    } else {
      fetch = bytes;
    }
    return new ValidityBuffer(node, buffer, length, nulls, bytes, new long[] {offset, fetch});
  }

  /**
   * The preorder field index of the struct that is the ancestor at {@code depth} of atomic column {@code
   * atomicColumn}.
   *
   * @throws InvalidArgumentException if the column does not exist or has no struct ancestor at that depth
   */
  static int structAncestor(DataFileMetadata md, int atomicColumn, int depth) {
    SchemaLayout layout = md.layout();
    if (atomicColumn < 0 || atomicColumn >= layout.atomicField.length) {
      throw new InvalidArgumentException(
          "atomic column " + atomicColumn + " of " + md.location() + " does not exist; the file has "
              + layout.atomicField.length + " atomic columns");
    }
    int node = layout.atomicField[atomicColumn];
    while (node >= 0 && layout.depth[node] > depth) {
      node = layout.parent[node];
    }
    if (node < 0 || layout.depth[node] != depth || !SchemaLayout.isStruct(layout.fields[node])
        || node == layout.atomicField[atomicColumn]) {
      throw new InvalidArgumentException(
          "atomic column " + atomicColumn + " ('" + layout.atomicPath[atomicColumn] + "') of " + md.location()
              + " has no struct ancestor at depth " + depth);
    }
    return node;
  }

  /**
   * Checks fetched buffers against their nodes before Arrow sees them: buffers large enough for the
   * value count, offsets non-decreasing and inside their values. Arrow trusts these when loading (a list's
   * last offset becomes its child's value count, and it reallocates to fit), so a hostile file must be
   * stopped here. Values themselves (decimal precision, UTF-8) are not checked: they cannot make Arrow
   * read out of bounds. Returns null when sound, else what is wrong.
   */
  static String checkBuffers(
      SchemaLayout layout, boolean[] selected, List<ArrowFieldNode> nodes, List<ArrowBuf> buffers) {
    int node = 0;
    int buffer = 0;
    for (int f = 0; f < selected.length; f++) {
      if (!selected[f]) {
        continue;
      }
      ArrowType type = layout.fields[f].getType();
      long len = nodes.get(node).getLength();
      long nulls = nodes.get(node).getNullCount();
      String path = layout.path(f);
      long lastOffset = -1;
      List<BufferLayout> bufferLayouts = TypeLayout.getTypeLayout(type).getBufferLayouts();
      for (BufferLayout bl : bufferLayouts) {
        ArrowBuf buf = buffers.get(buffer++);
        long have = buf.capacity();
        BufferLayout.BufferType kind = bl.getType();
        if (kind == BufferLayout.BufferType.VALIDITY) {
          if (nulls > 0 && nulls < len && have < (len + 7) / 8) {
            return path + ": validity buffer of " + have + " bytes for " + len + " values";
          }
        } else if (kind == BufferLayout.BufferType.OFFSET) {
          int width = bl.getTypeBitWidth() / 8;
          if (len == 0) {
            lastOffset = 0;
            continue;
          }
          if (have < (len + 1) * width) {
            return path + ": offset buffer of " + have + " bytes for " + len + " values";
          }
          long previous = width == 4 ? buf.getInt(0) : buf.getLong(0);
          if (previous < 0) {
            return path + ": first offset is " + previous;
          }
          for (long i = 1; i <= len; i++) {
            long current = width == 4 ? buf.getInt(i * 4) : buf.getLong(i * 8);
            if (current < previous) {
              return path + ": offsets decrease at index " + i + " (" + previous + " then " + current + ")";
            }
            previous = current;
          }
          lastOffset = previous;
        } else if (kind == BufferLayout.BufferType.DATA) {
          long need = lastOffset >= 0 ? lastOffset : (len * bl.getTypeBitWidth() + 7) / 8;
          if (have < need) {
            return path + ": data buffer of " + have + " bytes, " + need + " needed for " + len + " values";
          }
          lastOffset = -1;
        } else {
          return path + ": unexpected buffer type " + kind;
        }
      }
      if (lastOffset >= 0) { // list, large list, map: offsets index the child (next in preorder)
        long childLength = nodes.get(node + 1).getLength();
        if (lastOffset > childLength) {
          return path + ": last offset " + lastOffset + " is past its " + childLength + " child values";
        }
      }
      node++;
    }
    return null;
  }

  /**
   * Merges [offset, offset+length) ranges whose gaps are at most {@code gap}, as long as the merged range
   * stays within {@code maxMerged} bytes (overlapping ranges always merge; a range that is larger on its
   * own is kept whole); empty ranges
   * are dropped. Returns [start, end) pairs in ascending order.
   */
  static long[][] coalesce(List<long[]> wanted, int gap, long maxMerged) {
    long[][] sorted =
        wanted.stream().filter(w -> w[1] > 0).map(w -> new long[] {w[0], w[0] + w[1]}).toArray(long[][]::new);
    Arrays.sort(sorted, (a, b) -> Long.compare(a[0], b[0]));
    List<long[]> merged = new ArrayList<>();
    for (long[] r : sorted) {
      long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
      boolean overlaps = last != null && r[0] < last[1]; // must merge: a buffer lives in one range
      if (overlaps
          || (last != null && r[0] - last[1] <= gap && Math.max(last[1], r[1]) - last[0] <= maxMerged)) {
        last[1] = Math.max(last[1], r[1]);
      } else {
        merged.add(new long[] {r[0], r[1]});
      }
    }
    return merged.toArray(new long[0][]);
  }

  private static int containing(long[][] ranges, long offset) {
    int lo = 0;
    int hi = ranges.length - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (ranges[mid][0] <= offset) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** Reads a byte range into a new ArrowBuf; the range was validated against the file size. */
  private ArrowBuf fetch(String key, String location, long offset, long length, BufferAllocator allocator) {
    ArrowBuf buf = allocator.buffer(length);
    try {
      long done = 0;
      while (done < length) {
        int chunk = (int) Math.min(MAX_READ_CHUNK, length - done);
        int read = store.readRangeInto(key, offset + done, buf.nioBuffer(done, chunk));
        if (read != chunk) {
          throw shortRead(location, offset + done, chunk, read);
        }
        done += chunk;
      }
      return buf;
    } catch (RuntimeException e) {
      buf.close();
      throw e;
    }
  }

  static byte[] readExact(ObjectStore store, String key, String location, long offset, int length) {
    byte[] bytes = store.readRange(key, offset, length);
    if (bytes.length != length) {
      throw shortRead(location, offset, length, bytes.length);
    }
    return bytes;
  }

  static CorruptFileException shortRead(String location, long offset, int expected, int found) {
    return new CorruptFileException(
        location,
        "expected " + expected + " bytes at offset " + offset + " but the object returned " + found
            + "; it is shorter than its metadata says (truncated or replaced); rewrite it");
  }

  /** Parses one file's metadata; a new instance per load. */
  private final class Parser {
    private final String key;
    private final String location;
    private long size;
    private long tailStart;
    private byte[] tail;

    Parser(String key, String location) {
      this.key = key;
      this.location = location;
    }

    private CorruptFileException corrupt(String detail) {
      return new CorruptFileException(location, detail);
    }

    DataFileMetadata parse() {
      size = store.head(key).orElseThrow(() -> new ObjectNotFoundException(location)).size();
      if (size < MIN_FILE_BYTES) {
        throw corrupt(
            "it is " + size + " bytes long, shorter than the smallest Arrow IPC file (" + MIN_FILE_BYTES
                + " bytes); it is not a data file or was truncated");
      }
      int tailLen = (int) Math.min(size, TAIL_READ_BYTES);
      tailStart = size - tailLen;
      tail = readExact(store, key, location, tailStart, tailLen);
      if (!hasMagic(tail, tailLen - MAGIC.length)) {
        throw corrupt(
            "expected the Arrow IPC file magic \"ARROW1\" in the last 6 bytes, found "
                + describe(tail, tailLen - MAGIC.length, MAGIC.length)
                + "; it is not an Arrow IPC file (an IPC stream, Parquet, ...) or was truncated");
      }
      if (tailStart == 0 && !hasMagic(tail, 0)) {
        throw corrupt(
            "expected the Arrow IPC file magic \"ARROW1\" in the first 6 bytes, found "
                + describe(tail, 0, MAGIC.length));
      }
      int footerLen = ByteBuffer.wrap(tail).order(ByteOrder.LITTLE_ENDIAN).getInt(tailLen - 10);
      long footerStart = size - 10 - (long) footerLen;
      if (footerLen <= 0 || footerLen > MAX_FOOTER_BYTES || footerStart < 8) {
        throw corrupt(
            "footer length " + footerLen + " is impossible for a file of " + size
                + " bytes (expected 1.." + Math.min(MAX_FOOTER_BYTES, size - 18) + ")");
      }
      ByteBuffer footerBytes = bytesAt(footerStart, footerLen);
      Footer footer;
      Schema schema;
      int formatMajor = 0;
      int formatMinor = 0;
      String zoneStats = null;
      String frames = null;
      long[][] blocks;
      try {
        footer = Footer.getRootAsFooter(footerBytes);
        org.apache.arrow.flatbuf.Schema fbSchema = footer.schema();
        if (fbSchema == null) {
          throw corrupt("the footer holds no schema");
        }
        if (fbSchema.endianness() != org.apache.arrow.flatbuf.Endianness.Little) {
          throw corrupt("the file is big-endian; only little-endian Arrow files are supported");
        }
        int[] budget = {Math.min(MAX_SCHEMA_FIELDS, footerLen / 4 + 1)};
        for (int i = 0; i < fbSchema.fieldsLength(); i++) {
          prewalk(fbSchema.fields(i), 0, budget);
        }
        if (footer.dictionariesLength() != 0) {
          throw corrupt(
              "the file has " + footer.dictionariesLength()
                  + " dictionary batches; data files hold no dictionaries");
        }
        schema = Schema.convertSchema(fbSchema);
        for (int i = 0; i < footer.customMetadataLength(); i++) {
          KeyValue kv = footer.customMetadata(i);
          if (kv != null && DataFileWriter.VERSION_KEY.equals(kv.key())) {
            int[] version = parseVersion(kv.value());
            formatMajor = version[0];
            formatMinor = version[1];
          } else if (kv != null && DataFileWriter.ZONE_STATS_KEY.equals(kv.key())) {
            zoneStats = kv.value();
          } else if (kv != null && FrameTable.KEY.equals(kv.key())) {
            frames = kv.value();
          }
        }
        int n = footer.recordBatchesLength();
        if (n < 0 || (long) n * 24 > footerLen) {
          throw corrupt("the footer claims " + n + " record batches but is only " + footerLen + " bytes");
        }
        blocks = new long[n][];
        Block block = new Block();
        for (int i = 0; i < n; i++) {
          footer.recordBatches(block, i);
          blocks[i] = new long[] {block.offset(), block.metaDataLength(), block.bodyLength()};
        }
      } catch (QuiverException e) {
        throw e;
      } catch (RuntimeException | StackOverflowError e) {
        throw new CorruptFileException(
            location, "the footer does not decode as an Arrow footer (" + e + "); rewrite the file", e);
      }
      if (formatMajor > DataFileWriter.FORMAT_MAJOR) {
        throw new UnsupportedFormatException(
            "data file " + location + " has format version " + formatMajor + "." + formatMinor
                + " but this Quiver reads up to " + DataFileWriter.FORMAT_MAJOR + ".x; upgrade Quiver");
      }
      String unsupported = SchemaLayout.firstUnsupported(schema);
      if (unsupported != null) {
        throw corrupt("unsupported content: " + unsupported);
      }
      SchemaLayout layout = new SchemaLayout(schema);
      checkBlocks(blocks, footerStart);
      return readBatches(schema, layout, blocks, formatMajor, formatMinor, zoneStats, frames);
    }

    private int[] parseVersion(String value) {
      try {
        String[] parts = value.split("\\.", -1);
        if (parts.length != 2) {
          throw new NumberFormatException(value);
        }
        return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
      } catch (RuntimeException e) {
        throw corrupt(
            "footer metadata " + DataFileWriter.VERSION_KEY + " is '" + value + "', expected major.minor");
      }
    }

    /** Bounds the work convertSchema will do: depth and field count, cycles included. */
    private void prewalk(org.apache.arrow.flatbuf.Field field, int depth, int[] budget) {
      if (field == null) {
        throw corrupt("the schema has a missing field entry");
      }
      if (depth > SchemaLayout.MAX_DEPTH) {
        throw corrupt("the schema nests deeper than " + SchemaLayout.MAX_DEPTH + " levels");
      }
      if (--budget[0] < 0) {
        throw corrupt("the schema has more fields than its footer can hold");
      }
      for (int i = 0; i < field.childrenLength(); i++) {
        prewalk(field.children(i), depth + 1, budget);
      }
    }

    private void checkBlocks(long[][] blocks, long footerStart) {
      long previousEnd = 8;
      long totalMetadata = 0;
      for (int i = 0; i < blocks.length; i++) {
        long offset = blocks[i][0];
        long metaLen = blocks[i][1];
        long bodyLen = blocks[i][2];
        if (offset < previousEnd
            || metaLen < 8
            || metaLen > MAX_BATCH_METADATA_BYTES
            || bodyLen < 0
            || offset > footerStart
            || metaLen > footerStart - offset
            || bodyLen > footerStart - offset - metaLen) {
          throw corrupt(
              "record batch " + i + " is described as " + metaLen + " metadata bytes and " + bodyLen
                  + " body bytes at offset " + offset + ", which does not fit between offset "
                  + previousEnd + " and the footer at " + footerStart);
        }
        totalMetadata += metaLen;
        if (totalMetadata > MAX_TOTAL_METADATA_BYTES) {
          throw corrupt("record batch metadata exceeds " + MAX_TOTAL_METADATA_BYTES + " bytes");
        }
        previousEnd = offset + metaLen + bodyLen;
      }
    }

    /**
     * The metadata with the batches loaded that must or can be loaded now: every batch when the zone
     * statistics cannot give the row counts, else those whose messages the tail holds (free).
     */
    private DataFileMetadata readBatches(Schema schema, SchemaLayout layout, long[][] blocks, int formatMajor,
        int formatMinor, String zoneStats, String frames) {
      int n = blocks.length;
      List<FileStats> zones = n == 0 ? null : rowCountsFrom(zoneStats, layout, blocks);
      List<Integer> now = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        if (zones == null || blocks[i][0] >= tailStart) {
          now.add(i);
        }
      }
      List<long[]> wanted = new ArrayList<>(now.size());
      for (int i : now) {
        wanted.add(new long[] {blocks[i][0], blocks[i][1]});
      }
      ByteBuffer[] messages = fetchMessages(store, key, location, wanted, options.coalesceGapBytes(), tail, tailStart);
      DataFileMetadata.BatchLayout[] loaded = new DataFileMetadata.BatchLayout[n];
      int[] rows = new int[n];
      for (int k = 0; k < now.size(); k++) {
        int i = now.get(k);
        loaded[i] = parseBatch(location, i, messages[k], blocks[i][2], layout);
        if (zones != null && loaded[i].rows() != zones.get(i).rowCount()) {
          throw corrupt(
              "record batch " + i + " holds " + loaded[i].rows() + " rows but the footer's zone statistics say "
                  + zones.get(i).rowCount() + "; the file is damaged, rewrite it");
        }
      }
      for (int i = 0; i < n; i++) {
        rows[i] = zones == null ? loaded[i].rows() : (int) zones.get(i).rowCount();
      }
      DataFileMetadata.BatchLoader loader = (md, batches) -> load(key, md, batches);
      return new DataFileMetadata(location, schema, layout, size, formatMajor, formatMinor, blocks, rows, loaded,
          loader, zoneStats, zones, frames);
    }

    /**
     * The zone statistics when they can stand in for the batches' row counts until each batch is loaded
     * (then checked against its message): they decode, list every batch and only columns the file has, and
     * give each batch a row count its body could hold. Else null: every batch is loaded now, and the
     * statistics are judged against the loaded row counts on first use, as always.
     */
    private List<FileStats> rowCountsFrom(String zoneStats, SchemaLayout layout, long[][] blocks) {
      List<FileStats> zones = StatsCodec.decodeZones(zoneStats).orElse(null);
      if (zones == null || zones.size() != blocks.length) {
        return null;
      }
      for (int i = 0; i < blocks.length; i++) {
        FileStats zone = zones.get(i);
        long backed = (blocks[i][2] + 64) * BodyDecompression.MAX_EXPANSION;
        if (zone.rowCount() > Integer.MAX_VALUE || (zone.rowCount() + 7) / 8 > backed) {
          return null;
        }
        for (ColumnStats c : zone.columns()) {
          if (c.fieldId() < 0 || c.fieldId() >= layout.atomicField.length) {
            return null;
          }
        }
      }
      return zones;
    }

    /**
     * Bytes [offset, offset+length) of the file (length reaching into the tail), from the tail; when they start
     * before it, only the part before the tail is fetched and the tail is extended to start at {@code offset}.
     */
    private ByteBuffer bytesAt(long offset, int length) {
      if (offset < tailStart) {
        byte[] prefix = readExact(store, key, location, offset, (int) (tailStart - offset));
        byte[] extended = Arrays.copyOf(prefix, prefix.length + tail.length);
        System.arraycopy(tail, 0, extended, prefix.length, tail.length);
        tail = extended;
        tailStart = offset;
      }
      return ByteBuffer.wrap(tail, (int) (offset - tailStart), length).slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    private boolean hasMagic(byte[] bytes, int at) {
      return Arrays.equals(bytes, at, at + MAGIC.length, MAGIC, 0, MAGIC.length);
    }

    private String describe(byte[] bytes, int at, int len) {
      StringBuilder sb = new StringBuilder("0x");
      for (int i = at; i < at + len; i++) {
        sb.append(String.format("%02x", bytes[i]));
      }
      return sb.toString();
    }
  }

  /** Decodes one block's RecordBatch message into its layout, checking every number. */
  static DataFileMetadata.BatchLayout parseBatch(
    String location, int index, ByteBuffer meta, long bodyLen, SchemaLayout layout) {
    long[] nodes = new long[2 * layout.fieldCount()];
    long[] buffers = new long[2 * layout.totalBuffers];
    String what = "record batch " + index;
    long length;
    byte codec = BodyDecompression.NONE;
    try {
      int first = meta.getInt(0);
      int prefix = first == -1 ? 8 : 4;
      int fbLen = first == -1 ? meta.getInt(4) : first;
      if (fbLen <= 0 || fbLen > meta.limit() - prefix) {
        throw corrupt(location, 
            what + " metadata claims " + fbLen + " bytes but its block holds " + (meta.limit() - prefix));
      }
      ByteBuffer fb = meta.position(prefix).slice().limit(fbLen).slice().order(ByteOrder.LITTLE_ENDIAN);
      Message message = Message.getRootAsMessage(fb);
      if (message.version() < MetadataVersion.V4) {
        throw corrupt(location, what + " uses metadata version " + message.version() + "; V4 or V5 is required");
      }
      if (message.headerType() != MessageHeader.RecordBatch) {
        throw corrupt(location, 
            what + " is a " + MessageHeader.name(message.headerType() & 0xFF)
                + " message, expected RecordBatch");
      }
      if (message.bodyLength() != bodyLen) {
        throw corrupt(location, 
            what + " message says its body is " + message.bodyLength() + " bytes, the footer says "
                + bodyLen);
      }
      RecordBatch rb = (RecordBatch) message.header(new RecordBatch());
      if (rb == null) {
        throw corrupt(location, what + " has no RecordBatch header");
      }
      BodyCompression compression = rb.compression();
      if (compression != null) {
        if (compression.method() != BodyCompressionMethod.BUFFER) {
          throw corrupt(location, what + " uses body compression method " + compression.method()
              + "; Arrow defines only BUFFER (0)");
        }
        codec = compression.codec();
        if (codec != CompressionType.ZSTD && codec != CompressionType.LZ4_FRAME) {
          throw corrupt(location, what + " is compressed with codec " + codec + "; readers know ZSTD (1) and LZ4_FRAME (0)");
        }
      }
      if (rb.variadicBufferCountsLength() != 0) {
        throw corrupt(location, what + " has variadic buffers (view types), which data files do not support");
      }
      length = rb.length();
      if (length < 0 || length > Integer.MAX_VALUE) {
        throw corrupt(location, what + " claims " + length + " rows; expected 0.." + Integer.MAX_VALUE);
      }
      if (rb.nodesLength() != layout.fieldCount() || rb.buffersLength() != layout.totalBuffers) {
        throw corrupt(location, 
            what + " has " + rb.nodesLength() + " field nodes and " + rb.buffersLength()
                + " buffers; the schema needs " + layout.fieldCount() + " and " + layout.totalBuffers);
      }
      org.apache.arrow.flatbuf.FieldNode node = new org.apache.arrow.flatbuf.FieldNode();
      for (int f = 0; f < layout.fieldCount(); f++) {
        rb.nodes(node, f);
        nodes[2 * f] = node.length();
        nodes[2 * f + 1] = node.nullCount();
      }
      org.apache.arrow.flatbuf.Buffer buffer = new org.apache.arrow.flatbuf.Buffer();
      for (int b = 0; b < layout.totalBuffers; b++) {
        rb.buffers(buffer, b);
        buffers[2 * b] = buffer.offset();
        buffers[2 * b + 1] = buffer.length();
      }
    } catch (QuiverException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CorruptFileException(
          location, what + " metadata does not decode (" + e + "); rewrite the file", e);
    }
    checkNodes(location, what, (int) length, bodyLen, codec != BodyDecompression.NONE, layout, nodes);
    for (int b = 0; b < layout.totalBuffers; b++) {
      long off = buffers[2 * b];
      long len = buffers[2 * b + 1];
      if (off < 0 || len < 0 || off > bodyLen || len > bodyLen - off) {
        throw corrupt(location, 
            what + " buffer " + b + " spans " + len + " bytes at body offset " + off
                + ", outside its body of " + bodyLen + " bytes");
      }
    }
    return new DataFileMetadata.BatchLayout((int) length, nodes, buffers, codec);
  }

  /**
   * Checks node lengths against the batch length, the parent and the body size. Arrow Java
   * synthesizes validity bitmaps of length/8 bytes when a node has no nulls, so a length must be backed
   * by body bytes before anything is loaded; a compressed body backs at most {@link
   * BodyDecompression#MAX_EXPANSION} times its size.
   */
  private static void checkNodes(String location,
      String what, int batchLength, long bodyLen, boolean compressed, SchemaLayout layout, long[] nodes) {
    long backed = compressed ? (bodyLen + 64) * BodyDecompression.MAX_EXPANSION : bodyLen + 64;
    for (int f = 0; f < layout.fieldCount(); f++) {
      long len = nodes[2 * f];
      long nulls = nodes[2 * f + 1];
      String field = what + " field '" + layout.path(f) + "'";
      if (len < 0 || len > Integer.MAX_VALUE || nulls < 0 || nulls > len) {
        throw corrupt(location, field + " has length " + len + " and null count " + nulls);
      }
      if ((len + 7) / 8 > backed) {
        throw corrupt(location, field + " claims " + len + " values but the " + (compressed ? "compressed " : "")
            + "body holds only " + bodyLen + " bytes");
      }
      int p = layout.parent[f];
      long expected = -1;
      if (p < 0) {
        expected = batchLength;
      } else {
        ArrowType parentType = layout.fields[p].getType();
        if (parentType.getTypeID() == ArrowTypeID.Struct) {
          expected = nodes[2 * p];
        } else if (parentType instanceof ArrowType.FixedSizeList fsl) {
          expected = nodes[2 * p] * fsl.getListSize();
        }
      }
      if (expected >= 0 && len != expected) {
        throw corrupt(location, field + " has length " + len + ", expected " + expected);
      }
    }
  }

  private static CorruptFileException corrupt(String location, String detail) {
    return new CorruptFileException(location, detail);
  }
}
