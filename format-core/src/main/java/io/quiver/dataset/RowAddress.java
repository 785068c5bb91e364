package io.quiver.dataset;

/**
 * Row addresses: {@code fragmentId << 32 | physicalOffset}. They name a stored row until compaction
 * moves it.
 */
public final class RowAddress {
  private RowAddress() {}

  /** Name of the optional row-address column a scan can add. */
  public static final String COLUMN = "_rowaddr";

  public static long of(long fragmentId, long offset) {
    return (fragmentId << 32) | offset;
  }

  public static long fragmentId(long address) {
    return address >>> 32;
  }

  public static long offset(long address) {
    return address & 0xFFFF_FFFFL;
  }
}
