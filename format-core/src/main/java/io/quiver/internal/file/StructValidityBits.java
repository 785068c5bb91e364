package io.quiver.internal.file;

/**
 * Where one struct is null in one record batch of a data file: the struct's own validity buffer and
 * nothing else (no member values). Plain heap bytes, so there is no Arrow memory to release.
 */
public final class StructValidityBits {
  private final int length;
  private final long nullCount;
  /** LSB-first validity bits, or null when the batch has no nulls or only nulls. */
  private final byte[] bits;

  StructValidityBits(int length, long nullCount, byte[] bits) {
    this.length = length;
    this.nullCount = nullCount;
    this.bits = bits;
  }

  /** Rows of the batch. */
  public int length() {
    return length;
  }

  public long nullCount() {
    return nullCount;
  }

  /** Whether the struct is null at row {@code row} of the batch (0-based). */
  public boolean isNull(int row) {
    if (row < 0 || row >= length) {
      throw new IndexOutOfBoundsException("row " + row + " of a batch of " + length);
    }
    if (bits == null) {
      return nullCount == length && length > 0;
    }
    return (bits[row >>> 3] & (1 << (row & 7))) == 0;
  }
}
