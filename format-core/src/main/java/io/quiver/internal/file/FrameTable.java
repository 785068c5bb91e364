package io.quiver.internal.file;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * The frame table of a data file's footer (docs/format.md §5.1, footer key {@link #KEY}): for every record
 * batch, the ZSTD buffers kept compressed, each with its declared (uncompressed) length and its frames'
 * compressed sizes, so that a point read fetches the frames holding its rows without first reading the
 * buffer. Advisory, like the zone statistics: a table that does not parse is ignored as a whole, and an
 * entry that does not describe its buffer exactly (checked against the batch's metadata when it is looked
 * up) is ignored for that buffer; the reader then reads the buffer's length prefix as files without a table.
 *
 * <p>Encoding (then base64): byte 1 (the table's version), varint frame bytes, varint batch count; per
 * batch a varint entry count, then per entry: varint (buffer index − previous entry's index − 1, the first
 * against −1), varint declared length, varint frame count, one varint compressed size per frame. Varints
 * are unsigned LEB128.
 */
final class FrameTable {
  /** Footer custom-metadata key. */
  static final String KEY = "quiver.zstd_frames";
  private static final int VERSION = 1;
  /** Absent, or not parseable: no buffer has known frames. */
  static final FrameTable NONE = new FrameTable(0, new int[0][], new long[0][], new long[0][][]);

  private final int frameBytes;
  private final int[][] buffers; // per batch: buffer indices, ascending
  private final long[][] declared;
  /**
   * Per batch and entry: where each frame starts in the payload (count + 1 prefix sums of the compressed sizes),
   * or null when the sizes cannot describe any buffer (a count the declared length does not need, a frame that
   * would expand more than the bound): checked once here, so a point read's lookup costs no walk over the frames.
   */
  private final long[][][] starts;

  private FrameTable(int frameBytes, int[][] buffers, long[][] declared, long[][][] starts) {
    this.frameBytes = frameBytes;
    this.buffers = buffers;
    this.declared = declared;
    this.starts = starts;
  }

  /**
   * The frames of buffer {@code buffer} of batch {@code batch}, whose payload (after the 8-byte length) is
   * {@code payload} bytes; null when the table has no entry for it or the entry does not describe it.
   */
  ZstdFrames.Index frames(int batch, int buffer, long payload) {
    if (batch < 0 || batch >= buffers.length) {
      return null;
    }
    int k = Arrays.binarySearch(buffers[batch], buffer);
    if (k < 0 || starts[batch][k] == null) {
      return null;
    }
    long[] at = starts[batch][k];
    return at[at.length - 1] == payload ? new ZstdFrames.Index(frameBytes, declared[batch][k], at) : null;
  }

  /**
   * Parses a footer value for a file of {@code batchCount} batches and {@code bufferCount} buffers per
   * batch; {@link #NONE} when null or malformed (another version, a count that cannot fit, trailing bytes).
   */
  static FrameTable parse(String value, int batchCount, int bufferCount) {
    if (value == null) {
      return NONE;
    }
    try {
      Reader in = new Reader(Base64.getDecoder().decode(value));
      if (in.next() != VERSION) {
        return NONE;
      }
      int frameBytes = in.count(ZstdFrames.MAX_FRAME_BYTES);
      if (in.count(Integer.MAX_VALUE) != batchCount) {
        return NONE;
      }
      int[][] buffers = new int[batchCount][];
      long[][] declared = new long[batchCount][];
      long[][][] starts = new long[batchCount][][];
      for (int b = 0; b < batchCount; b++) {
        int entries = in.count(bufferCount);
        buffers[b] = new int[entries];
        declared[b] = new long[entries];
        starts[b] = new long[entries][];
        long previous = -1;
        for (int e = 0; e < entries; e++) {
          long index = previous + 1 + in.varint();
          if (index >= bufferCount) {
            return NONE;
          }
          buffers[b][e] = (int) index;
          previous = index;
          declared[b][e] = in.varint();
          int frames = in.count(in.remaining()); // every size takes at least one byte
          long[] sizes = new long[frames];
          for (int f = 0; f < frames; f++) {
            sizes[f] = in.varint();
          }
          ZstdFrames.Index valid = frameBytes < 1 ? null
              : ZstdFrames.frames(frameBytes, declared[b][e], sum(sizes), 0, sizes);
          starts[b][e] = valid == null ? null : valid.starts();
        }
      }
      return in.remaining() == 0 ? new FrameTable(frameBytes, buffers, declared, starts) : NONE;
    } catch (IllegalArgumentException e) { // bad base64, a varint past the end or too long
      return NONE;
    }
  }

  private static long sum(long[] sizes) {
    long total = 0;
    for (long size : sizes) {
      total += size;
      if (total < 0) {
        return Long.MAX_VALUE; // sizes that overflow describe no buffer
      }
    }
    return total;
  }

  /** How many buffers of batch {@code batch} the table lists (0 for a batch past the table's). */
  int entries(int batch) {
    return batch < 0 || batch >= buffers.length ? 0 : buffers[batch].length;
  }

  /** Whether the table has an entry for buffer {@code buffer} of batch {@code batch}. */
  boolean lists(int batch, int buffer) {
    return entries(batch) > 0 && Arrays.binarySearch(buffers[batch], buffer) >= 0;
  }

  /** Bytes this table holds in memory, for the metadata cache's weight. */
  long estimatedBytes() {
    long est = 64;
    for (int b = 0; b < buffers.length; b++) {
      est += 64 + 12L * buffers[b].length;
      for (long[] s : starts[b]) {
        est += 16 + (s == null ? 0 : 8L * s.length);
      }
    }
    return est;
  }

  /** Collects a file's frame table while it is written, batch by batch. */
  static final class Builder {
    private final int frameBytes;
    private final List<long[]> batch = new ArrayList<>();
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private int batches;
    private boolean any;

    /** The table of a file whose buffers are frames of {@code frameBytes} uncompressed bytes. */
    Builder(int frameBytes) {
      this.frameBytes = frameBytes;
    }

    /** Records that buffer {@code index} of the batch being written is stored compressed as {@code packed}. */
    void add(int index, ZstdFrames.Packed packed) {
      if (packed.declared() > 0) {
        long[] entry = new long[2 + packed.frameSizes().length];
        entry[0] = index;
        entry[1] = packed.declared();
        for (int f = 0; f < packed.frameSizes().length; f++) {
          entry[2 + f] = packed.frameSizes()[f];
        }
        batch.add(entry);
        any = true;
      }
    }

    /** Ends the batch being written (every batch of the file, compressed or not, is ended once). */
    void endBatch() {
      writeVarint(body, batch.size());
      long previous = -1;
      for (long[] e : batch) {
        writeVarint(body, e[0] - previous - 1);
        previous = e[0];
        writeVarint(body, e[1]);
        writeVarint(body, e.length - 2);
        for (int f = 2; f < e.length; f++) {
          writeVarint(body, e[f]);
        }
      }
      batch.clear();
      batches++;
    }

    /** The footer value, or null when no buffer of the file is compressed. */
    String value() {
      if (!any) {
        return null;
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write(VERSION);
      writeVarint(out, frameBytes);
      writeVarint(out, batches);
      out.writeBytes(body.toByteArray());
      return Base64.getEncoder().encodeToString(out.toByteArray());
    }
  }

  private static void writeVarint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  /** Reads unsigned LEB128 varints, throwing IllegalArgumentException past the end or beyond 63 bits. */
  private static final class Reader {
    private final byte[] bytes;
    private int pos;

    Reader(byte[] bytes) {
      this.bytes = bytes;
    }

    int remaining() {
      return bytes.length - pos;
    }

    int next() {
      if (pos >= bytes.length) {
        throw new IllegalArgumentException("end of table");
      }
      return bytes[pos++] & 0xFF;
    }

    long varint() {
      long v = 0;
      for (int shift = 0; shift < 63; shift += 7) {
        int b = next();
        v |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          return v;
        }
      }
      throw new IllegalArgumentException("varint too long");
    }

    /** A varint that must lie in [0, max]. */
    int count(int max) {
      long v = varint();
      if (v > max) {
        throw new IllegalArgumentException("count " + v + " above " + max);
      }
      return (int) v;
    }
  }
}
