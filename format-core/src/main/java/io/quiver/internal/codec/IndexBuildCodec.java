package io.quiver.internal.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.QuiverException;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.IndexSegment;
import io.quiver.manifest.ScalarIndex;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * Bytes of distributed index builds: a {@code quiver.v1.IndexBuildTask} (distributed.proto) in the metadata
 * envelope with magic {@code QVI1}, and a {@code quiver.v1.BuiltIndexSegment} with magic {@code QVJ1}.
 * Deterministic protobuf: equal values encode to equal bytes.
 */
public final class IndexBuildCodec {
  private static final byte[] TASK_MAGIC = "QVI1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] SEGMENT_MAGIC = "QVJ1".getBytes(StandardCharsets.US_ASCII);

  private IndexBuildCodec() {}

  /** The fields of an index build task. */
  public record Task(String planId, int taskIndex, String tableUri, String tableLocation, long version,
      String indexUuid, String indexName, ScalarIndex.Kind kind, int fieldId, List<Long> fragmentIds) {
    public Task {
      Objects.requireNonNull(planId, "planId");
      Objects.requireNonNull(tableUri, "tableUri");
      Objects.requireNonNull(tableLocation, "tableLocation");
      Objects.requireNonNull(indexUuid, "indexUuid");
      Objects.requireNonNull(indexName, "indexName");
      Objects.requireNonNull(kind, "kind");
      fragmentIds = List.copyOf(fragmentIds);
      if (planId.isEmpty()) {
        throw new IllegalArgumentException("the task names no plan");
      }
      if (indexUuid.isEmpty()) {
        throw new IllegalArgumentException("the task names no index uuid");
      }
      if (!ScalarIndex.isValidName(indexName)) {
        throw new IllegalArgumentException("index name '" + indexName + "' must match [A-Za-z0-9_.-]{1,128}");
      }
      if (taskIndex < 0) {
        throw new IllegalArgumentException("task index must be >= 0, got " + taskIndex);
      }
      if (version < 1) {
        throw new IllegalArgumentException("version must be >= 1, got " + version);
      }
      if (fragmentIds.isEmpty()) {
        throw new IllegalArgumentException("the task names no fragment to index");
      }
      for (long id : fragmentIds) {
        if (id < 0 || id > Fragment.MAX_ID) {
          throw new IllegalArgumentException("fragment id must be in [0, " + Fragment.MAX_ID + "], got " + id);
        }
      }
    }
  }

  /** The fields of a built segment: what one task wrote, not yet committed. */
  public record Segment(String planId, int taskIndex, String tableLocation, long version, String indexUuid,
      IndexSegment segment) {
    public Segment {
      Objects.requireNonNull(planId, "planId");
      Objects.requireNonNull(tableLocation, "tableLocation");
      Objects.requireNonNull(indexUuid, "indexUuid");
      Objects.requireNonNull(segment, "segment");
      if (planId.isEmpty()) {
        throw new IllegalArgumentException("the segment names no plan");
      }
      if (taskIndex < 0) {
        throw new IllegalArgumentException("task index must be >= 0, got " + taskIndex);
      }
      if (version < 1) {
        throw new IllegalArgumentException("version must be >= 1, got " + version);
      }
      if (segment.builtAtVersion() != version) {
        throw new IllegalArgumentException(
            "the segment was built at version " + segment.builtAtVersion() + ", not the task's " + version);
      }
      if (segment.fragments().isEmpty()) {
        throw new IllegalArgumentException("the segment covers no fragment");
      }
    }
  }

  public static byte[] encodeTask(Task t) {
    io.quiver.internal.proto.IndexBuildTask proto = io.quiver.internal.proto.IndexBuildTask.newBuilder()
        .setPlanId(t.planId())
        .setTaskIndex(t.taskIndex())
        .setTableUri(t.tableUri())
        .setTableLocation(t.tableLocation())
        .setVersion(t.version())
        .setIndexUuid(t.indexUuid())
        .setIndexName(t.indexName())
        .setKind(t.kind().label())
        .setFieldId(t.fieldId())
        .addAllFragmentIds(t.fragmentIds())
        .build();
    return MetadataCodec.envelope(TASK_MAGIC, MetadataCodec.deterministic(proto));
  }

  /**
   * @throws CorruptFileException if the bytes are null, damaged, not an index build task, or hold an invalid one
   */
  public static Task decodeTask(byte[] bytes) {
    String what = "index build task";
    byte[] payload = open(TASK_MAGIC, bytes, what, "IndexBuildTask.encode()");
    try {
      io.quiver.internal.proto.IndexBuildTask t = io.quiver.internal.proto.IndexBuildTask.parseFrom(payload);
      return new Task(t.getPlanId(), t.getTaskIndex(), t.getTableUri(), t.getTableLocation(), t.getVersion(),
          t.getIndexUuid(), t.getIndexName(), ScalarIndex.Kind.of(t.getKind()), t.getFieldId(),
          t.getFragmentIdsList());
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(what, "payload is not valid protobuf: " + e.getMessage()
          + "; pass the exact bytes IndexBuildTask.encode() returned", e);
    } catch (IllegalArgumentException | QuiverException e) {
      throw new CorruptFileException(what, "invalid index build task: " + e.getMessage()
          + "; pass the exact bytes IndexBuildTask.encode() returned", e);
    }
  }

  public static byte[] encodeSegment(Segment s) {
    io.quiver.internal.proto.BuiltIndexSegment proto = io.quiver.internal.proto.BuiltIndexSegment.newBuilder()
        .setPlanId(s.planId())
        .setTaskIndex(s.taskIndex())
        .setTableLocation(s.tableLocation())
        .setVersion(s.version())
        .setIndexUuid(s.indexUuid())
        .setSegment(IndexCodec.encodeSegment(s.segment()))
        .build();
    return MetadataCodec.envelope(SEGMENT_MAGIC, MetadataCodec.deterministic(proto));
  }

  /**
   * @throws CorruptFileException if the bytes are null, damaged, not a built index segment, or hold an invalid one
   */
  public static Segment decodeSegment(byte[] bytes) {
    String what = "built index segment";
    byte[] payload = open(SEGMENT_MAGIC, bytes, what, "BuiltIndexSegment.encode()");
    try {
      io.quiver.internal.proto.BuiltIndexSegment s = io.quiver.internal.proto.BuiltIndexSegment.parseFrom(payload);
      if (!s.hasSegment()) {
        throw new IllegalArgumentException("it holds no segment");
      }
      return new Segment(s.getPlanId(), s.getTaskIndex(), s.getTableLocation(), s.getVersion(), s.getIndexUuid(),
          IndexCodec.decodeSegment(s.getSegment(), s.getIndexUuid(), "(built)"));
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(what, "payload is not valid protobuf: " + e.getMessage()
          + "; pass the exact bytes BuiltIndexSegment.encode() returned", e);
    } catch (IllegalArgumentException | QuiverException e) {
      throw new CorruptFileException(what, "invalid built index segment: " + e.getMessage()
          + "; pass the exact bytes BuiltIndexSegment.encode() returned", e);
    }
  }

  private static byte[] open(byte[] magic, byte[] bytes, String what, String source) {
    if (bytes == null) {
      throw new CorruptFileException(what, "no bytes (null) to decode; pass the bytes " + source + " returned");
    }
    return MetadataCodec.open(magic, bytes, what, what);
  }
}
