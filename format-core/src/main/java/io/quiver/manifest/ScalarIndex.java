package io.quiver.manifest;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One scalar index of a table (format 1.3, docs/format.md §13): a named index of one atomic field, stored as
 * immutable segment files that each cover some fragments in the state they had when the segment was built. A
 * reader uses a segment for a fragment only while that fragment still stores the field in exactly the files the
 * segment records ({@link IndexedFragment#sourceFiles}); every other fragment is scanned. An index therefore can
 * never answer from a state the table no longer has: it can only be incomplete, never stale.
 *
 * @param uuid random id; the files live under {@code _indices/{uuid}/}
 * @param name unique within the table
 * @param kind btree or bitmap
 * @param fieldId the atomic field indexed
 * @param createdVersion the version whose commit created it
 * @param segments oldest first
 */
public record ScalarIndex(String uuid, String name, Kind kind, int fieldId, long createdVersion,
    List<IndexSegment> segments) {

  /** What an index is shaped for. */
  public enum Kind {
    /** Sorted keys in pages: equality, IN and ranges read O(log n) small pages. Any cardinality. */
    BTREE,
    /** Each distinct key with a bitmap of its rows: for low-cardinality columns. */
    BITMAP;

    /** The name the format and the CLI use. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The kind named {@code label} (case-insensitive). */
    public static Kind of(String label) {
      for (Kind k : values()) {
        if (k.label().equalsIgnoreCase(label)) {
          return k;
        }
      }
      throw new IllegalArgumentException("unknown index kind '" + label + "'; expected btree or bitmap");
    }
  }

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,128}");

  public ScalarIndex {
    Objects.requireNonNull(uuid, "uuid");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    segments = List.copyOf(segments);
    if (!isValidName(name)) {
      throw new IllegalArgumentException("index name '" + name + "' must match [A-Za-z0-9_.-]{1,128}");
    }
  }

  /** Whether {@code name} may name an index. */
  public static boolean isValidName(String name) {
    return name != null && NAME.matcher(name).matches();
  }

  /** The directory of this index's files. */
  public String directory() {
    return "_indices/" + uuid + "/";
  }

  /** This index with {@code newSegments}. */
  public ScalarIndex withSegments(List<IndexSegment> newSegments) {
    return new ScalarIndex(uuid, name, kind, fieldId, createdVersion, newSegments);
  }

  /** Postings over all segments. */
  public long rows() {
    return segments.stream().mapToLong(IndexSegment::rows).sum();
  }

  /** Bytes over all segment files. */
  public long sizeBytes() {
    return segments.stream().mapToLong(IndexSegment::sizeBytes).sum();
  }
}
