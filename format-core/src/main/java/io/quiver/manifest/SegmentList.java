package io.quiver.manifest;

import java.util.Map;
import java.util.TreeMap;

/**
 * One segment list of a segmented manifest (docs/format.md, section 11.1), as the version's root lists it: an
 * immutable file naming consecutive segments, shared by every version whose root names it. A root that lists
 * lists instead of their segments stays the same size however many full segments the table has.
 *
 * @param path relative path, under {@value Segment#PREFIX}, ending in {@value #SUFFIX}
 * @param sizeBytes size of the list file
 * @param firstFragmentId id of the first fragment of its first segment
 * @param lastFragmentId id of the last fragment of its last segment
 * @param segmentCount number of segments it lists, at least 1
 * @param fragmentCount fragments of those segments, together
 * @param physicalRows rows stored by those fragments, deleted ones included
 * @param liveRows rows visible (physical minus deleted)
 * @param compressed whether some data file or overlay of those segments may have compressed bodies
 * @param bounds per atomic field id, bounds that hold for every live row of every fragment of the list; a field
 *     without an entry is unknown over the list
 */
public record SegmentList(
    String path, long sizeBytes, long firstFragmentId, long lastFragmentId, long segmentCount, long fragmentCount,
    long physicalRows, long liveRows, boolean compressed, Map<Integer, FieldBounds> bounds) {

  /** Ending of a segment list file's name. */
  public static final String SUFFIX = ".list";

  public SegmentList {
    DataFile.requirePath(path, Segment.PREFIX, "segment list");
    if (!path.endsWith(SUFFIX)) {
      throw new IllegalArgumentException("segment list path " + path + " does not end in " + SUFFIX);
    }
    if (sizeBytes < 0 || firstFragmentId < 0 || lastFragmentId < firstFragmentId || segmentCount < 1
        || fragmentCount < segmentCount || fragmentCount - 1 > lastFragmentId - firstFragmentId || physicalRows < 0
        || liveRows < 0 || liveRows > physicalRows) {
      throw new IllegalArgumentException("segment list " + path + " is inconsistent: " + segmentCount
          + " segments of " + fragmentCount + " fragments with ids " + firstFragmentId + ".." + lastFragmentId
          + ", " + liveRows + " live of " + physicalRows + " rows, " + sizeBytes + " bytes");
    }
    bounds = Map.copyOf(new TreeMap<>(bounds));
    for (Map.Entry<Integer, FieldBounds> e : bounds.entrySet()) {
      if (e.getValue().fieldId() != e.getKey()) {
        throw new IllegalArgumentException("segment list " + path + " lists bounds of field "
            + e.getValue().fieldId() + " under field " + e.getKey());
      }
    }
  }

  /** The bounds of {@code fieldId} over the list, unknown when the root records none. */
  public FieldBounds boundsOf(int fieldId) {
    FieldBounds b = bounds.get(fieldId);
    return b == null ? FieldBounds.unknown(fieldId) : b;
  }

  /** Whether segment {@code s} lies in the list's id range. */
  public boolean covers(Segment s) {
    return s.firstFragmentId() >= firstFragmentId && s.lastFragmentId() <= lastFragmentId;
  }
}
