package io.quiver.internal.read;

import io.quiver.manifest.Fragment;
import org.roaringbitmap.RoaringBitmap;

/**
 * The physical rows {@code [start, end)} of one fragment: the unit a scan reads and a scan task ships.
 * Deleted rows inside the range are skipped on read. With a {@code selection} (the offsets a scalar index
 * says may match the filter), only those offsets are read: chunks without one are never fetched, and a sparse
 * selection is read by point reads ({@link ScanReader#POINT_READ_SHARE}) instead of whole chunks.
 *
 * <p>With a {@code spec}, the range is read with it instead of the scan's: the same projection, with a filter left
 * once an index decided some of the scan filter's conjuncts for the fragment (its selection holds only rows where
 * they are true; docs/format.md §13.1, "Decided conjuncts").
 *
 * @param selection offsets that may match, or null for every offset of the range
 * @param spec what the range's rows are read with when not the scan's spec, else null
 */
public record FragmentRange(Fragment fragment, long start, long end, RoaringBitmap selection, ScanSpec spec) {
  public FragmentRange {
    if (spec != null && selection == null) {
      throw new IllegalArgumentException("a range read with its own filter needs the index selection that decided"
          + " the rest of the scan's filter");
    }
    if (start < 0 || end > fragment.physicalRows() || start > end) {
      throw new IllegalArgumentException(
          "row range [" + start + ", " + end + ") is not within fragment " + fragment.id() + "'s "
              + fragment.physicalRows() + " physical rows");
    }
  }

  /** Every offset of {@code [start, end)}. */
  public FragmentRange(Fragment fragment, long start, long end) {
    this(fragment, start, end, null, null);
  }

  /** Reading only {@code selection} (null: every offset) with the scan's spec. */
  public FragmentRange(Fragment fragment, long start, long end, RoaringBitmap selection) {
    this(fragment, start, end, selection, null);
  }

  /** Every physical row of the fragment. */
  public static FragmentRange whole(Fragment fragment) {
    return new FragmentRange(fragment, 0, fragment.physicalRows());
  }

  /** This range reading only {@code offsets}. */
  public FragmentRange select(RoaringBitmap offsets) {
    return new FragmentRange(fragment, start, end, offsets, spec);
  }

  /** This range (with a selection) read with {@code readSpec} instead of the scan's spec. */
  public FragmentRange readWith(ScanSpec readSpec) {
    return new FragmentRange(fragment, start, end, selection, readSpec);
  }

  /** True when the range covers the whole fragment. */
  public boolean isWhole() {
    return start == 0 && end == fragment.physicalRows();
  }

  public long physicalRows() {
    return end - start;
  }
}
