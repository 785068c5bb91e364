package io.quiver.dataset;

import io.quiver.internal.codec.IndexBuildCodec;
import io.quiver.manifest.IndexSegment;
import io.quiver.manifest.IndexedFragment;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * What a worker wrote for one {@link IndexBuildTask} ({@link IndexBuildTask#build}): one segment file and its
 * entry (path, size, footer, the fragments it covers in the state the planned version has them), not yet
 * committed. Immutable; travels back to the driver as {@link #encode()} bytes (deterministic protobuf in the
 * checksummed metadata envelope, magic {@code QVJ1}) or by Java serialization (which writes the same bytes).
 *
 * <p>Its file is the caller's until {@link Indices#commit} publishes it: a commit that fails (a conflict, say)
 * leaves it in place, unreferenced, and {@link Dataset#cleanup} removes it once it is older than its safety
 * window — commit within that window.
 */
public final class BuiltIndexSegment implements Serializable {
  private static final long serialVersionUID = 1L;

  private final transient IndexBuildCodec.Segment segment;

  BuiltIndexSegment(IndexBuildCodec.Segment segment) {
    this.segment = Objects.requireNonNull(segment, "segment");
  }

  /** The plan of the task that wrote this segment. */
  public String planId() {
    return segment.planId();
  }

  /** The index of the task in its plan. */
  public int taskIndex() {
    return segment.taskIndex();
  }

  public String tableLocation() {
    return segment.tableLocation();
  }

  /** The version the fragments were read at (the plan's). */
  public long version() {
    return segment.version();
  }

  /** The uuid of the index the segment belongs to. */
  public String indexUuid() {
    return segment.indexUuid();
  }

  /** The segment's entry, as the commit adds it to the index. */
  public IndexSegment segment() {
    return segment.segment();
  }

  /** Ids of the fragments the segment covers (the task's). */
  public List<Long> fragmentIds() {
    return segment.segment().fragments().stream().map(IndexedFragment::fragmentId).toList();
  }

  /** Path (relative to the table root) of the segment file written. */
  public String path() {
    return segment.segment().path();
  }

  /** Compact deterministic bytes (protobuf in a checksummed envelope, magic {@code QVJ1}). */
  public byte[] encode() {
    return IndexBuildCodec.encodeSegment(segment);
  }

  /**
   * Decodes bytes from {@link #encode()}.
   *
   * @throws io.quiver.exceptions.CorruptFileException if the bytes are null, damaged or not a built index segment
   */
  public static BuiltIndexSegment decode(byte[] bytes) {
    return new BuiltIndexSegment(IndexBuildCodec.decodeSegment(bytes));
  }

  private Object writeReplace() {
    return new EncodedForm(EncodedForm.Kind.BUILT_INDEX_SEGMENT, encode());
  }

  private void readObject(java.io.ObjectInputStream in) throws java.io.InvalidObjectException {
    throw EncodedForm.notDirectly("BuiltIndexSegment");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BuiltIndexSegment s && segment.equals(s.segment);
  }

  @Override
  public int hashCode() {
    return segment.hashCode();
  }

  @Override
  public String toString() {
    return "BuiltIndexSegment[" + segment.planId() + " task " + segment.taskIndex() + ", " + segment.tableLocation()
        + " @ version " + segment.version() + ", " + path() + ", fragments " + fragmentIds() + ", "
        + segment.segment().rows() + " rows]";
  }
}
