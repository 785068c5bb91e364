package io.quiver.internal.file;

import io.quiver.exceptions.InvalidArgumentException;

/**
 * Tuning of {@link DataFileReader}.
 *
 * @param coalesceGapBytes wanted byte ranges separated by at most this many bytes are fetched with one
 *     {@code readRange}: on object stores a request costs far more than a few extra kilobytes. 0 fetches
 *     exactly the wanted bytes (touching ranges are still merged).
 */
public record ReadOptions(int coalesceGapBytes) {
  /** Default gap: 8 KiB. */
  public static final int DEFAULT_COALESCE_GAP_BYTES = 8 * 1024;

  public ReadOptions {
    if (coalesceGapBytes < 0) {
      throw new InvalidArgumentException(
          "coalesceGapBytes must be >= 0, got " + coalesceGapBytes + "; use 0 to disable coalescing");
    }
  }

  public static ReadOptions defaults() {
    return new ReadOptions(DEFAULT_COALESCE_GAP_BYTES);
  }
}
