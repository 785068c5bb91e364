package io.quiver.internal.read;

import io.quiver.manifest.Fragment;

/**
 * The physical rows {@code [start, end)} of one fragment: the unit a scan reads and a scan task ships.
 * Deleted rows inside the range are skipped on read.
 */
public record FragmentRange(Fragment fragment, long start, long end) {
  public FragmentRange {
    if (start < 0 || end > fragment.physicalRows() || start > end) {
      throw new IllegalArgumentException(
          "row range [" + start + ", " + end + ") is not within fragment " + fragment.id() + "'s "
              + fragment.physicalRows() + " physical rows");
    }
  }

  /** Every physical row of the fragment. */
  public static FragmentRange whole(Fragment fragment) {
    return new FragmentRange(fragment, 0, fragment.physicalRows());
  }

  /** True when the range covers the whole fragment. */
  public boolean isWhole() {
    return start == 0 && end == fragment.physicalRows();
  }

  public long physicalRows() {
    return end - start;
  }
}
