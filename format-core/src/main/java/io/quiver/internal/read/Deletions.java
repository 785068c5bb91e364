package io.quiver.internal.read;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.Fragment;
import java.nio.ByteBuffer;
import org.roaringbitmap.RoaringBitmap;

/** Reads deletion files: portable-format RoaringBitmaps of deleted physical offsets. */
final public class Deletions {
  private Deletions() {}

  /** The deleted offsets of a fragment (empty when it has no deletion file). */
  static public RoaringBitmap of(TableIo io, Fragment fragment) {
    if (fragment.deletionFile().isEmpty()) {
      return new RoaringBitmap();
    }
    String path = fragment.deletionFile().get().path();
    String location = io.store().locationOf(path);
    byte[] bytes = io.store().read(path);
    RoaringBitmap bitmap = new RoaringBitmap();
    try {
      bitmap.deserialize(ByteBuffer.wrap(bytes));
    } catch (java.io.IOException | RuntimeException e) {
      throw new CorruptFileException(location, "not a portable RoaringBitmap: " + e.getMessage(), e);
    }
    boolean wellFormed;
    try {
      wellFormed = Boolean.TRUE.equals(bitmap.validate()); // sorted, distinct offsets in consistent containers
    } catch (RuntimeException e) {
      wellFormed = false;
    }
    if (!wellFormed) {
      throw new CorruptFileException(location, "not a well-formed RoaringBitmap: its containers hold unsorted or"
          + " repeated offsets, or disagree with their cardinalities; the file is damaged");
    }
    if (bitmap.getLongCardinality() != fragment.deletionFile().get().deletedRows()) {
      throw new CorruptFileException(
          location,
          "holds " + bitmap.getLongCardinality() + " offsets but the manifest records "
              + fragment.deletionFile().get().deletedRows());
    }
    if (!bitmap.isEmpty() && Integer.toUnsignedLong(bitmap.last()) >= fragment.physicalRows()) {
      throw new CorruptFileException(
          location,
          "deletes offset " + Integer.toUnsignedLong(bitmap.last()) + " but fragment " + fragment.id() + " has "
              + fragment.physicalRows() + " physical rows");
    }
    return bitmap;
  }
}
