package io.quiver.manifest;

import java.util.List;
import java.util.Objects;

/**
 * One immutable file of a {@link ScalarIndex}: pages of keys and the rows holding them for the fragments it
 * covers, every physical row of each (deleted ones included: readers apply the current deletion file).
 *
 * @param path {@code _indices/{index uuid}/{segment uuid}.idx}
 * @param sizeBytes the file's length
 * @param footerOffset where its footer starts
 * @param footerLength the footer's length
 * @param builtAtVersion the version it was computed from
 * @param rows postings in the file
 * @param fragments the fragments it covers, ascending by id
 */
public record IndexSegment(String path, long sizeBytes, long footerOffset, int footerLength, long builtAtVersion,
    long rows, List<IndexedFragment> fragments) {
  public IndexSegment {
    DataFile.requirePath(path, "_indices/", "index segment");
    fragments = List.copyOf(fragments);
    if (footerOffset < 0 || footerLength <= 0 || footerOffset + footerLength > sizeBytes) {
      throw new IllegalArgumentException("index segment " + path + " footer [" + footerOffset + ", +"
          + footerLength + ") is not within its " + sizeBytes + " bytes");
    }
    long previous = -1;
    for (IndexedFragment f : fragments) {
      if (f.fragmentId() <= previous) {
        throw new IllegalArgumentException(
            "index segment " + path + " lists fragment " + f.fragmentId() + " after " + previous);
      }
      previous = f.fragmentId();
    }
  }

  /** This segment covering only {@code kept}. */
  public IndexSegment withFragments(List<IndexedFragment> kept) {
    return new IndexSegment(path, sizeBytes, footerOffset, footerLength, builtAtVersion, rows, kept);
  }
}
