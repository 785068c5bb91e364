package io.quiver.internal.file;

import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import io.quiver.exceptions.CorruptFileException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flatbuf.CompressionType;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BufferLayout;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.commons.compress.compressors.lz4.FramedLZ4CompressorInputStream;

/**
 * Decompression of Arrow IPC compressed record batch bodies (ZSTD and LZ4_FRAME, method BUFFER), with the
 * declared uncompressed length of every buffer treated as hostile input.
 *
 * <p>Each compressed buffer starts with an 8-byte little-endian uncompressed length; -1 marks a buffer
 * stored uncompressed, 0 an empty one. Before anything is allocated the length is checked against what
 * the batch can hold ({@link #bound}): a validity bitmap ceil(n/8) bytes, offsets (n+1) × width, fixed-width
 * values n × width, variable-width values the last offset (read from the already decompressed offsets);
 * each rounded up to a multiple of {@link #PADDING} (writers may pad buffers) and never more than
 * {@link #MAX_BUFFER_BYTES}. It must also be reachable from the compressed bytes: no ZSTD or LZ4 frame
 * expands more than {@link #MAX_EXPANSION} times. The decompressed size must then equal the declared one.
 * Any violation is a {@link CorruptFileException} naming the file, the batch and the buffer.
 */
final class BodyDecompression {
  /** Codec byte of an uncompressed batch (Arrow's codecs are 0 and 1). */
  static final byte NONE = -1;
  /** Writers may pad buffers to this many bytes (the Arrow format's recommended alignment). */
  static final int PADDING = 64;
  /** The largest decompressed buffer: Arrow Java indexes NIO views of a buffer with an int. */
  static final long MAX_BUFFER_BYTES = Integer.MAX_VALUE - PADDING;
  /**
   * Upper bound of any ZSTD or LZ4 frame's expansion: ZSTD's densest block (RLE) turns 4 bytes into at
   * most 128 KiB (32,768×), LZ4 at most about 255×; doubled for headroom.
   */
  static final long MAX_EXPANSION = 1L << 16;
  private static final int LENGTH_PREFIX = 8;
  /**
   * ZSTD decompression contexts kept for reuse: creating one per buffer (what zstd-jni's static calls do) was 15%
   * of a compressed projected scan's native time. At most {@link #POOLED} are kept (about 100 KB of native memory
   * each, for the life of the JVM); a context that failed is closed, not kept.
   */
  private static final ConcurrentLinkedQueue<ZstdDecompressCtx> CONTEXTS = new ConcurrentLinkedQueue<>();
  private static final AtomicInteger KEPT = new AtomicInteger();
  static final int POOLED = Math.max(2, 2 * Runtime.getRuntime().availableProcessors());

  private BodyDecompression() {}

  private static ZstdDecompressCtx borrowContext() {
    ZstdDecompressCtx ctx = CONTEXTS.poll();
    if (ctx == null) {
      return new ZstdDecompressCtx();
    }
    KEPT.decrementAndGet();
    return ctx;
  }

  private static void returnContext(ZstdDecompressCtx ctx) {
    if (KEPT.incrementAndGet() <= POOLED) {
      CONTEXTS.offer(ctx);
    } else {
      KEPT.decrementAndGet();
      ctx.close();
    }
  }

  /** Name of a codec byte, for messages. */
  static String codecName(byte codec) {
    return codec == CompressionType.ZSTD ? "ZSTD" : codec == CompressionType.LZ4_FRAME ? "LZ4_FRAME" : "codec " + codec;
  }

