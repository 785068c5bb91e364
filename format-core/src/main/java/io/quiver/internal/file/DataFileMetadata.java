package io.quiver.internal.file;

import io.quiver.exceptions.InvalidArgumentException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import io.quiver.internal.codec.StatsCodec;
import io.quiver.manifest.ColumnStats;
import io.quiver.manifest.FileStats;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Parsed metadata of one data file: footer, schema, every record batch's block (where its message and
 * body lie) and row count, and each record batch's layout (field nodes and buffer ranges) once it is
 * loaded. It is what {@link MetadataCache} holds. Safe to cache and share across threads.
 *
 * <p>Batch layouts are loaded lazily (docs/scan-planning.md, "Fetching"): when the footer's zone statistics
 * give every batch's row count, parsing reads only the tail of the file and the batch messages that lie in
 * it; the other batches' messages are fetched when a reader needs them, in bulk for the batches a scan, take
 * or validation will read ({@link DataFileReader#loadBatches}), so batches pruned by statistics never have
 * their metadata fetched. A file without usable zone statistics has every batch loaded when parsed. The
 * layout accessors load a missing batch through the reader that parsed the file, so any caller sees
 * complete metadata; the read paths load through their own reader first.
 *
 * <p>Every number in here was checked against the file size when parsed or loaded: buffer ranges lie
 * inside their batch's body, bodies lie inside the file, lengths fit in an {@code int}, and a lazily
 * loaded batch has the row count its zone statistics promised.
 */
public final class DataFileMetadata implements MetadataCache.Weighable {
  /** One record batch's message, decoded and checked: its row count, field nodes, buffers and codec. */
  record BatchLayout(int rows, long[] nodes, long[] buffers, byte codec) {
    /** Estimated heap bytes. */
    long estimatedBytes() {
      return 64 + 8L * nodes.length + 8L * buffers.length;
    }
  }

  /** Loads the layouts of the given batches of a file into its metadata (through some reader's store). */
  interface BatchLoader {
    void load(DataFileMetadata md, int[] batches);
  }

  private final String location;
  private final Schema schema;
  private final SchemaLayout layout;
  private final long fileSize;
  private final int formatMajor;
  private final int formatMinor;
  private final int[] rows;
  private final long[] starts;
  private final long[] bodyOffsets;
  private final long[] bodyLengths;
  private final int[] metadataLengths; // per batch: bytes of its message, just before its body
  private final AtomicReferenceArray<BatchLayout> batches; // null until loaded
  private final AtomicLong loadedBytes = new AtomicLong();
  private final BatchLoader loader;
  private final long rowCount;
  private final long baseBytes;
  /** The footer's zone statistics as stored (base64), or null; decoded on first use. */
  private final String zoneStatsValue;
  private volatile Optional<List<FileStats>> zoneStats;
  /** The footer's frame table as stored (base64), or null; decoded on first use. */
  private final String framesValue;
  private volatile FrameTable frameTable;

  /**
   * @param blocks per batch {offset, metadata length, body length}, as the footer gives them (checked)
   * @param rows per batch row count: from the loaded layouts, or from the zone statistics
   * @param loaded per batch its layout, or null when it is to be loaded by {@code loader}
   * @param zones the decoded zone statistics when they were decoded while parsing (they gave the row counts),
   *     else null to decode {@code zoneStatsValue} on first use
   * @param framesValue the footer's frame table (base64), or null
   */
  DataFileMetadata(
      String location,
      Schema schema,
      SchemaLayout layout,
      long fileSize,
      int formatMajor,
      int formatMinor,
      long[][] blocks,
      int[] rows,
      BatchLayout[] loaded,
      BatchLoader loader,
      String zoneStatsValue,
      List<FileStats> zones,
      String framesValue) {
    this.location = location;
    this.zoneStatsValue = zoneStatsValue;
    this.framesValue = framesValue;
    this.schema = schema;
    this.layout = layout;
    this.fileSize = fileSize;
    this.formatMajor = formatMajor;
    this.formatMinor = formatMinor;
    this.rows = rows;
    this.loader = loader;
    int n = rows.length;
    this.bodyOffsets = new long[n];
    this.bodyLengths = new long[n];
    this.metadataLengths = new int[n];
    this.batches = new AtomicReferenceArray<>(n);
    this.starts = new long[n];
    long total = 0;
    for (int i = 0; i < n; i++) {
      metadataLengths[i] = (int) blocks[i][1];
      bodyOffsets[i] = blocks[i][0] + blocks[i][1];
      bodyLengths[i] = blocks[i][2];
      starts[i] = total;
      total += rows[i];
    }
    this.rowCount = total;
    long est = 512 + 2L * location.length();
    for (Field f : layout.fields) {
      est += 160 + 2L * f.getName().length();
    }
    for (String p : layout.atomicPath) {
      est += 48 + 2L * p.length();
    }
    est += 8L * n * 4 + 4L * n * 2 + 48;
    // The frame table, decoded, takes about as much as its base64 text.
    this.baseBytes = est + (zoneStatsValue == null ? 0 : 2L * zoneStatsValue.length())
        + (framesValue == null ? 0 : 4L * framesValue.length());
    for (int i = 0; i < n; i++) {
      if (loaded[i] != null) {
        install(i, loaded[i]);
      }
    }
    this.zoneStats = zones == null ? null : Optional.of(zones).filter(this::matches);
  }

  /**
   * Where the frames of buffer {@code buffer} of batch {@code batch} are, from the footer's frame table
   * ({@link FrameTable}); null when the file has no table, the table does not parse, or its entry for the
   * buffer is missing or does not describe the buffer (a ZSTD buffer whose frames sum to its payload).
   */
  ZstdFrames.Index frames(int batch, int buffer) {
    if (framesValue == null || codec(batch) != org.apache.arrow.flatbuf.CompressionType.ZSTD) {
      return null;
    }
    return frameTable().frames(batch, buffer, bufferLength(batch, buffer) - 8);
  }

  /** The footer's frame table, parsed on first use; {@link FrameTable#NONE} when absent or malformed. */
  FrameTable frameTable() {
    FrameTable t = frameTable;
    if (t == null) {
      t = framesValue == null ? FrameTable.NONE : FrameTable.parse(framesValue, rows.length, layout.totalBuffers);
      frameTable = t;
    }
    return t;
  }

  /** Whether the footer carries a frame table (then no buffer of the file holds an in-buffer index). */
  boolean hasFrameTable() {
    return framesValue != null;
  }

  /** This metadata read again with another frame-table value (tests of a table that lies). */
  DataFileMetadata withFrameTable(String value) {
    BatchLayout[] loaded = new BatchLayout[rows.length];
    long[][] blocks = new long[rows.length][];
    for (int i = 0; i < rows.length; i++) {
      loaded[i] = layout(i);
      blocks[i] = new long[] {bodyOffsets[i] - metadataLengths[i], metadataLengths[i], bodyLengths[i]};
    }
    return new DataFileMetadata(location, schema, layout, fileSize, formatMajor, formatMinor, blocks, rows.clone(),
        loaded, loader, zoneStatsValue, null, value);
  }

  /**
   * The zone statistics of the file's footer (docs/format.md §5.2): per record batch, statistics keyed by
   * atomic column index ({@link ColumnStats#fieldId()} holds the column index). Empty when the file has none, or
   * when they do not decode or do not match the file (another batch count, a batch's row count, a column the
   * file does not have): they are advisory, and a reader without them reads every batch.
   */
  public Optional<List<FileStats>> zoneStats() {
    Optional<List<FileStats>> z = zoneStats;
    if (z == null) {
      z = StatsCodec.decodeZones(zoneStatsValue).filter(this::matches);
      zoneStats = z;
    }
    return z;
  }

  private boolean matches(List<FileStats> zones) {
    if (zones.size() != rows.length) {
      return false;
    }
    for (int b = 0; b < rows.length; b++) {
      FileStats zone = zones.get(b);
      if (zone.rowCount() != rows[b]) {
        return false;
      }
      for (ColumnStats c : zone.columns()) {
        if (c.fieldId() >= layout.atomicField.length) {
          return false;
        }
      }
    }
    return true;
  }

  public Schema schema() {
    return schema;
  }

  /** The store location this metadata was read from (for messages). */
  public String location() {
    return location;
  }

  public long fileSize() {
    return fileSize;
  }

  /** Quiver data file format version recorded in the footer; 0.0 for Arrow files written elsewhere. */
  public int formatMajor() {
    return formatMajor;
  }

  public int formatMinor() {
    return formatMinor;
  }

  public int batchCount() {
    return rows.length;
  }

  public int batchRowCount(int batch) {
    return rows[checkBatch(batch)];
  }

  public long rowCount() {
    return rowCount;
  }

  /**
   * Whether record batch {@code batch}'s body is compressed (Arrow IPC buffer compression, data-file
   * format 1.1): its buffer lengths, and so {@link #projectedBodyBytes}, are compressed sizes.
   */
  public boolean isCompressed(int batch) {
    return layout(checkBatch(batch)).codec() != BodyDecompression.NONE;
  }

  /** The codec of a compressed batch ("ZSTD", "LZ4_FRAME"), or "NONE". */
  public String compression(int batch) {
    byte codec = layout(checkBatch(batch)).codec();
    return codec == BodyDecompression.NONE ? "NONE" : BodyDecompression.codecName(codec);
  }

  /** Buffers per record batch (every field's, in preorder): the count {@link #bufferRange} accepts. */
  public int bufferCount() {
    return layout.totalBuffers;
  }

  /**
   * Absolute file offset and length of buffer {@code buffer} (0 .. {@link #bufferCount()} - 1) of record
   * batch {@code batch}, as its metadata declares it (compressed bytes for a compressed batch). For tools
   * and tests that inspect or damage files.
   */
  public long[] bufferRange(int batch, int buffer) {
    checkBatch(batch);
    if (buffer < 0 || buffer >= layout.totalBuffers) {
      throw new InvalidArgumentException(
          "buffer " + buffer + " does not exist in " + location + ", whose batches have " + layout.totalBuffers
              + " buffers");
    }
    return new long[] {bodyOffsets[batch] + bufferOffset(batch, buffer), bufferLength(batch, buffer)};
  }

  /** Row offset (within the file) at which batch i starts. */
  public long batchStart(int batch) {
    return starts[checkBatch(batch)];
  }

  /**
   * Number of "atomic columns": non-struct fields whose ancestors are all structs, numbered in
   * depth-first preorder of the schema. A struct is never a column itself; list/large list/fixed-size
   * list/map are one atomic column each (with their children). Atomic columns are the unit of
   * projection because they are the smallest units whose buffers can be fetched independently.
   */
  public int atomicColumnCount() {
    return layout.atomicField.length;
  }

  /**
   * How many struct ancestors atomic column {@code i} has (0 for a top-level field): the depths {@link
   * DataFileReader#readStructValidity} and {@link PointReader.StructRows} accept for it are below this.
   */
  public int atomicColumnDepth(int i) {
    atomicColumnPath(i); // the one message for a bad index
    return layout.depth[layout.atomicField[i]];
  }

  /** Dotted name path of atomic column i, e.g. "s.x". */
  public String atomicColumnPath(int i) {
    if (i < 0 || i >= layout.atomicPath.length) {
      throw new InvalidArgumentException(
          "atomic column " + i + " does not exist in " + location + ", which has "
              + layout.atomicPath.length + " atomic columns (0.." + (layout.atomicPath.length - 1) + ")");
    }
    return layout.atomicPath[i];
  }

  /**
   * Sum of the body bytes of the buffers a projected read of these atomic columns must fetch (including
   * struct ancestors' validity buffers), across all batches. For tests and benchmarks.
   */
  public long projectedBodyBytes(int[] atomicColumns) {
    boolean[] selected = selectFields(atomicColumns);
    loadAll();
    long total = 0;
    for (int b = 0; b < rows.length; b++) {
      long[] buffers = layout(b).buffers();
      for (int f = 0; f < selected.length; f++) {
        if (selected[f]) {
          for (int k = 0; k < layout.bufferCount[f]; k++) {
            total += buffers[2 * (layout.bufferStart[f] + k) + 1];
          }
        }
      }
    }
    return total;
  }

  /** Estimated heap bytes of this object (for the cache weigher). */
  @Override
  public long estimatedBytes() {
    return baseBytes + loadedBytes.get();
  }

  @Override
  public String toString() {
    return "DataFileMetadata[" + location + ", " + fileSize + " bytes, " + rowCount + " rows in "
        + rows.length + " batches, " + atomicColumnCount() + " atomic columns]";
  }

  // ---- package-private access for the reader ----

  SchemaLayout layout() {
    return layout;
  }

  byte codec(int batch) {
    return layout(batch).codec();
  }

  long bodyOffset(int batch) {
    return bodyOffsets[batch];
  }

  long bodyLength(int batch) {
    return bodyLengths[batch];
  }

  long nodeLength(int batch, int field) {
    return layout(batch).nodes()[2 * field];
  }

  long nodeNullCount(int batch, int field) {
    return layout(batch).nodes()[2 * field + 1];
  }

  long bufferOffset(int batch, int buffer) {
    return layout(batch).buffers()[2 * buffer];
  }

  long bufferLength(int batch, int buffer) {
    return layout(batch).buffers()[2 * buffer + 1];
  }

  /** Offset of batch {@code batch}'s message in the file. */
  long metadataOffset(int batch) {
    return bodyOffsets[batch] - metadataLengths[batch];
  }

  int metadataLength(int batch) {
    return metadataLengths[batch];
  }

  boolean isLoaded(int batch) {
    return batches.get(batch) != null;
  }

  /**
   * The batches among {@code wanted} (valid indices) whose layout is not loaded yet, in the given order;
   * null when all are.
   */
  int[] unloaded(int[] wanted) {
    int missing = 0;
    for (int b : wanted) {
      if (batches.get(checkBatch(b)) == null) {
        missing++;
      }
    }
    if (missing == 0) {
      return null;
    }
    int[] out = new int[missing];
    int i = 0;
    for (int b : wanted) {
      if (batches.get(b) == null) {
        out[i++] = b;
      }
    }
    return out;
  }

  /**
   * Records a batch's loaded layout (checked by the loader, row count included); a layout loaded by a
   * concurrent reader first is kept (they are equal). Returns whether this call installed it.
   */
  boolean install(int batch, BatchLayout loaded) {
    if (batches.compareAndSet(batch, null, loaded)) {
      loadedBytes.addAndGet(loaded.estimatedBytes());
      return true;
    }
    return false;
  }

  /** Batch {@code batch}'s layout, loaded through the parsing reader when no reader loaded it yet. */
  private BatchLayout layout(int batch) {
    BatchLayout l = batches.get(batch);
    if (l == null) {
      loader.load(this, new int[] {checkBatch(batch)});
      l = batches.get(batch);
      if (l == null) {
        throw new IllegalStateException("record batch " + batch + " of " + location + " was not loaded");
      }
    }
    return l;
  }

  /** Loads every batch not loaded yet, in one coalesced fetch (for the accessors that span all batches). */
  private void loadAll() {
    int[] all = new int[rows.length];
    for (int b = 0; b < all.length; b++) {
      all[b] = b;
    }
    int[] missing = unloaded(all);
    if (missing != null) {
      loader.load(this, missing);
    }
  }

  int checkBatch(int batch) {
    if (batch < 0 || batch >= rows.length) {
      throw new InvalidArgumentException(
          "batch " + batch + " does not exist in " + location + ", which has " + rows.length + " batches"
              + (rows.length == 0 ? "" : " (0.." + (rows.length - 1) + ")"));
    }
    return batch;
  }

  /**
   * The preorder fields a projection must load: each atomic column's whole subtree plus its struct
   * ancestors.
   */
  boolean[] selectFields(int[] atomicColumns) {
    if (atomicColumns == null) {
      throw new InvalidArgumentException("atomicColumns must not be null; pass an empty array for none");
    }
    boolean[] selected = new boolean[layout.fieldCount()];
    int previous = -1;
    for (int c : atomicColumns) {
      if (c < 0 || c >= layout.atomicField.length) {
        throw new InvalidArgumentException(
            "atomic column " + c + " does not exist in " + location + ", which has "
                + layout.atomicField.length + " atomic columns; pass indices in 0.."
                + (layout.atomicField.length - 1));
      }
      if (c <= previous) {
        throw new InvalidArgumentException(
            "atomic columns must be ascending and distinct, but " + c + " follows " + previous
                + "; sort and deduplicate them");
      }
      previous = c;
      int f = layout.atomicField[c];
      for (int i = f; i < layout.subtreeEnd[f]; i++) {
        selected[i] = true;
      }
      for (int p = layout.parent[f]; p >= 0; p = layout.parent[p]) {
        selected[p] = true;
      }
    }
    return selected;
  }

  /** The file schema restricted to the selected preorder fields (struct ancestors keep only those). */
  Schema projectedSchema(boolean[] selected) {
    List<Field> top = new ArrayList<>();
    int[] cursor = {0};
    for (Field f : schema.getFields()) {
      Field p = project(f, selected, cursor);
      if (p != null) {
        top.add(p);
      }
    }
    return new Schema(top, schema.getCustomMetadata());
  }

  private static Field project(Field f, boolean[] selected, int[] cursor) {
    boolean me = selected[cursor[0]++];
    List<Field> children = new ArrayList<>();
    for (Field c : f.getChildren()) {
      Field p = project(c, selected, cursor);
      if (p != null) {
        children.add(p);
      }
    }
    return me ? new Field(f.getName(), f.getFieldType(), children) : null;
  }
}
