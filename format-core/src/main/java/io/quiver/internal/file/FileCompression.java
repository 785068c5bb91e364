package io.quiver.internal.file;

import com.github.luben.zstd.Zstd;
import io.quiver.exceptions.InvalidArgumentException;
import java.util.Set;

/**
 * How {@link DataFileWriter} compresses the record batch bodies of one data file (data-file format 1.1):
 * Arrow IPC buffer compression with ZSTD at {@code level} (zstd-jni; each buffer a run of frames of {@code
 * frameBytes} uncompressed bytes, so a point read decompresses only what it needs), except for the buffers of
 * the atomic columns in {@code plainColumns}, which are stored uncompressed inside the compressed body (Arrow's "uncompressed length -1" marker). A buffer whose ZSTD
 * form saves less than {@code minSavings} of its size is stored uncompressed as well: readers then slice it
 * instead of decompressing it (random floats save a few percent and would cost a decompression on every read).
 * A buffer ZSTD would make larger is always stored uncompressed.
 *
 * <p>Quiver never writes LZ4: Arrow Java's LZ4 frame codec compresses at about 70 KB/s. Readers accept
 * both ZSTD and LZ4_FRAME, which other writers produce.
 *
 * @param codec {@link Codec#NONE} writes format 1.0 files: no compression at all
 * @param level the ZSTD level, between {@link #minLevel()} and {@link #maxLevel()}
 * @param plainColumns atomic column indices of the file (depth-first, §5 of docs/format.md) left uncompressed
 * @param minSavings the least fraction of a buffer's bytes compression must save for the compressed form to be
 *     kept, 0 (any saving) to below 1
 * @param frameBytes uncompressed bytes per ZSTD frame, a power of two from {@link #MIN_FRAME_BYTES} to {@link
 *     #MAX_FRAME_BYTES} ({@link #DEFAULT_FRAME_BYTES} unless chosen); the file's frame table records it
 */
public record FileCompression(Codec codec, int level, Set<Integer> plainColumns, double minSavings,
    int frameBytes) {
  /** Codecs a Quiver writer can write. */
  public enum Codec {
    NONE,
    ZSTD
  }

  /** ZSTD's own default level, and the level Arrow's codec uses when none is given. */
  public static final int DEFAULT_ZSTD_LEVEL = 1;

  /**
   * Default {@link #minSavings}: a buffer stays compressed only if that saves at least a quarter of its bytes
   * (benchmarks/RESULTS.md, "Body compression": random float vectors save 16% and scan 3.6× slower compressed).
   */
  public static final double DEFAULT_MIN_SAVINGS = 0.25;

  /**
   * Default {@link #frameBytes}: 1 KiB frames, the cheapest for point reads ({@link ZstdFrames#FRAME_BYTES}
   * says why).
   */
  public static final int DEFAULT_FRAME_BYTES = ZstdFrames.FRAME_BYTES;

  /** Smallest {@link #frameBytes} a writer accepts. */
  public static final int MIN_FRAME_BYTES = 1024;

  /** Largest {@link #frameBytes} a writer accepts: the most a reader accepts ({@link ZstdFrames#MAX_FRAME_BYTES}). */
  public static final int MAX_FRAME_BYTES = ZstdFrames.MAX_FRAME_BYTES;

  /** No compression: the data file is written in format 1.0. */
  public static final FileCompression NONE = new FileCompression(Codec.NONE, 0, Set.of(), 0, DEFAULT_FRAME_BYTES);

  public FileCompression {
    if (codec == null) {
      throw new InvalidArgumentException("codec must not be null; use FileCompression.NONE for no compression");
    }
    plainColumns = Set.copyOf(plainColumns == null ? Set.of() : plainColumns);
    if (!(minSavings >= 0 && minSavings < 1)) {
      throw new InvalidArgumentException("minSavings " + minSavings + " is out of range; expected 0 <= minSavings < 1");
    }
    if (codec == Codec.ZSTD && (level < minLevel() || level > maxLevel())) {
      throw new InvalidArgumentException(
          "ZSTD level " + level + " is out of range; expected " + minLevel() + ".." + maxLevel());
    }
    if (!isFrameBytes(frameBytes)) {
      throw new InvalidArgumentException("frame bytes " + frameBytes + " is not a power of two from "
          + MIN_FRAME_BYTES + " to " + MAX_FRAME_BYTES);
    }
  }

  /** ZSTD at {@code level} for every column, compressed buffers kept whenever they are smaller. */
  public static FileCompression zstd(int level) {
    return new FileCompression(Codec.ZSTD, level, Set.of(), 0, DEFAULT_FRAME_BYTES);
  }

  /** Whether {@code n} is a frame size a writer accepts: a power of two from {@link #MIN_FRAME_BYTES} to {@link #MAX_FRAME_BYTES}. */
  public static boolean isFrameBytes(long n) {
    return n >= MIN_FRAME_BYTES && n <= MAX_FRAME_BYTES && Long.bitCount(n) == 1;
  }

  /** This compression with compressed buffers kept only when they save at least {@code fraction} of the bytes. */
  public FileCompression withMinSavings(double fraction) {
    return new FileCompression(codec, level, plainColumns, fraction, frameBytes);
  }

  /** This compression with buffers compressed as frames of {@code bytes} uncompressed bytes. */
  public FileCompression withFrameBytes(int bytes) {
    return new FileCompression(codec, level, plainColumns, minSavings, bytes);
  }

  /** Whether a buffer of {@code raw} bytes that compressed to {@code compressed} bytes is kept compressed. */
  public boolean keeps(long compressed, long raw) {
    return compressed <= raw * (1 - minSavings);
  }

  /** This compression with the given atomic columns left uncompressed. */
  public FileCompression withPlainColumns(Set<Integer> columns) {
    return new FileCompression(codec, level, columns, minSavings, frameBytes);
  }

  /** Whether atomic column {@code column} is compressed. */
  public boolean compresses(int column) {
    return codec != Codec.NONE && !plainColumns.contains(column);
  }

  /**
   * The lowest level accepted. ZSTD accepts negative ("fast") levels down to -131072; Quiver accepts the
   * useful range down to -7, like the zstd command line's {@code --fast=7}.
   */
  public static int minLevel() {
    return Math.max(-7, Zstd.minCompressionLevel());
  }

  /** The highest level ZSTD accepts (22). */
  public static int maxLevel() {
    return Zstd.maxCompressionLevel();
  }
}