  /**
   * Decompresses the fetched buffers of one batch in place in {@code buffers} (same order: the selected
   * fields' buffers in preorder). New buffers are added to {@code owned}, which the caller closes; raw
   * and empty buffers are slices of what was fetched.
   */
  static void decompressAll(
      byte codec,
      SchemaLayout layout,
      boolean[] selected,
      List<ArrowFieldNode> nodes,
      List<ArrowBuf> buffers,
      BufferAllocator allocator,
      List<ArrowBuf> owned,
      Where where) {
    int node = 0;
    int index = 0;
    for (int f = 0; f < selected.length; f++) {
      if (!selected[f]) {
        continue;
      }
      long len = nodes.get(node++).getLength();
      long lastOffset = -1;
      List<BufferLayout> kinds = TypeLayout.getTypeLayout(layout.fields[f].getType()).getBufferLayouts();
      for (int k = 0; k < kinds.size(); k++) {
        BufferLayout bl = kinds.get(k);
        long bound = bound(bl, len, lastOffset);
        Where buffer = where.buffer(layout.bufferStart[f] + k, layout.path(f), bl.getType());
        ArrowBuf out = decompress(codec, buffers.get(index), bound, allocator, owned, buffer);
        buffers.set(index++, out);
        if (bl.getType() == BufferLayout.BufferType.OFFSET) {
          lastOffset = lastOffset(out, len, bl.getTypeBitWidth() / 8);
        } else if (bl.getType() == BufferLayout.BufferType.DATA) {
          lastOffset = -1;
        }
      }
    }
  }

  /**
   * The most bytes a buffer of this kind can need for {@code len} values: see the class comment.
   * {@code lastOffset} is the last offset of the field's offsets (variable-width data), else -1.
   */
  static long bound(BufferLayout layout, long len, long lastOffset) {
    long need;
    switch (layout.getType()) {
      case VALIDITY -> need = (len + 7) / 8;
      case OFFSET -> need = (len + 1) * (layout.getTypeBitWidth() / 8);
      case DATA -> need = lastOffset >= 0 ? lastOffset : (len * layout.getTypeBitWidth() + 7) / 8;
      default -> need = 0;
    }
    if (need < 0 || need > MAX_BUFFER_BYTES) {
      return MAX_BUFFER_BYTES;
    }
    return Math.min(MAX_BUFFER_BYTES, (need + PADDING - 1) / PADDING * PADDING);
  }

  /** The offset at index len, when the buffer holds it (else 0: the structural check reports it later). */
  private static long lastOffset(ArrowBuf offsets, long len, int width) {
    if (offsets.capacity() < (len + 1) * width) {
      return 0;
    }
    long last = width == 4 ? offsets.getInt(len * 4) : offsets.getLong(len * 8);
    return Math.max(0, last);
  }

  /**
   * One compressed buffer ({@code in}: 8-byte length then payload) as an uncompressed buffer of at most
   * {@code bound} bytes. A zero-length {@code in} is an absent buffer and stays empty.
   */
  static ArrowBuf decompress(
      byte codec, ArrowBuf in, long bound, BufferAllocator allocator, List<ArrowBuf> owned, Where where) {
    long size = in.capacity();
    if (size == 0) {
      return in;
    }
    if (size < LENGTH_PREFIX) {
      throw where.corrupt("is " + size + " bytes, shorter than its 8-byte uncompressed length");
    }
    long declared = in.getLong(0);
    long payload = size - LENGTH_PREFIX;
    if (declared == -1) {
      if (payload > bound) {
        throw where.corrupt("stores " + payload + " uncompressed bytes, more than the " + bound + " it can need");
      }
      return in.slice(LENGTH_PREFIX, payload);
    }
    checkDeclared(declared, payload, bound, codec, where);
    if (declared == 0) {
      return allocator.getEmpty();
    }
    ArrowBuf out = allocator.buffer(declared);
    owned.add(out);
    decode(codec, in.nioBuffer(LENGTH_PREFIX, (int) payload), out.nioBuffer(0, (int) declared), where);
    out.writerIndex(declared);
    return out;
  }

  /** Heap variant for small buffers (a struct's validity): the payload after the 8-byte length. */
  static byte[] decompress(byte codec, byte[] in, long bound, Where where) {
    if (in.length < LENGTH_PREFIX) {
      throw where.corrupt("is " + in.length + " bytes, shorter than its 8-byte uncompressed length");
    }
    ByteBuffer all = ByteBuffer.wrap(in).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    long declared = all.getLong(0);
    int payload = in.length - LENGTH_PREFIX;
    if (declared == -1) {
      return java.util.Arrays.copyOfRange(in, LENGTH_PREFIX, in.length);
    }
    checkDeclared(declared, payload, bound, codec, where);
    ByteBuffer src = ByteBuffer.allocateDirect(payload).put(in, LENGTH_PREFIX, payload).flip();
    ByteBuffer dst = ByteBuffer.allocateDirect((int) declared);
    decode(codec, src, dst, where);
    byte[] out = new byte[(int) declared];
    dst.get(0, out);
    return out;
  }

