package io.quiver.internal.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import io.quiver.dataset.CompactionOptions;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.QuiverException;
import io.quiver.internal.proto.CompactionSettings;
import io.quiver.manifest.Fragment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Bytes of distributed compaction: a {@code quiver.v1.CompactionTask} (distributed.proto) in the metadata
 * envelope with magic {@code QVA1}, and a {@code quiver.v1.CompactedGroup} with magic {@code QVW1}.
 * Deterministic protobuf: equal values encode to equal bytes.
 */
public final class CompactionCodec {
  private static final byte[] TASK_MAGIC = "QVA1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] GROUP_MAGIC = "QVW1".getBytes(StandardCharsets.US_ASCII);

  private CompactionCodec() {}

  /** The fields of a compaction task. */
  public record Task(String planId, int taskIndex, String tableUri, String tableLocation, long version,
      List<Long> fragmentIds, CompactionOptions options) {
    public Task {
      Objects.requireNonNull(planId, "planId");
      Objects.requireNonNull(tableUri, "tableUri");
      Objects.requireNonNull(tableLocation, "tableLocation");
      Objects.requireNonNull(options, "options");
      fragmentIds = List.copyOf(fragmentIds);
      if (planId.isEmpty()) {
        throw new IllegalArgumentException("the task names no plan");
      }
      if (taskIndex < 0) {
        throw new IllegalArgumentException("task index must be >= 0, got " + taskIndex);
      }
      if (version < 1) {
        throw new IllegalArgumentException("version must be >= 1, got " + version);
      }
      if (fragmentIds.isEmpty()) {
        throw new IllegalArgumentException("the task names no fragment to rewrite");
      }
      for (long id : fragmentIds) {
        if (id < 0 || id > Fragment.MAX_ID) {
          throw new IllegalArgumentException("fragment id must be in [0, " + Fragment.MAX_ID + "], got " + id);
        }
      }
    }
  }

  /** The fields of a compacted group: new fragments (placeholder ids) replacing {@code oldFragmentIds}. */
  public record Group(String planId, int taskIndex, String tableLocation, long version, List<Long> oldFragmentIds,
      List<Fragment> newFragments) {
    public Group {
      Objects.requireNonNull(planId, "planId");
      Objects.requireNonNull(tableLocation, "tableLocation");
      oldFragmentIds = List.copyOf(oldFragmentIds);
      newFragments = List.copyOf(newFragments);
      if (planId.isEmpty()) {
        throw new IllegalArgumentException("the group names no plan");
      }
      if (taskIndex < 0) {
        throw new IllegalArgumentException("task index must be >= 0, got " + taskIndex);
      }
      if (version < 1) {
        throw new IllegalArgumentException("version must be >= 1, got " + version);
      }
      if (oldFragmentIds.isEmpty()) {
        throw new IllegalArgumentException("the group replaces no fragment");
      }
    }
  }

  public static byte[] encodeTask(Task t) {
    io.quiver.internal.proto.CompactionTask proto = io.quiver.internal.proto.CompactionTask.newBuilder()
        .setPlanId(t.planId())
        .setTaskIndex(t.taskIndex())
        .setTableUri(t.tableUri())
        .setTableLocation(t.tableLocation())
        .setVersion(t.version())
        .addAllFragmentIds(t.fragmentIds())
        .setOptions(CompactionSettings.newBuilder()
            .setTargetRowsPerFragment(t.options().targetRowsPerFragment())
            .setSmallFragmentRows(t.options().smallFragmentRows())
            .setMaterializeDeletions(t.options().materializeDeletions())
            .setMaterializeOverlays(t.options().materializeOverlays()))
        .build();
    return MetadataCodec.envelope(TASK_MAGIC, MetadataCodec.deterministic(proto));
  }

  /**
   * @throws CorruptFileException if the bytes are null, damaged, not a compaction task, or hold an invalid one
   */
  public static Task decodeTask(byte[] bytes) {
    String what = "compaction task";
    byte[] payload = open(TASK_MAGIC, bytes, what, "CompactionTask.encode()");
    try {
      io.quiver.internal.proto.CompactionTask t = io.quiver.internal.proto.CompactionTask.parseFrom(payload);
      if (!t.hasOptions()) {
        throw new IllegalArgumentException("the task holds no compaction options");
      }
      CompactionSettings o = t.getOptions();
      return new Task(t.getPlanId(), t.getTaskIndex(), t.getTableUri(), t.getTableLocation(), t.getVersion(),
          t.getFragmentIdsList(), new CompactionOptions(o.getTargetRowsPerFragment(), o.getSmallFragmentRows(),
              o.getMaterializeDeletions(), o.getMaterializeOverlays()));
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(what, "payload is not valid protobuf: " + e.getMessage()
          + "; pass the exact bytes CompactionTask.encode() returned", e);
    } catch (IllegalArgumentException | QuiverException e) {
      throw new CorruptFileException(what, "invalid compaction task: " + e.getMessage()
          + "; pass the exact bytes CompactionTask.encode() returned", e);
    }
  }

  public static byte[] encodeGroup(Group g) {
    io.quiver.internal.proto.CompactedGroup.Builder b = io.quiver.internal.proto.CompactedGroup.newBuilder()
        .setPlanId(g.planId())
        .setTaskIndex(g.taskIndex())
        .setTableLocation(g.tableLocation())
        .setVersion(g.version())
        .addAllOldFragmentIds(g.oldFragmentIds());
    g.newFragments().forEach(f -> b.addNewFragments(MetadataCodec.encode(f)));
    return MetadataCodec.envelope(GROUP_MAGIC, MetadataCodec.deterministic(b.build()));
  }

  /**
   * @throws CorruptFileException if the bytes are null, damaged, not a compacted group, or hold an invalid one
   */
  public static Group decodeGroup(byte[] bytes) {
    String what = "compacted group";
    byte[] payload = open(GROUP_MAGIC, bytes, what, "CompactedGroup.encode()");
    try {
      io.quiver.internal.proto.CompactedGroup g = io.quiver.internal.proto.CompactedGroup.parseFrom(payload);
      List<Fragment> fragments = new ArrayList<>();
      for (io.quiver.internal.proto.Fragment f : g.getNewFragmentsList()) {
        fragments.add(MetadataCodec.decode(f));
      }
      return new Group(g.getPlanId(), g.getTaskIndex(), g.getTableLocation(), g.getVersion(),
          g.getOldFragmentIdsList(), fragments);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(what, "payload is not valid protobuf: " + e.getMessage()
          + "; pass the exact bytes CompactedGroup.encode() returned", e);
    } catch (IllegalArgumentException | QuiverException e) {
      throw new CorruptFileException(what, "invalid compacted group: " + e.getMessage()
          + "; pass the exact bytes CompactedGroup.encode() returned", e);
    }
  }

  private static byte[] open(byte[] magic, byte[] bytes, String what, String source) {
    if (bytes == null) {
      throw new CorruptFileException(what, "no bytes (null) to decode; pass the bytes " + source + " returned");
    }
    return MetadataCodec.open(magic, bytes, what, what);
  }
}
