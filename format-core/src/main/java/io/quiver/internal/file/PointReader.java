package io.quiver.internal.file;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.QuiverException;
import io.quiver.store.ByteRange;
import io.quiver.store.ObjectStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.BufferLayout;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Point reads of a data file: the values of a few rows of some atomic columns, fetching only the bytes
 * those rows need instead of whole record batches. For a fixed-width column that is each row's value and
 * validity bit; for a variable-width column the row's two offsets, then its value bytes; for a struct's
 * validity, its bits at the rows. Nearby byte ranges are coalesced (gap {@code gapBytes}) and every round
 * of ranges is one {@link ObjectStore#readRanges} call, so a cloud store fetches them in parallel.
 *
 * <p>Compressed bodies (format 1.1): each buffer starts with its 8-byte uncompressed length, -1 for a
 * buffer stored raw ({@code write.compression.min-savings}). A compressed buffer the footer's frame table
 * lists ({@link FrameTable}) is read by its frames: only those holding wanted bytes are fetched, in the
 * first round, and decompressed (one ZSTD context per read, into heap arrays). Any other buffer's first
 * round reads the prefix together with the wanted bytes as if the buffer were raw; a raw buffer is then
 * done, a compressed one is fetched whole and decompressed, unless it carries an in-buffer frame index
 * (files of the first framed build, {@link ZstdFrames#index}, read with the prefix): then only its wanted
 * frames are fetched. A column with children
 * (lists, maps, fixed-size lists) is read as a whole column of the batch ({@link DataFileReader#readBatch}):
 * its values are scattered over its children, and point reads would save little. Every number read is
 * checked (offsets inside their values, lengths inside their buffer) before it is used: a damaged file is a
 * {@link CorruptFileException}. Thread-safe; each {@link #read} is independent.
 */
public final class PointReader {
  private static final int PREFIX = 8;
  private static final int UNKNOWN = 0;
  private static final int RAW = 1;
  private static final int WHOLE_WANTED = 2;
  private static final int WHOLE = 3;
  /** A ZSTD buffer whose frames are known: {@link Buf#decoded} fills frame by frame as wants arrive. */
  private static final int FRAMED = 4;

  private final ObjectStore store;
  private final DataFileReader files;
  private final int gapBytes;

  /**
   * @param gapBytes wanted ranges at most this many bytes apart are fetched as one (0: only touching or
   *     overlapping ranges merge)
   */
  public PointReader(ObjectStore store, DataFileReader files, int gapBytes) {
    if (store == null || files == null || gapBytes < 0) {
      throw new InvalidArgumentException("store and files must not be null and gapBytes must be >= 0");
    }
    this.store = store;
    this.files = files;
    this.gapBytes = gapBytes;
  }

  /** Rows {@code rows} (ascending, distinct, 0-based within the batch) of atomic column {@code column}. */
  public record Cells(int batch, int column, int[] rows) {}

  /** Rows of the struct that is the ancestor at {@code depth} of atomic column {@code column}. */
  public record StructRows(int batch, int column, int depth, int[] rows) {}

  /** The values of one {@link Cells} request: row {@code rows[k]} is at {@code index(k)} of {@link #vector}. */
  public static final class Values implements AutoCloseable {
    private final FieldVector vector;
    private final int base;
    private final int[] index;
    private final AutoCloseable owner;

    private Values(FieldVector vector, int base, int[] index, AutoCloseable owner) {
      this.vector = vector;
      this.base = base;
      this.index = index;
      this.owner = owner;
    }

    public FieldVector vector() {
      return vector;
    }

    /** Position in {@link #vector()} of the request's {@code k}-th row. */
    public int index(int k) {
      return index == null ? base + k : index[k];
    }

    /** Releases the vector (shared by the requests of one column: closing it again does nothing). */
    @Override
    public void close() {
      try {
        owner.close();
      } catch (Exception e) {
        throw new IllegalStateException("failed to release Arrow buffers", e);
      }
    }
  }

  /** What one {@link #read} returns; the caller closes it (it owns Arrow memory). */
  public static final class Result implements AutoCloseable {
    private final List<Values> values;
    private final List<boolean[]> structNulls;

    private Result(List<Values> values, List<boolean[]> structNulls) {
      this.values = values;
      this.structNulls = structNulls;
    }

    /** One per {@link Cells} request, in request order. */
    public List<Values> values() {
      return values;
    }

    /** Per {@link StructRows} request, in request order: whether the struct is null at each of its rows. */
    public List<boolean[]> structNulls() {
      return structNulls;
    }

    @Override
    public void close() {
      values.forEach(Values::close);
    }
  }

  /** The batches the requests read: their metadata is loaded in one pass before planning. */
  private static int[] batchesOf(List<Cells> cells, List<StructRows> structs) {
    return java.util.stream.Stream.concat(cells.stream().map(Cells::batch), structs.stream().map(StructRows::batch))
        .mapToInt(Integer::intValue).distinct().toArray();
  }

  /** Reads the requests from data file {@code key}; its metadata comes from {@code files}' cache. */
  public Result read(String key, List<Cells> cells, List<StructRows> structs, BufferAllocator allocator) {
    DataFileMetadata md = files.loadBatches(key, batchesOf(cells, structs));
    Plan plan = new Plan(key, md, allocator);
    List<CellRead> reads = new ArrayList<>();
    List<Values> values = new ArrayList<>();
    try {
      for (Cells c : cells) {
        md.checkBatch(c.batch());
        if (c.column() < 0 || c.column() >= md.atomicColumnCount()) {
          md.atomicColumnPath(c.column()); // throws the one message for a bad column
        }
        int field = md.layout().atomicField[c.column()];
        if (md.layout().fields[field].getChildren().isEmpty()) {
          reads.add(plan.cells(c, field));
        } else {
          reads.add(null);
        }
      }
      List<StructRead> bits = new ArrayList<>();
      for (StructRows s : structs) {
        md.checkBatch(s.batch());
        bits.add(plan.struct(s, DataFileReader.structAncestor(md, s.column(), s.depth())));
      }
      plan.run(reads, bits);
      Values[] out = new Values[cells.size()];
      try {
        buildByColumn(reads, out, allocator);
        for (int i = 0; i < out.length; i++) {
          if (reads.get(i) == null) {
            out[i] = wholeColumn(key, cells.get(i), allocator);
          }
        }
      } finally {
        for (Values v : out) {
          if (v != null) {
            values.add(v);
          }
        }
      }
      List<boolean[]> nulls = new ArrayList<>();
      bits.forEach(b -> nulls.add(b.nulls()));
      plan.release();
      return new Result(values, nulls);
    } catch (QuiverException | org.apache.arrow.memory.OutOfMemoryException e) {
      values.forEach(Values::close);
      plan.release();
      throw e;
    } catch (RuntimeException e) {
      values.forEach(Values::close);
      plan.release();
      throw new CorruptFileException(
          md.location(), "rows do not decode as the file's metadata describes (" + e.getMessage()
              + "); the file is damaged, rewrite it from its source", e);
    }
  }

  /** A column with children: the batch's whole column, indexed by the wanted rows. */
  private Values wholeColumn(String key, Cells c, BufferAllocator allocator) {
    VectorSchemaRoot root = files.readBatch(key, c.batch(), new int[] {c.column()}, allocator);
    FieldVector v = root.getVector(0);
    while (v instanceof StructVector struct) {
      v = (FieldVector) struct.getChildByOrdinal(0);
    }
    return new Values(v, 0, c.rows().clone(), root);
  }

  /**
   * The values of every childless request, one vector per column holding its requests' rows back to
   * back (a vector per request cost more than its values: a take touches about one row per batch).
   */
  private static void buildByColumn(List<CellRead> reads, Values[] out, BufferAllocator allocator) {
    Map<Integer, List<Integer>> byColumn = new LinkedHashMap<>();
    for (int i = 0; i < reads.size(); i++) {
      if (reads.get(i) != null) {
        byColumn.computeIfAbsent(reads.get(i).request.column(), c -> new ArrayList<>()).add(i);
      }
    }
    for (List<Integer> requests : byColumn.values()) {
      CellRead first = reads.get(requests.get(0));
      int total = 0;
      for (int i : requests) {
        total += reads.get(i).request.rows().length;
      }
      FieldVector v = first.plan.md.layout().fields[first.field].createVector(allocator);
      try {
        if (first.offsetWidth == 0) {
          ((BaseFixedWidthVector) v).allocateNew(total);
        } else {
          ((VariableWidthFieldVector) v).allocateNew(total);
        }
        int base = 0;
        for (int i : requests) {
          CellRead r = reads.get(i);
          r.fill(v, base);
          out[i] = new Values(v, base, null, v);
          base += r.request.rows().length;
        }
        v.setValueCount(total);
      } catch (RuntimeException e) {
        v.close();
        throw e;
      }
    }
  }

  /** The buffers one read touches and the rounds of ranged reads that fill them. */
  private final class Plan {
    final String key;
    final DataFileMetadata md;
    /** The buffers touched, in the order first asked for; {@link #byBatch} finds them. */
    final List<Buf> buffers = new ArrayList<>();
    final Buf[][] byBatch;
    /** Per buffer of the schema: its Arrow layout (validity, offsets, values). */
    final BufferLayout[] kinds;
    final BufferAllocator allocator;
    /** Arrow memory of whole buffers fetched and decompressed; released when the read ends. */
    final List<ArrowBuf> owned = new ArrayList<>();

    Plan(String key, DataFileMetadata md, BufferAllocator allocator) {
      this.key = key;
      this.md = md;
      this.allocator = allocator;
      this.byBatch = new Buf[md.batchCount()][];
      this.kinds = new BufferLayout[md.layout().totalBuffers];
    }

    BufferLayout kind(int field, int k) {
      int index = md.layout().bufferStart[field] + k;
      BufferLayout kind = kinds[index];
      if (kind == null) {
        kind = TypeLayout.getTypeLayout(md.layout().fields[field].getType()).getBufferLayouts().get(k);
        kinds[index] = kind;
      }
      return kind;
    }

    /**
     * One ZSTD context for every frame the read decompresses: a context per call ({@code
     * Zstd.decompress}) costs more than decompressing a frame.
     */
    private com.github.luben.zstd.ZstdDecompressCtx zstd;

    com.github.luben.zstd.ZstdDecompressCtx zstd() {
      if (zstd == null) {
        zstd = new com.github.luben.zstd.ZstdDecompressCtx();
      }
      return zstd;
    }

    void release() {
      owned.forEach(ArrowBuf::close);
      owned.clear();
      if (zstd != null) {
        zstd.close();
        zstd = null;
      }
    }

    Buf buffer(int batch, int field, int k) {
      int index = md.layout().bufferStart[field] + k;
      if (byBatch[batch] == null) {
        byBatch[batch] = new Buf[md.layout().totalBuffers];
      }
      Buf b = byBatch[batch][index];
      if (b == null) {
        b = new Buf(this, batch, field, k, index);
        byBatch[batch][index] = b;
        buffers.add(b);
      }
      return b;
    }

    CellRead cells(Cells c, int field) {
      return new CellRead(this, c, field);
    }

    StructRead struct(StructRows s, int node) {
      return new StructRead(this, s, node);
    }

    void run(List<CellRead> reads, List<StructRead> bits) {
      while (true) {
        boolean done = true;
        for (CellRead r : reads) {
          if (r != null && !r.advance()) {
            done = false;
          }
        }
        for (StructRead b : bits) {
          done &= b.validity == null || b.validity.ready();
        }
        if (done) {
          return;
        }
        List<Item> items = new ArrayList<>();
        for (Buf b : buffers) {
          b.items(items);
        }
        if (items.isEmpty()) {
          throw new IllegalStateException("point read of " + md.location() + " made no progress");
        }
        fetch(items);
        for (Buf b : buffers) {
          b.settle();
        }
      }
    }

    /** One round: the items' ranges coalesced, read with one readRanges, handed back to their buffers. */
    void fetch(List<Item> items) {
      items.sort((a, b) -> Long.compare(a.start, b.start));
      List<long[]> merged = new ArrayList<>();
      for (Item it : items) {
        long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
        if (last != null && it.start - last[1] <= gapBytes) {
          last[1] = Math.max(last[1], it.end);
        } else {
          merged.add(new long[] {it.start, it.end});
        }
      }
      List<ByteRange> ranges = new ArrayList<>(merged.size());
      for (long[] m : merged) {
        ranges.add(new ByteRange(m[0], Math.toIntExact(m[1] - m[0])));
      }
      List<byte[]> got = store.readRanges(key, ranges);
      int r = 0;
      for (Item it : items) {
        while (merged.get(r)[1] < it.end || merged.get(r)[0] > it.start) {
          r++;
        }
        byte[] bytes = got.get(r);
        int from = (int) (it.start - merged.get(r)[0]);
        int n = (int) (it.end - it.start);
        if (bytes.length < from + n) {
          throw new CorruptFileException(md.location(), "expected " + n + " bytes at offset " + it.start
              + " but the object ended first; it is shorter than its metadata says (truncated or replaced); rewrite it");
        }
        it.buf.receive(it, bytes, from, n);
      }
    }
  }

  /** Bytes {@code [from, from + length)} of a fetched range. */
  private record Slice(byte[] bytes, int from, int length) {}

  /** A range to fetch for a buffer: its length prefix, a piece of its payload, or all of it. */
  private record Item(Buf buf, int kind, long start, long end, long payloadStart) {
    static final int PREFIX_ITEM = 0;
    static final int PIECE = 1;
    static final int WHOLE_ITEM = 2;
    static final int FRAME_ITEM = 3;
  }

  /** One buffer of one batch: which of its payload bytes are wanted, and those fetched so far. */
  private static final class Buf {
    final Plan plan;
    final DataFileMetadata md;
    final int batch;
    final int index;
    final BufferLayout kind;
    final long start;
    final long length;
    final boolean framed;
    /** The buffer's frames from the footer's frame table ({@link FrameTable}), or null: read the prefix. */
    final ZstdFrames.Index table;
    final String path;
    int state;
    /** The whole buffer, decompressed (Arrow memory owned by the plan), once fetched. */
    ArrowBuf whole;
    /** A framed buffer's decompressed frames (heap arrays), null until fetched. */
    byte[][] decoded;
    long declared;
    /** The buffer's first bytes (length prefix and a frame index, if any), read with the prefix. */
    byte[] head;
    /** Payload ranges asked for before the prefix was read, kept in case the buffer turns out framed. */
    final List<long[]> asked = new ArrayList<>();
    /** A framed buffer's frames, and those wanted but not yet decompressed. */
    ZstdFrames.Index frames;
    final java.util.TreeSet<Integer> needFrames = new java.util.TreeSet<>();
    final List<long[]> wanted = new ArrayList<>();
    /** Raw payload bytes fetched, by payload offset: a slice of one fetched range. */
    final TreeMap<Long, Slice> pieces = new TreeMap<>();
    final List<Item> pending = new ArrayList<>();
    long bound = -1;
    boolean beyondPayload;
    boolean prefixAsked;
    /** Scratch for one offset or validity byte. */
    private final byte[] word = new byte[8];

    Buf(Plan plan, int batch, int field, int k, int index) {
      this.plan = plan;
      this.md = plan.md;
      this.batch = batch;
      this.index = index;
      this.kind = plan.kind(field, k);
      this.start = md.bodyOffset(batch) + md.bufferOffset(batch, index);
      this.length = md.bufferLength(batch, index);
      this.framed = md.codec(batch) != BodyDecompression.NONE;
      this.table = framed ? md.frames(batch, index) : null;
      this.path = md.layout().path(field);
      this.state = framed && length > 0 ? UNKNOWN : RAW;
    }

    long payloadLength() {
      return framed ? Math.max(0, length - PREFIX) : length;
    }

    /** Asks for payload bytes {@code [pos, pos + n)}. */
    void want(long pos, long n) {
      if (n <= 0 || state == WHOLE || state == WHOLE_WANTED) {
        return;
      }
      if (state == UNKNOWN && table != null) {
        promote(table); // the frame table says where the frames are: no prefix to read first
        want(pos, n);
        return;
      }
      if (state == FRAMED) {
        needFrames(pos, n);
        return;
      }
      if (state == UNKNOWN && pos >= 0 && pos + n > payloadLength()) {
        beyondPayload = true; // only a compressed buffer can hold it: decided when the prefix is read
        asked.add(new long[] {pos, pos + n});
        return;
      }
      if (pos < 0 || pos + n > payloadLength()) {
        throw corrupt("needs bytes " + pos + ".." + (pos + n) + " of a " + kind.getType().getName() + " buffer of "
            + payloadLength() + " bytes");
      }
      wanted.add(new long[] {pos, pos + n});
      if (state == UNKNOWN) {
        asked.add(new long[] {pos, pos + n});
      }
    }

    /** Marks the frames holding uncompressed bytes {@code [pos, pos + n)} as needed (unless decompressed). */
    private void needFrames(long pos, long n) {
      if (pos < 0 || pos + n > frames.declared()) {
        throw corrupt("needs bytes " + pos + ".." + (pos + n) + " of a " + kind.getType().getName()
            + " buffer that decompresses to " + frames.declared());
      }
      int last = (int) ((pos + n - 1) / frames.frameBytes());
      for (int f = (int) (pos / frames.frameBytes()); f <= last; f++) {
        if (decoded[f] == null) {
          needFrames.add(f);
        }
      }
    }

    boolean ready() {
      return (state == RAW && wanted.isEmpty()) || state == WHOLE || (state == FRAMED && needFrames.isEmpty())
          || (state == UNKNOWN && table != null); // with a frame table, any byte wanted would have promoted it
    }

    void items(List<Item> out) {
      long payloadBase = start + (framed ? PREFIX : 0);
      if (state == UNKNOWN && table != null) {
        return; // nothing wanted yet; the first want promotes it
      }
      if (state == UNKNOWN && !prefixAsked) {
        // Only files without a frame table may hold an index inside the buffer, after its length.
        long head = md.codec(batch) == org.apache.arrow.flatbuf.CompressionType.ZSTD && !md.hasFrameTable()
            ? ZstdFrames.INDEX_PEEK : 0;
        out.add(new Item(this, Item.PREFIX_ITEM, start, start + Math.min(length, PREFIX + head), -1));
        prefixAsked = true;
      }
      if (state == UNKNOWN || state == RAW) {
        wanted.sort((a, b) -> Long.compare(a[0], b[0]));
        for (long[] w : wanted) {
          out.add(new Item(this, Item.PIECE, payloadBase + w[0], payloadBase + w[1], w[0]));
        }
        wanted.clear();
      } else if (state == WHOLE_WANTED) {
        out.add(new Item(this, Item.WHOLE_ITEM, start, start + length, -1));
      } else if (state == FRAMED) {
        for (int f : needFrames) {
          out.add(new Item(this, Item.FRAME_ITEM, payloadBase + frames.starts()[f], payloadBase + frames.starts()[f + 1], f));
        }
      }
    }

    /** The bytes of {@code item}: {@code bytes[from, from + n)}, a fetched range the caller does not reuse. */
    void receive(Item item, byte[] bytes, int from, int n) {
      switch (item.kind()) {
        case Item.PREFIX_ITEM -> {
          declared = ByteBuffer.wrap(bytes, from, n).order(ByteOrder.LITTLE_ENDIAN).getLong(from);
          head = Arrays.copyOfRange(bytes, from, from + n);
          pending.add(item);
        }
        case Item.PIECE -> pieces.put(item.payloadStart(), new Slice(bytes, from, n));
        case Item.FRAME_ITEM -> decode((int) item.payloadStart(), bytes, from, n);
        default -> {
          BodyDecompression.Where where = where();
          ArrowBuf compressed = plan.allocator.buffer(n);
          plan.owned.add(compressed);
          compressed.setBytes(0, bytes, from, n);
          whole = BodyDecompression.decompress(md.codec(batch), compressed.slice(0, n),
              bound < 0 ? BodyDecompression.MAX_BUFFER_BYTES : bound, plan.allocator, plan.owned, where);
          state = WHOLE;
        }
      }
    }

    private BodyDecompression.Where where() {
      return BodyDecompression.Where.batch(md.location(), batch).buffer(index, path, kind.getType());
    }

    /** Decompresses frame {@code f} from its compressed bytes {@code src[from, from + length)}. */
    private void decode(int f, byte[] src, int from, int length) {
      int n = Math.toIntExact(frames.length(f));
      byte[] out = new byte[n];
      long got;
      try {
        got = plan.zstd().decompressByteArray(out, 0, n, src, from, length);
      } catch (RuntimeException e) { // zstd-jni throws ZstdException for corrupt input
        throw where().corrupt("frame " + f + " does not decompress as ZSTD (" + e.getMessage() + ")");
      }
      if (got != n) {
        throw where().corrupt("frame " + f + " decompresses to " + got + " bytes, but its index declares " + n);
      }
      decoded[f] = out;
      needFrames.remove(f);
    }

    /** After a round: what the length prefix said decides whether the pieces are the values. */
    void settle() {
      if (state != UNKNOWN || pending.isEmpty()) {
        return;
      }
      pending.clear();
      if (declared == -1) {
        if (beyondPayload) {
          throw corrupt("needs bytes past the end of its " + payloadLength() + " uncompressed bytes");
        }
        state = RAW;
      } else if (declared == 0) {
        whole = plan.allocator.getEmpty();
        pieces.clear();
        wanted.clear();
        state = WHOLE;
      } else {
        pieces.clear();
        wanted.clear();
        state = WHOLE_WANTED;
        ZstdFrames.Index ix = md.codec(batch) == org.apache.arrow.flatbuf.CompressionType.ZSTD
            ? ZstdFrames.index(head, declared, payloadLength()) : null;
        if (ix != null) {
          promote(ix);
          for (long[] a : asked) {
            needFrames(a[0], a[1] - a[0]);
          }
        }
      }
      asked.clear();
      head = null;
    }

    /**
     * Reads the buffer by the frames {@code ix} lists from now on: one frame fetches whole and
     * decompresses as a whole buffer; more are fetched and decompressed one by one as wants arrive.
     */
    private void promote(ZstdFrames.Index ix) {
      if (ix.count() == 1) {
        state = WHOLE_WANTED;
        return;
      }
      BodyDecompression.checkDeclared(ix.declared(), payloadLength(),
          bound < 0 ? BodyDecompression.MAX_BUFFER_BYTES : bound, md.codec(batch), where());
      frames = ix;
      decoded = new byte[ix.count()][];
      state = FRAMED;
    }

    /** Payload bytes {@code [pos, pos + n)}, fetched earlier. */
    byte[] bytes(long pos, int n) {
      byte[] out = new byte[n];
      copy(pos, out, 0, n);
      return out;
    }

    /** Copies payload bytes {@code [pos, pos + n)}, fetched earlier, into {@code out} at {@code at}. */
    void copy(long pos, byte[] out, int at, int n) {
      if (n == 0) {
        return;
      }
      if (frames != null) {
        if (pos < 0 || pos + n > frames.declared()) {
          throw corrupt("needs bytes " + pos + ".." + (pos + n) + " of a " + kind.getType().getName()
              + " buffer that decompresses to " + frames.declared());
        }
        int done = 0;
        while (done < n) {
          long p = pos + done;
          int f = (int) (p / frames.frameBytes());
          byte[] frame = decoded[f];
          if (frame == null) {
            throw new IllegalStateException("frame " + f + " of buffer " + index + " was not fetched");
          }
          int in = (int) (p - frames.start(f));
          int k = Math.min(n - done, frame.length - in);
          System.arraycopy(frame, in, out, at + done, k);
          done += k;
        }
        return;
      }
      if (whole != null) {
        if (pos < 0 || pos + n > whole.capacity()) {
          throw corrupt("needs bytes " + pos + ".." + (pos + n) + " of a " + kind.getType().getName()
              + " buffer that decompresses to " + whole.capacity());
        }
        whole.getBytes(pos, out, at, n);
        return;
      }
      Map.Entry<Long, Slice> e = pieces.floorEntry(pos);
      while (e != null && e.getKey() + e.getValue().length() < pos + n) {
        e = pieces.lowerEntry(e.getKey()); // a longer piece may start earlier
      }
      if (e == null) {
        throw new IllegalStateException("bytes " + pos + ".." + (pos + n) + " of buffer " + index + " were not fetched");
      }
      Slice piece = e.getValue();
      System.arraycopy(piece.bytes(), piece.from() + (int) (pos - e.getKey()), out, at, n);
    }

    boolean bit(int row) {
      copy(row >>> 3, word, 0, 1);
      return (word[0] & (1 << (row & 7))) != 0;
    }

    long offset(int i, int width) {
      copy((long) i * width, word, 0, width);
      long v = 0;
      for (int b = width - 1; b >= 0; b--) {
        v = (v << 8) | (word[b] & 0xFF);
      }
      return width == 4 ? (int) v : v; // int32 offsets are signed
    }

    CorruptFileException corrupt(String detail) {
      return new CorruptFileException(md.location(), "record batch " + batch + " field '" + path + "' " + detail
          + "; the file is damaged, rewrite it");
    }
  }

  /** A node's validity at some rows: none needed when the batch has no nulls or only nulls. */
  private static Buf validity(Plan plan, int batch, int node, int[] rows) {
    long len = plan.md.nodeLength(batch, node);
    long nulls = plan.md.nodeNullCount(batch, node);
    if (nulls == 0 || nulls == len) {
      return null;
    }
    Buf v = plan.buffer(batch, node, 0);
    v.bound = BodyDecompression.bound(v.kind, len, -1);
    for (int row : rows) {
      v.want(row >>> 3, 1);
    }
    return v;
  }

  private static void checkRows(DataFileMetadata md, int batch, int[] rows) {
    int n = md.batchRowCount(batch);
    int previous = -1;
    for (int row : rows) {
      if (row <= previous || row >= n) {
        throw new InvalidArgumentException(
            "rows of a point read must be ascending, distinct and below the batch's " + n + " rows; got " + row
                + " after " + previous + " in batch " + batch + " of " + md.location());
      }
      previous = row;
    }
  }

  /** Whether a node is null at a row, from its validity buffer (or its all-valid / all-null count). */
  private static boolean isNull(DataFileMetadata md, int batch, int node, Buf validity, int row) {
    if (validity != null) {
      return !validity.bit(row);
    }
    long len = md.nodeLength(batch, node);
    return md.nodeNullCount(batch, node) == len && len > 0;
  }

  /** The rows of one struct's validity. */
  private static final class StructRead {
    final Plan plan;
    final StructRows request;
    final int node;
    final Buf validity;

    StructRead(Plan plan, StructRows request, int node) {
      checkRows(plan.md, request.batch(), request.rows());
      this.plan = plan;
      this.request = request;
      this.node = node;
      this.validity = PointReader.validity(plan, request.batch(), node, request.rows());
    }

    boolean[] nulls() {
      int[] rows = request.rows();
      boolean[] out = new boolean[rows.length];
      for (int k = 0; k < rows.length; k++) {
        out[k] = isNull(plan.md, request.batch(), node, validity, rows[k]);
      }
      return out;
    }
  }

  /** The rows of one childless atomic column: validity, then fixed values or offsets and value bytes. */
  private static final class CellRead {
    final Plan plan;
    final Cells request;
    final int field;
    final Buf validity;
    final Buf offsets;
    final Buf data;
    final int offsetWidth;
    final int valueBits;
    final boolean allNull;
    boolean dataWanted;

    CellRead(Plan plan, Cells request, int field) {
      checkRows(plan.md, request.batch(), request.rows());
      this.plan = plan;
      this.request = request;
      this.field = field;
      List<BufferLayout> layouts = TypeLayout.getTypeLayout(plan.md.layout().fields[field].getType()).getBufferLayouts();
      int batch = request.batch();
      long len = plan.md.nodeLength(batch, field);
      allNull = plan.md.nodeNullCount(batch, field) == len && len > 0;
      validity = PointReader.validity(plan, batch, field, request.rows());
      boolean variable = layouts.size() == 3;
      offsetWidth = variable ? layouts.get(1).getTypeBitWidth() / 8 : 0;
      valueBits = variable ? 8 : layouts.get(1).getTypeBitWidth();
      if (allNull || request.rows().length == 0) {
        offsets = null;
        data = null;
      } else if (variable) {
        offsets = plan.buffer(batch, field, 1);
        data = plan.buffer(batch, field, 2);
        offsets.bound = BodyDecompression.bound(offsets.kind, len, -1);
        if (data.framed && data.table == null) {
          offsets.want(len * offsetWidth, offsetWidth); // the last offset bounds the values' decompression
        }
        for (int row : request.rows()) {
          offsets.want((long) row * offsetWidth, 2L * offsetWidth);
        }
      } else {
        offsets = null;
        data = plan.buffer(batch, field, 1);
        data.bound = BodyDecompression.bound(data.kind, len, -1);
        for (int row : request.rows()) {
          if (valueBits == 1) {
            data.want(row >>> 3, 1);
          } else {
            data.want((long) row * (valueBits / 8), valueBits / 8);
          }
        }
      }
      dataWanted = offsets == null;
    }

    /** Asks for what the fetched bytes now make known; true when everything is here. */
    boolean advance() {
      if (!dataWanted && offsets.ready()) {
        long len = plan.md.nodeLength(request.batch(), field);
        // The values' length: the frame table's declared length, else the last offset (both checked later
        // against what the buffer decompresses to).
        long last = !data.framed ? data.payloadLength()
            : data.table != null ? data.table.declared() : offsets.offset((int) len, offsetWidth);
        if (last < 0) {
          throw offsets.corrupt("has a last offset of " + last);
        }
        data.bound = BodyDecompression.bound(data.kind, len, last);
        for (int row : request.rows()) {
          long from = offsets.offset(row, offsetWidth);
          long to = offsets.offset(row + 1, offsetWidth);
          if (from < 0 || to < from || to > last) {
            throw offsets.corrupt("has offsets " + from + ".." + to + " at row " + row + " (last offset " + last + ")");
          }
          data.want(from, to - from);
        }
        dataWanted = true;
      }
      return dataWanted && (validity == null || validity.ready()) && (offsets == null || offsets.ready())
          && (data == null || data.ready());
    }

    /** Writes the request's rows into {@code v} (allocated for them) from position {@code base} on. */
    void fill(FieldVector v, int base) {
      int[] rows = request.rows();
      int n = rows.length;
      if (offsetWidth == 0) {
        BaseFixedWidthVector fixed = (BaseFixedWidthVector) v;
        int width = valueBits / 8;
        byte[] value = new byte[Math.max(width, 1)];
        for (int k = 0; k < n; k++) {
          boolean isNull = isNull(plan.md, request.batch(), field, validity, rows[k]);
          BitVectorHelper.setValidityBit(fixed.getValidityBuffer(), base + k, isNull ? 0 : 1);
          if (isNull) {
            continue;
          }
          if (fixed instanceof BitVector) {
            BitVectorHelper.setValidityBit(fixed.getDataBuffer(), base + k, data.bit(rows[k]) ? 1 : 0);
          } else {
            data.copy((long) rows[k] * width, value, 0, width);
            fixed.getDataBuffer().setBytes((long) (base + k) * width, value, 0, width);
          }
        }
      } else {
        VariableWidthFieldVector variable = (VariableWidthFieldVector) v;
        for (int k = 0; k < n; k++) {
          if (allNull || isNull(plan.md, request.batch(), field, validity, rows[k])) {
            variable.setNull(base + k);
            continue;
          }
          long from = offsets.offset(rows[k], offsetWidth);
          long to = offsets.offset(rows[k] + 1, offsetWidth);
          byte[] bytes = data.bytes(from, (int) (to - from));
          variable.setSafe(base + k, bytes, 0, bytes.length);
        }
      }
    }
  }
}