  static void checkDeclared(long declared, long payload, long bound, byte codec, Where where) {
    if (declared < 0 || declared > bound) {
      throw where.corrupt(
          "declares " + declared + " uncompressed bytes, but at most " + bound + " fit the batch's values");
    }
    if (declared > payload * MAX_EXPANSION) {
      throw where.corrupt(
          "declares " + declared + " uncompressed bytes from " + payload + " compressed bytes; no "
              + codecName(codec) + " frame expands that much");
    }
  }

  /** Decompresses {@code src} into exactly {@code dst.capacity()} bytes (both from position 0). */
  private static void decode(byte codec, ByteBuffer src, ByteBuffer dst, Where where) {
    int want = dst.capacity();
    if (codec == CompressionType.ZSTD) {
      if (!src.isDirect() || !dst.isDirect()) {
        throw new IllegalStateException("ZSTD decompression needs direct buffers");
      }
      long got;
      ZstdDecompressCtx ctx = borrowContext();
      boolean reusable = false;
      try {
        got = ctx.decompressDirectByteBuffer(dst, 0, want, src, 0, src.remaining());
        reusable = true;
      } catch (ZstdException e) {
        throw where.corrupt("does not decompress as ZSTD (" + e.getMessage() + ")");
      } catch (RuntimeException e) {
        throw where.corrupt("does not decompress as ZSTD into the " + want + " bytes it declares (" + e.getMessage()
            + ")");
      } finally {
        if (reusable) {
          returnContext(ctx);
        } else {
          ctx.close();
        }
      }
      if (got != want) {
        throw where.corrupt("decompresses to " + got + " bytes, but declares " + want);
      }
    } else if (codec == CompressionType.LZ4_FRAME) {
      byte[] compressed = new byte[src.remaining()];
      src.get(0, compressed);
      try (InputStream lz4 = new FramedLZ4CompressorInputStream(new ByteArrayInputStream(compressed))) {
        byte[] chunk = new byte[(int) Math.min(want, 64 * 1024)];
        int done = 0;
        while (done < want) {
          int read = lz4.read(chunk, 0, Math.min(chunk.length, want - done));
          if (read < 0) {
            throw where.corrupt("decompresses to " + done + " bytes, but declares " + want);
          }
          dst.put(done, chunk, 0, read);
          done += read;
        }
        if (lz4.read() >= 0) {
          throw where.corrupt("decompresses to more than the " + want + " bytes it declares");
        }
      } catch (IOException | RuntimeException e) {
        if (e instanceof CorruptFileException c) {
          throw c;
        }
        throw where.corrupt("does not decompress as an LZ4 frame (" + e.getMessage() + ")");
      }
    } else {
      throw where.corrupt("uses " + codecName(codec) + ", which this reader does not know");
    }
  }

  /** Where a buffer is, for messages: file, batch, buffer index, field and kind. */
  record Where(String location, int batch, int index, String field, BufferLayout.BufferType kind) {
    static Where batch(String location, int batch) {
      return new Where(location, batch, -1, null, null);
    }

    /** The same batch's buffer {@code index}; its description is built only if it is reported. */
    Where buffer(int index, String field, BufferLayout.BufferType kind) {
      return new Where(location, batch, index, field, kind);
    }

    CorruptFileException corrupt(String detail) {
      String buffer = index < 0 ? "" : "buffer " + index + " (" + kind.getName() + " of field '" + field + "') ";
      return new CorruptFileException(
          location, "record batch " + batch + " " + buffer + detail + "; the file is damaged, rewrite it");
    }
  }
}
