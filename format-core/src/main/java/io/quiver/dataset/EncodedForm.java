package io.quiver.dataset;

import java.io.InvalidObjectException;
import java.io.Serializable;

/**
 * The Java-serialized form of the values engines ship between processes ({@link ScanTask}, {@link
 * CompactionTask}, {@link CompactedGroup}, {@link IndexBuildTask}, {@link BuiltIndexSegment}): which kind it
 * is and its {@code encode()} bytes, decoded again
 * (and so checked) on deserialization. Each of those classes writes this in place of itself and refuses to
 * be read any other way, so Java serialization and the encoding can never disagree.
 */
final class EncodedForm implements Serializable {
  private static final long serialVersionUID = 1L;

  enum Kind { SCAN_TASK, COMPACTION_TASK, COMPACTED_GROUP, INDEX_BUILD_TASK, BUILT_INDEX_SEGMENT }

  private final Kind kind;
  private final byte[] bytes;

  EncodedForm(Kind kind, byte[] bytes) {
    this.kind = kind;
    this.bytes = bytes;
  }

  private Object readResolve() throws InvalidObjectException {
    if (kind == null || bytes == null) {
      throw new InvalidObjectException("a serialized Quiver value without its kind or bytes");
    }
    return switch (kind) {
      case SCAN_TASK -> ScanTask.decode(bytes);
      case COMPACTION_TASK -> CompactionTask.decode(bytes);
      case COMPACTED_GROUP -> CompactedGroup.decode(bytes);
      case INDEX_BUILD_TASK -> IndexBuildTask.decode(bytes);
      case BUILT_INDEX_SEGMENT -> BuiltIndexSegment.decode(bytes);
    };
  }

  /** For {@code readObject} of the classes above: they are only ever read through this form. */
  static InvalidObjectException notDirectly(String type) {
    return new InvalidObjectException("a " + type + " is serialized as its encoded bytes");
  }
}
