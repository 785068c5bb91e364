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
 * ZSTD buffers of Arrow IPC bodies as a run of independent frames, so that a point read fetches and
 * decompresses only the frames that hold the values it wants (docs/format.md §5.1).
 *
 * <p>Arrow IPC stores a ZSTD buffer as its 8-byte uncompressed length followed by "ZSTD data". The ZSTD
 * format (RFC 8878 §3.1) lets that data be several concatenated frames, and skippable frames among them
 * that decoders pass over; {@code ZSTD_decompress} in Arrow C++ and zstd-jni in Arrow Java decode such data
 * back to back. Quiver writes a buffer of more than {@code frameBytes} bytes as frames of {@code frameBytes}
 * uncompressed bytes (the last shorter; {@link FileCompression#frameBytes}, {@link #FRAME_BYTES} unless the
 * table sets {@code write.compression.frame-bytes}), and lists every compressed buffer's frames, with the
 * file's frame size, in the file footer's frame table ({@link FrameTable}), so a reader knows where the
 * frames are before it reads the buffer. Files written between the first framed build and the frame table (format 1.1 as well) carry
 * the list inside the buffer instead: a skippable frame holding an index (magic {@link #INDEX_MAGIC}, tag
 * {@link #INDEX_TAG}, the frame size, the frame count and each frame's compressed size, all 32-bit
 * little-endian) before the frames; {@link #index} reads it.
 */
final class ZstdFrames {
  /**
   * Default uncompressed bytes per frame, what a writer uses when the table does not set {@code
   * write.compression.frame-bytes} ({@link FileCompression#frameBytes}): 128 int64 values. A take from a
   * 10M-row table touches about one value per 8,192-row batch, and decompressing its frames is most of a
   * take's cost: 1 KiB frames took 0.64× the CPU time of 4 KiB frames for a 1,000-row take, for a table 0.19%
   * larger (benchmarks/RESULTS.md, "Point-read take"). Larger frames compress faster (ZSTD level 1 through
   * one context, measured for issue 20: 79-92 MB/s of CPU with 1 KiB frames, 154-180 MB/s with 4 KiB), which
   * is why {@code quiver import} creates its tables with 4 KiB frames. The frame size is the writer's choice, recorded per file in
   * the frame table: readers take it from there, not from this constant.
   */
  static final int FRAME_BYTES = 1024;
  /** Magic of the skippable frame holding the index (one of the 16 the ZSTD format reserves). */
  static final int INDEX_MAGIC = 0x184D2A5E;
  /** First four bytes of the index's content: "QZF1". */
  static final int INDEX_TAG = 0x31465A51;
  /** Most frames an in-buffer index may list (files of the first framed build): more were not indexed. */
  static final int MAX_INDEXED_FRAMES = 254;
  /** Bytes a reader reads ahead of a compressed buffer's payload to find a whole in-buffer index. */
  static final int INDEX_PEEK = 8 + 12 + 4 * MAX_INDEXED_FRAMES;
  /** Largest frame size an index or frame table may declare (a bound on what hostile input can make a reader allocate). */
  static final int MAX_FRAME_BYTES = 1 << 20;

  private ZstdFrames() {}

  /** A compressed buffer and its frames' compressed sizes (one entry for a single frame; none if empty). */
  record Packed(ArrowBuf buf, long declared, int[] frameSizes) {}

  /**
   * {@code raw}'s readable bytes compressed at {@code level} behind the 8-byte uncompressed length, as
   * frames of {@code frameBytes} uncompressed bytes. Empty input gives the 8-byte zero length, as Arrow's
   * own codec does. The caller keeps ownership of {@code raw} and takes ownership of the result's buffer. A
   * writer compressing many buffers uses a {@link Compressor} instead, which keeps its ZSTD context from one
   * frame to the next.
   */
  static Packed compress(BufferAllocator allocator, ArrowBuf raw, int level, int frameBytes) {
    try (Compressor compressor = new Compressor(level, frameBytes)) {
      return compressor.compress(allocator, raw);
    }
  }

  /**
   * Compresses buffers as {@link ZstdFrames#compress} does, byte for byte, through one ZSTD context reused
   * for every frame: a context made per frame (what {@code Zstd.compress} does) costs about a fifth of the
   * time of compressing a 4 KiB frame at level 1. Not thread-safe; {@link #close} frees its native memory.
   */
  static final class Compressor implements AutoCloseable {
    /** Uncompressed bytes a probing compressor judges a buffer by before it compresses the rest. */
    static final long PROBE_BYTES = 64 * 1024;
    private final ZstdCompressCtx ctx;
    private final int frameBytes;
    /** The savings the probe needs (half the table's minimum), or negative for no probe. */
    private final double probeSavings;

    /** A context compressing at {@code level} into frames of {@code frameBytes} (1 to {@link #MAX_FRAME_BYTES}). */
    Compressor(int level, int frameBytes) {
      this(level, frameBytes, -1);
    }

    /**
     * A compressor that gives up on a buffer of more than twice {@link #PROBE_BYTES} whose first {@link
     * #PROBE_BYTES} save less than {@code minSavings / 2} of their bytes ({@link #compress} then returns null: the
     * buffer is to be stored raw), so that incompressible data (random floats, embeddings) costs a probe rather
     * than a full compression that is thrown away. Deterministic: the same bytes give the same decision.
     */
    Compressor(int level, int frameBytes, double minSavings) {
      if (frameBytes < 1 || frameBytes > MAX_FRAME_BYTES) {
        throw new IllegalArgumentException("frame bytes " + frameBytes + " out of range 1.." + MAX_FRAME_BYTES);
      }
      this.frameBytes = frameBytes;
      this.probeSavings = minSavings < 0 ? -1 : minSavings / 2;
      ctx = new ZstdCompressCtx();
      ctx.setLevel(level);
    }

    /**
     * {@code raw}'s readable bytes framed and compressed (see {@link ZstdFrames#compress}); null when this
     * compressor probes and the probe says the buffer saves too little.
     */
    Packed compress(BufferAllocator allocator, ArrowBuf raw) {
      long length = raw.writerIndex();
      long prefix = CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;
      if (length == 0) {
        ArrowBuf out = allocator.buffer(prefix);
        out.setLong(0, 0);
        out.writerIndex(prefix);
        return new Packed(out, 0, new int[0]);
      }
      int count = Math.toIntExact((length + frameBytes - 1) / frameBytes);
      long capacity = prefix + count * Zstd.compressBound(Math.min(frameBytes, length));
      ArrowBuf out = allocator.buffer(capacity);
      int[] sizes = new int[count];
      boolean probing = probeSavings >= 0 && length > 2 * PROBE_BYTES;
      try {
        long written = prefix;
        for (int f = 0; f < count; f++) {
          if (probing && (long) f * frameBytes >= PROBE_BYTES) {
            probing = false;
            long probed = (long) f * frameBytes;
            if (written - prefix > probed * (1 - probeSavings)) {
              out.close();
              return null;
            }
          }
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
          sizes[f] = got;
          written += got;
        }
        out.setLong(0, length);
        out.writerIndex(written);
        return new Packed(out, length, sizes);
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
   * The frames of a buffer declaring {@code declared} uncompressed bytes whose payload (the bytes after
   * the length) is {@code payload} bytes of frames of {@code frameBytes} with compressed sizes {@code
   * sizes}, starting {@code first} bytes into the payload; null when they cannot describe it (the sizes do
   * not sum to the payload, the declared length needs another count of frames, a frame would expand more
   * than {@link BodyDecompression#MAX_EXPANSION} times, a frame size out of range).
   */
  static Index frames(int frameBytes, long declared, long payload, long first, long[] sizes) {
    int count = sizes.length;
    if (count < 1 || frameBytes < 1 || frameBytes > MAX_FRAME_BYTES
        || declared <= (long) (count - 1) * frameBytes || declared > (long) count * frameBytes) {
      return null;
    }
    long[] starts = new long[count + 1];
    starts[0] = first;
    for (int f = 0; f < count; f++) {
      long content = Math.min(frameBytes, declared - (long) f * frameBytes);
      if (sizes[f] <= 0 || content > sizes[f] * BodyDecompression.MAX_EXPANSION) {
        return null;
      }
      starts[f + 1] = starts[f] + sizes[f];
    }
    return starts[count] == payload ? new Index(frameBytes, declared, starts) : null;
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
    if (count < 2) {
      return null;
    }
    long[] sizes = new long[count];
    for (int f = 0; f < count; f++) {
      sizes[f] = b.getInt(28 + 4 * f) & 0xffffffffL;
    }
    return frames(frameBytes, declared, payload, 8 + frameSize, sizes); // the frames follow the index frame
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
