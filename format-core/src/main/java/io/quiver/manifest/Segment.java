package io.quiver.manifest;

import java.util.Map;
import java.util.TreeMap;

/**
 * One fragment segment of a segmented manifest (docs/format.md, section 11), as the version's root lists it:
 * an immutable file of fragments in ascending id order, shared by every version whose root names it. What
 * the root says about it is enough to plan a scan past it or to find which segment holds a fragment.
 *
 * @param path relative path, under {@value #PREFIX}
 * @param sizeBytes size of the segment file
 * @param firstFragmentId id of its first fragment
 * @param lastFragmentId id of its last fragment
 * @param fragmentCount number of fragments, at least 1
 * @param physicalRows rows stored by its fragments, deleted ones included
 * @param liveRows rows visible (physical minus deleted)
 * @param compressed whether some data file or overlay of it may have compressed bodies (file format 1.1)
 * @param bounds per atomic field id, bounds that hold for every live row of every fragment in the segment;
 *     a field without an entry is unknown over the segment
 */
public record Segment(
    String path, long sizeBytes, long firstFragmentId, long lastFragmentId, long fragmentCount, long physicalRows,
    long liveRows, boolean compressed, Map<Integer, FieldBounds> bounds) {

  /** Prefix under which segment files live. */
  public static final String PREFIX = "_segments/";

  public Segment {
    DataFile.requirePath(path, PREFIX, "segment");
    if (sizeBytes < 0 || firstFragmentId < 0 || lastFragmentId < firstFragmentId || fragmentCount < 1
        || fragmentCount - 1 > lastFragmentId - firstFragmentId || physicalRows < 0 || liveRows < 0
        || liveRows > physicalRows) {
      throw new IllegalArgumentException(
          "segment " + path + " is inconsistent: " + fragmentCount + " fragments with ids " + firstFragmentId + ".."
              + lastFragmentId + ", " + liveRows + " live of " + physicalRows + " rows, " + sizeBytes + " bytes");
    }
    bounds = Map.copyOf(new TreeMap<>(bounds));
    for (Map.Entry<Integer, FieldBounds> e : bounds.entrySet()) {
      if (e.getValue().fieldId() != e.getKey()) {
        throw new IllegalArgumentException(
            "segment " + path + " lists bounds of field " + e.getValue().fieldId() + " under field " + e.getKey());
      }
    }
  }

  /** The bounds of {@code fieldId} over the segment, unknown when the root records none. */
  public FieldBounds boundsOf(int fieldId) {
    FieldBounds b = bounds.get(fieldId);
    return b == null ? FieldBounds.unknown(fieldId) : b;
  }

  /** Whether {@code fragmentId} lies in the segment's id range (the segment may still not hold it). */
  public boolean covers(long fragmentId) {
    return fragmentId >= firstFragmentId && fragmentId <= lastFragmentId;
  }
}
