package io.quiver.dataset;

import io.quiver.internal.codec.CompactionCodec;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a worker wrote for one {@link CompactionTask} ({@link CompactionTask#execute}): the new fragments
 * (with placeholder ids; the commit assigns ids) that replace the task's fragments, not yet committed.
 * Immutable; travels back to the driver as {@link #encode()} bytes (deterministic protobuf in the checksummed
 * metadata envelope, magic {@code QVW1}) or by Java serialization (which writes the same bytes).
 *
 * <p>Its files are the caller's until {@link DistributedCompaction#commit} publishes them: a commit that
 * fails (a conflict, say) leaves them in place, unreferenced, and {@link Dataset#cleanup} removes them once
 * they are older than its safety window — commit within that window.
 */
public final class CompactedGroup implements Serializable {
  private static final long serialVersionUID = 1L;

  private final transient CompactionCodec.Group group;

  CompactedGroup(CompactionCodec.Group group) {
    this.group = Objects.requireNonNull(group, "group");
  }

  /** The plan of the task that wrote this group. */
  public String planId() {
    return group.planId();
  }

  /** The index of the task in its plan. */
  public int taskIndex() {
    return group.taskIndex();
  }

  public String tableLocation() {
    return group.tableLocation();
  }

  /** The version the fragments were read at (the plan's). */
  public long version() {
    return group.version();
  }

  /** Ids of the fragments this group replaces (the task's). */
  public List<Long> removedFragmentIds() {
    return group.oldFragmentIds();
  }

  /** The new fragments, with placeholder id 0 (the commit assigns ids). */
  public List<Fragment> newFragments() {
    return group.newFragments();
  }

  /** Paths (relative to the table root) of the data files written. */
  public List<String> filesWritten() {
    List<String> out = new ArrayList<>();
    for (Fragment f : group.newFragments()) {
      f.files().stream().map(DataFile::path).forEach(out::add);
    }
    return out;
  }

  /** Rows written: the live rows of the replaced fragments at the planned version. */
  public long rowsWritten() {
    return group.newFragments().stream().mapToLong(Fragment::physicalRows).sum();
  }

  CompactionCodec.Group group() {
    return group;
  }

  /** Compact deterministic bytes (protobuf in a checksummed envelope, magic {@code QVW1}). */
  public byte[] encode() {
    return CompactionCodec.encodeGroup(group);
  }

  /**
   * Decodes bytes from {@link #encode()}.
   *
   * @throws io.quiver.exceptions.CorruptFileException if the bytes are null, damaged or not a compacted group
   */
  public static CompactedGroup decode(byte[] bytes) {
    return new CompactedGroup(CompactionCodec.decodeGroup(bytes));
  }

  private Object writeReplace() {
    return new EncodedForm(EncodedForm.Kind.COMPACTED_GROUP, encode());
  }

  private void readObject(java.io.ObjectInputStream in) throws java.io.InvalidObjectException {
    throw EncodedForm.notDirectly("CompactedGroup");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CompactedGroup g && group.equals(g.group);
  }

  @Override
  public int hashCode() {
    return group.hashCode();
  }

  @Override
  public String toString() {
    return "CompactedGroup[" + group.planId() + " task " + group.taskIndex() + ", " + group.tableLocation()
        + " @ version " + group.version() + ", fragments " + group.oldFragmentIds() + " -> "
        + group.newFragments().size() + " new, " + rowsWritten() + " rows]";
  }
}
