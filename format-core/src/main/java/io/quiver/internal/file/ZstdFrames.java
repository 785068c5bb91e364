package io.quiver.internal.file;

import com.github.luben.zstd.Zstd;
import io.quiver.exceptions.QuiverException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * ZSTD buffers of Arrow IPC bodies as a run of independent frames, so that a point read decompresses only
 * the frames that hold the values it wants (docs/format.md §5.3).
 *
 * <p>Arrow IPC stores a ZSTD buffer as its 8-byte uncompressed length followed by "ZSTD data". The ZSTD
 * format (RFC 8878 §3.1) lets that data be several concatenated frames, and every ZSTD decoder,
 * {@code ZSTD_decompress} in Arrow C++ and zstd-jni in Arrow Java among them, decodes them back to back:
 * a framed buffer is an ordinary Arrow buffer to any reader. Quiver writes each buffer as frames of
 * {@link #FRAME_BYTES} uncompressed bytes, each declaring its content size; {@link #index} recovers the
 * frame boundaries from the frame headers alone, without decompressing anything.
 */
final class ZstdFrames {
  /**
   * Uncompressed bytes per frame: 1,024 int64 values. A take from a 10M-row table touches about one value
   * per 8,192-row batch, and decompresses one frame of a buffer instead of all eight of an int64 column
   * (benchmarks/RESULTS.md, "Point-read take"); the table grows by about a frame header per 8 KiB.
   */
  static final int FRAME_BYTES = 8 * 1024;

  private ZstdFrames() {}

  /**
   * {@code raw}'s readable bytes compressed at {@code level} as frames of {@link #FRAME_BYTES}, behind the
   * 8-byte uncompressed length. Empty input gives the 8-byte zero length, as Arrow's own codec does. The
   * caller keeps ownership of {@code raw}.
   */
  static ArrowBuf compress(BufferAllocator allocator, ArrowBuf raw, int level) {
    long length = raw.writerIndex();
    long prefix = CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;
    if (length == 0) {
      ArrowBuf out = allocator.buffer(prefix);
      out.setLong(0, 0);
      out.writerIndex(prefix);
      return out;
    }
    long frames = (length + FRAME_BYTES - 1) / FRAME_BYTES;
    long capacity = prefix + frames * Zstd.compressBound(FRAME_BYTES);
    ArrowBuf out = allocator.buffer(capacity);
    try {
      long written = prefix;
      for (long from = 0; from < length; from += FRAME_BYTES) {
        long n = Math.min(FRAME_BYTES, length - from);
        long got = Zstd.compressUnsafe(out.memoryAddress() + written, capacity - written,
            raw.memoryAddress() + from, n, level);
        if (Zstd.isError(got)) {
          throw new QuiverException("ZSTD compression of a " + n + "-byte frame failed: " + Zstd.getErrorName(got)
              + "; this is a bug in Quiver or zstd-jni, please report it");
        }
        written += got;
      }
      out.setLong(0, length);
      out.writerIndex(written);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  /** One frame of a framed buffer: where its compressed bytes lie in the payload and what it holds. */
  record Frame(int compressedStart, int compressedLength, long start, long length) {
    long end() {
      return start + length;
    }
  }

  /**
   * The frames of a ZSTD payload (the bytes after the length prefix), from their headers, or null when
   * the payload is not a run of frames that each declare their content size summing to {@code declared}
   * (a writer other than Quiver, or damage): the caller then decompresses the payload whole, which checks
   * everything.
   */
  static List<Frame> index(byte[] payload, int from, int length, long declared) {
    List<Frame> frames = new ArrayList<>();
    int pos = from;
    int end = from + length;
    long start = 0;
    while (pos < end) {
      long size;
      long content;
      try {
        size = Zstd.findFrameCompressedSize(payload, pos, end - pos);
        content = Zstd.getFrameContentSize(payload, pos, end - pos);
      } catch (RuntimeException e) {
        return null;
      }
      if (Zstd.isError(size) || size <= 0 || size > end - pos || content < 0
          || content > size * BodyDecompression.MAX_EXPANSION || start + content > declared) {
        return null; // errors, an unknown content size (negative), or more than the buffer declares
      }
      frames.add(new Frame(pos - from, (int) size, start, content));
      start += content;
      pos += (int) size;
    }
    return start == declared ? frames : null;
  }
}
