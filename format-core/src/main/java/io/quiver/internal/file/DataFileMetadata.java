package io.quiver.internal.file;

import io.quiver.exceptions.InvalidArgumentException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import io.quiver.internal.codec.StatsCodec;
import io.quiver.manifest.ColumnStats;
import io.quiver.manifest.FileStats;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Parsed, immutable metadata of one data file: footer, schema and every record batch's layout (field
 * nodes and buffer ranges). With it a reader can fetch any column of any batch with ranged reads and no
 * further metadata requests, so it is what {@link MetadataCache} holds. Safe to cache and share.
 *
 * <p>Every number in here was checked against the file size when parsed: buffer ranges lie inside their
 * batch's body, bodies lie inside the file, lengths fit in an {@code int}.
 */
public final class DataFileMetadata implements MetadataCache.Weighable {
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
  private final long[][] nodes; // per batch: length, nullCount per preorder field
  private final long[][] buffers; // per batch: offset (relative to body), length per buffer
  private final byte[] codecs; // per batch: Arrow CompressionType, or BodyDecompression.NONE
  private final long rowCount;
  private final long estimatedBytes;
  /** The footer's zone statistics as stored (base64), or null; decoded on first use. */
  private final String zoneStatsValue;
  private volatile Optional<List<FileStats>> zoneStats;
  /** The footer's frame table as stored (base64), or null; decoded on first use. */
  private final String framesValue;
  private volatile FrameTable frameTable;

  DataFileMetadata(
      String location,
      Schema schema,
      SchemaLayout layout,
      long fileSize,
      int formatMajor,
      int formatMinor,
      int[] rows,
      long[] bodyOffsets,
      long[] bodyLengths,
      long[][] nodes,
      long[][] buffers,
      byte[] codecs,
      String zoneStatsValue,
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
    this.bodyOffsets = bodyOffsets;
    this.bodyLengths = bodyLengths;
    this.nodes = nodes;
    this.buffers = buffers;
    this.codecs = codecs;
    this.starts = new long[rows.length];
    long total = 0;
    for (int i = 0; i < rows.length; i++) {
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
    est += 24L * rows.length * 2 + 32 + rows.length;
    for (int b = 0; b < rows.length; b++) {
      est += 32 + 8L * nodes[b].length + 8L * buffers[b].length;
    }
    // The frame table, decoded, takes about as much as its base64 text.
    this.estimatedBytes = est + (zoneStatsValue == null ? 0 : 2L * zoneStatsValue.length())
        + (framesValue == null ? 0 : 4L * framesValue.length());
  }

  /** This metadata with the footer's zone-statistics and frame-table values (null: none). */
  DataFileMetadata withFooterValues(String zoneStats, String frames) {
    return zoneStats == null && frames == null ? this : new DataFileMetadata(location, schema, layout, fileSize,
        formatMajor, formatMinor, rows, bodyOffsets, bodyLengths, nodes, buffers, codecs, zoneStats, frames);
  }

  /**
   * Where the frames of buffer {@code buffer} of batch {@code batch} are, from the footer's frame table
   * ({@link FrameTable}); null when the file has no table, the table does not parse, or its entry for the
   * buffer is missing or does not describe the buffer (a ZSTD buffer whose frames sum to its payload).
   */
  ZstdFrames.Index frames(int batch, int buffer) {
    if (framesValue == null || codecs[batch] != org.apache.arrow.flatbuf.CompressionType.ZSTD) {
      return null;
    }
    FrameTable t = frameTable;
    if (t == null) {
      t = FrameTable.parse(framesValue, rows.length, layout.totalBuffers);
      frameTable = t;
    }
    return t.frames(batch, buffer, bufferLength(batch, buffer) - 8);
  }

  /** Whether the footer carries a frame table (then no buffer of the file holds an in-buffer index). */
  boolean hasFrameTable() {
    return framesValue != null;
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
    return codecs[checkBatch(batch)] != BodyDecompression.NONE;
  }

  /** The codec of a compressed batch ("ZSTD", "LZ4_FRAME"), or "NONE". */
  public String compression(int batch) {
    byte codec = codecs[checkBatch(batch)];
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
    long total = 0;
    for (int b = 0; b < rows.length; b++) {
      for (int f = 0; f < selected.length; f++) {
        if (selected[f]) {
          for (int k = 0; k < layout.bufferCount[f]; k++) {
            total += buffers[b][2 * (layout.bufferStart[f] + k) + 1];
          }
        }
      }
    }
    return total;
  }

  /** Estimated heap bytes of this object (for the cache weigher). */
  @Override
  public long estimatedBytes() {
    return estimatedBytes;
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
    return codecs[batch];
  }

  long bodyOffset(int batch) {
    return bodyOffsets[batch];
  }

  long bodyLength(int batch) {
    return bodyLengths[batch];
  }

  long nodeLength(int batch, int field) {
    return nodes[batch][2 * field];
  }

  long nodeNullCount(int batch, int field) {
    return nodes[batch][2 * field + 1];
  }

  long bufferOffset(int batch, int buffer) {
    return buffers[batch][2 * buffer];
  }

  long bufferLength(int batch, int buffer) {
    return buffers[batch][2 * buffer + 1];
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
