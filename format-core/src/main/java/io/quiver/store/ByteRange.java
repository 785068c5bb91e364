package io.quiver.store;

/**
 * A byte range of an object for {@link ObjectStore#readRanges}: {@code length} bytes from {@code offset}.
 * Both are at least 0 (checked here, with {@link StoreArgs#range}'s message, so a negative range can never
 * reach a store).
 */
public record ByteRange(long offset, int length) {
  public ByteRange {
    StoreArgs.range(offset, length);
  }

  /** The exclusive end, {@code offset + length} ({@link Long#MAX_VALUE} if that overflows). */
  public long end() {
    return offset > Long.MAX_VALUE - length ? Long.MAX_VALUE : offset + length;
  }
}
