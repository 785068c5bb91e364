package io.quiver.internal.file;

import com.github.luben.zstd.ZstdDecompressCtx;
import io.quiver.store.ObjectStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Checks a data file's frame table (docs/format.md §5.1) against the buffers it describes, for {@code
 * validate()}. Readers trust an entry that is consistent with its buffer's length (the sizes sum to the
 * payload, the declared length needs that many frames); this check also reads every compressed buffer and
 * decodes each frame on its own: an entry is exact when its declared length is the buffer's, and every
 * frame, cut where the entry says, decodes to exactly its share of the declared bytes. Frames are
 * self-delimiting, so that holds only if the cuts are the buffer's real frame boundaries, in order.
 *
 * <p>An entry that lies consistently (sizes that sum right but cut elsewhere) makes a point read of the
 * buffer fail with a {@code CorruptFileException}, or, if a cut falls on another frame's start, read that
 * frame's values: the table is trusted like the value bytes it indexes, which no checksum covers either.
 * This check is what finds it.
 */
public final class FrameTableCheck {
  private FrameTableCheck() {}

  /**
   * The problems of {@code md}'s frame table, one message per problem (empty when the file has no table,
   * or the table describes every kept ZSTD buffer exactly). Reads each compressed buffer once.
   */
  public static List<String> problems(ObjectStore store, String key, DataFileMetadata md) {
    List<String> out = new ArrayList<>();
    if (!md.hasFrameTable()) {
      return out;
    }
    FrameTable table = md.frameTable();
    if (table == FrameTable.NONE) {
      out.add("the footer's frame table (" + FrameTable.KEY + ") does not parse (another version, a count that"
          + " does not fit the file's " + md.batchCount() + " record batches and " + md.bufferCount()
          + " buffers per batch, or bad base64); point reads ignore it and read each buffer's length first");
      return out;
    }
    try (ZstdDecompressCtx zstd = new ZstdDecompressCtx()) {
      for (int b = 0; b < md.batchCount(); b++) {
        if (md.codec(b) != org.apache.arrow.flatbuf.CompressionType.ZSTD) {
          if (table.entries(b) > 0) {
            out.add("the frame table lists " + table.entries(b) + " buffers of record batch " + b
                + ", which is not ZSTD-compressed (" + md.compression(b) + ")");
          }
          continue;
        }
        for (int k = 0; k < md.bufferCount(); k++) {
          Optional<String> problem = check(store, key, md, table, b, k, zstd);
          if (problem.isPresent()) {
            out.add("record batch " + b + " buffer " + k + ": " + problem.get());
          }
        }
      }
    }
    return out;
  }

  private static Optional<String> check(ObjectStore store, String key, DataFileMetadata md, FrameTable table,
      int batch, int buffer, ZstdDecompressCtx zstd) {
    long[] range = md.bufferRange(batch, buffer);
    boolean listed = table.lists(batch, buffer);
    if (range[1] < 8) {
      return listed ? Optional.of("listed in the frame table, but the buffer holds no compressed bytes")
          : Optional.empty();
    }
    byte[] bytes = store.readRange(key, range[0], Math.toIntExact(range[1]));
    long declared = ByteBuffer.wrap(bytes, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    if (declared <= 0) { // stored raw (-1) or empty (0): nothing to index
      return listed ? Optional.of("listed in the frame table, but stored uncompressed (length " + declared + ")")
          : Optional.empty();
    }
    if (!listed) {
      return Optional.of("compressed (" + declared + " bytes) but missing from the frame table; point reads"
          + " read its length first");
    }
    ZstdFrames.Index frames = table.frames(batch, buffer, range[1] - 8);
    if (frames == null) {
      return Optional.of("its frame table entry does not describe the buffer (frame sizes that do not sum to the"
          + " payload of " + (range[1] - 8) + " bytes, or a declared length that needs another frame count); point"
          + " reads ignore the entry");
    }
    if (frames.declared() != declared) {
      return Optional.of("the frame table declares " + frames.declared() + " uncompressed bytes, the buffer "
          + declared);
    }
    for (int f = 0; f < frames.count(); f++) {
      int from = Math.toIntExact(8 + frames.starts()[f]);
      int length = Math.toIntExact(frames.starts()[f + 1] - frames.starts()[f]);
      int want = Math.toIntExact(frames.length(f));
      byte[] decoded = new byte[want];
      long got;
      try {
        got = zstd.decompressByteArray(decoded, 0, want, bytes, from, length);
      } catch (RuntimeException e) { // zstd-jni's ZstdException: not a frame boundary, or damaged bytes
        return Optional.of("frame " + f + " of " + frames.count() + " (bytes " + frames.starts()[f] + " to "
            + frames.starts()[f + 1] + " of the payload) does not decode to its " + want + " bytes as ZSTD: "
            + e.getMessage());
      }
      if (got != want) {
        return Optional.of("frame " + f + " of " + frames.count() + " decodes to " + got + " bytes, the table"
            + " says " + want);
      }
    }
    return Optional.empty();
  }
}
