package io.quiver.internal.file;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdException;
import io.quiver.exceptions.QuiverException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * ZSTD buffers of Arrow IPC bodies as a run of independent frames behind a frame index, so that a point
 * read fetches and decompresses only the frames that hold the values it wants (docs/format.md §5.1).
 *
 * <p>Arrow IPC stores a ZSTD buffer as its 8-byte uncompressed length followed by "ZSTD data". The ZSTD
 * format (RFC 8878 §3.1) lets that data be several concatenated frames, and skippable frames among them
 * that decoders pass over; {@code ZSTD_decompress} in Arrow C++ and zstd-jni in Arrow Java decode such data
 * back to back. Quiver writes a buffer of more than {@link #FRAME_BYTES} bytes as one skippable frame
 * holding the index (magic {@link #INDEX_MAGIC}, then tag {@link #INDEX_TAG}, the frame size, the frame
 * count and each frame's compressed size, all 32-bit little-endian) followed by frames of {@link
 * #FRAME_BYTES} uncompressed bytes (the last shorter). A smaller buffer is one ordinary frame.
 */
final class ZstdFrames {
  /**
   * Uncompressed bytes per frame: 512 int64 values. A take from a 10M-row table touches about one value per
   * 8,192-row batch, and fetches and decompresses one frame of a buffer instead of all sixteen of an int64
   * column; tables grow by under 0.1% (benchmarks/RESULTS.md, "Point-read take", 4 KiB against 8 KiB).
   */
  static final int FRAME_BYTES = 4 * 1024;
  /** Magic of the skippable frame holding the index (one of the 16 the ZSTD format reserves). */
  static final int INDEX_MAGIC = 0x184D2A5E;
  /** First four bytes of the index's content: "QZF1". */
  static final int INDEX_TAG = 0x31465A51;
  /** Most frames an index may list: more makes a reader decompress the buffer whole. */
  static final int MAX_INDEXED_FRAMES = 254;
  /** Bytes a reader reads ahead of a compressed buffer's payload to find a whole index of that many frames. */
  static final int INDEX_PEEK = 8 + 12 + 4 * MAX_INDEXED_FRAMES;
  /** Largest frame size an index may declare (a bound on what a hostile index can make a reader allocate). */
  static final int MAX_FRAME_BYTES = 1 << 20;

  private ZstdFrames() {}

  /**
   * {@code raw}'s readable bytes compressed at {@code level} behind the 8-byte uncompressed length: framed
   * with an index when longer than {@link #FRAME_BYTES}, one frame otherwise. Empty input gives the 8-byte
   * zero length, as Arrow's own codec does. The caller keeps ownership of {@code raw}. A writer compressing
   * many buffers uses a {@link Compressor} instead, which keeps its ZSTD context from one frame to the next.
   */
  static ArrowBuf compress(BufferAllocator allocator, ArrowBuf raw, int level) {
    try (Compressor compressor = new Compressor(level)) {
      return compressor.compress(allocator, raw);
    }
  }

  /**
   * Compresses buffers as {@link ZstdFrames#compress} does, byte for byte, through one ZSTD context reused
   * for every frame: a context made per frame (what {@code Zstd.compress} does) costs about a fifth of the
   * time of compressing a 4 KiB frame at level 1. Not thread-safe; {@link #close} frees its native memory.
   */
  static final class Compressor implements AutoCloseable {
    private final ZstdCompressCtx ctx;

    Compressor(int level) {
      ctx = new ZstdCompressCtx();
      ctx.setLevel(level);
    }

    /** {@code raw}'s readable bytes framed and compressed (see {@link ZstdFrames#compress}). */
    ArrowBuf compress(BufferAllocator allocator, ArrowBuf raw) {
      long length = raw.writerIndex();
      long prefix = CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;
      if (length == 0) {
        ArrowBuf out = allocator.buffer(prefix);
        out.setLong(0, 0);
        out.writerIndex(prefix);
        return out;
      }
      int frames = (int) Math.min(Integer.MAX_VALUE, (length + FRAME_BYTES - 1) / FRAME_BYTES);
      boolean indexed = frames > 1 && frames <= MAX_INDEXED_FRAMES;
      int frameBytes = indexed ? FRAME_BYTES : (int) Math.min(length, Integer.MAX_VALUE);
      int count = indexed ? frames : 1;
      long index = indexed ? 8 + 12 + 4L * count : 0;
      long capacity = prefix + index + count * Zstd.compressBound(frameBytes);
      ArrowBuf out = allocator.buffer(capacity);
      try {
        long written = prefix + index;
        for (int f = 0; f < count; f++) {
          long from = (long) f * frameBytes;
          int n = (int) Math.min(frameBytes, length - from);
          int room = (int) Math.min(capacity - written, Integer.MAX_VALUE);
          int got;
          try {
            got = ctx.compressDirectByteBuffer(out.nioBuffer(written, room), 0, room, raw.nioBuffer(from, n), 0, n);
          } catch (ZstdException e) {
            throw new QuiverException("ZSTD compression of a " + n + "-byte frame failed: " + e.getMessage()
                + "; this is a bug in Quiver or zstd-jni, please report it", e);
          }
          if (indexed) {
            out.setInt(prefix + 20 + 4L * f, got);
          }
          written += got;
        }
        out.setLong(0, length);
        if (indexed) {
          out.setInt(prefix, INDEX_MAGIC);
          out.setInt(prefix + 4, 12 + 4 * count);
          out.setInt(prefix + 8, INDEX_TAG);
          out.setInt(prefix + 12, frameBytes);
          out.setInt(prefix + 16, count);
        }
        out.writerIndex(written);
        return out;
      } catch (RuntimeException e) {
        out.close();
        throw e;
      }
    }

    @Override
    public void close() {
      ctx.close();
    }
  }

  /**
   * The frame index of a compressed buffer, or null when there is none that describes the buffer exactly.
   *
   * @param head the buffer's first bytes, from its 8-byte length on (at most {@link #INDEX_PEEK} + 8)
   * @param declared the uncompressed length the buffer declares (positive)
   * @param payload the buffer's bytes after the length
   */
  static Index index(byte[] head, long declared, long payload) {
    if (head.length < 8 + 20) {
      return null;
    }
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(head).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    if (b.getInt(8) != INDEX_MAGIC || b.getInt(16) != INDEX_TAG) {
      return null;
    }
    long frameSize = b.getInt(12) & 0xffffffffL;
    int frameBytes = b.getInt(20);
    int count = b.getInt(24);
    if (count < 2 || count > MAX_INDEXED_FRAMES || frameSize != 12 + 4L * count || head.length < 8 + 8 + frameSize
        || frameBytes < 1 || frameBytes > MAX_FRAME_BYTES
        || declared <= (long) (count - 1) * frameBytes || declared > (long) count * frameBytes) {
      return null;
    }
    long[] starts = new long[count + 1];
    starts[0] = 8 + frameSize; // payload offsets, after the index frame
    for (int f = 0; f < count; f++) {
      long size = b.getInt(28 + 4 * f) & 0xffffffffL;
      long content = Math.min(frameBytes, declared - (long) f * frameBytes);
      if (size == 0 || content > size * BodyDecompression.MAX_EXPANSION) {
        return null;
      }
      starts[f + 1] = starts[f] + size;
    }
    return starts[count] == payload ? new Index(frameBytes, declared, starts) : null;
  }

  /**
   * A buffer's frames: frame {@code f} holds uncompressed bytes {@code [f × frameBytes, …)} and its
   * compressed bytes are payload bytes {@code [starts[f], starts[f + 1])}.
   */
  record Index(int frameBytes, long declared, long[] starts) {
    int count() {
      return starts.length - 1;
    }

    long start(int f) {
      return (long) f * frameBytes;
    }

    long length(int f) {
      return Math.min(frameBytes, declared - start(f));
    }
  }
}
