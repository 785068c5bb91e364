package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.TableNotFoundException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.internal.codec.IndexBuildCodec;
import io.quiver.internal.index.IndexBuilder;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.IndexSegment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.ScalarIndex;
import io.quiver.store.ObjectStore;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * One group of adjacent fragments of an {@link IndexBuildPlan} to index as one segment, pinned to the plan's
 * version: the table (URI and location), the version, the index (uuid, name, kind, field id), the fragment ids
 * and the plan's identity. A worker calls {@link #build(DatasetOptions)} (or {@link #build(Dataset)} to share an
 * open handle's store and caches), which reads the indexed field of every physical row of the fragments as the
 * pinned version has them, writes one segment file under {@code _indices/{uuid}/} with a fresh name, and returns
 * the {@link BuiltIndexSegment} to hand back to the driver. Nothing is committed by a task, and a task built
 * twice (a retry, a speculative copy) writes two files: neither overwrites the other, and the commit publishes
 * the one it is given.
 *
 * <p>Immutable. Travels between processes as {@link #encode()} bytes (deterministic protobuf in a checksummed
 * envelope, magic {@code QVI1}) or by Java serialization, which writes the same bytes.
 */
public final class IndexBuildTask implements Serializable {
  private static final long serialVersionUID = 1L;

  private final transient IndexBuildCodec.Task task;

  IndexBuildTask(IndexBuildCodec.Task task) {
    this.task = Objects.requireNonNull(task, "task");
  }

  /** The plan this task belongs to. */
  public String planId() {
    return task.planId();
  }

  /** The task's index in its plan. */
  public int taskIndex() {
    return task.taskIndex();
  }

  /** The table URI the plan was made on, as its {@link Dataset} was opened. */
  public String tableUri() {
    return task.tableUri();
  }

  /** The table's location as its store resolved it. */
  public String tableLocation() {
    return task.tableLocation();
  }

  /** The version planned: the task indexes its fragments as they are at it, whatever was committed since. */
  public long version() {
    return task.version();
  }

  /** The uuid of the index the segment belongs to (its file goes under {@code _indices/{uuid}/}). */
  public String indexUuid() {
    return task.indexUuid();
  }

  public String indexName() {
    return task.indexName();
  }

  public ScalarIndex.Kind kind() {
    return task.kind();
  }

  /** The id of the indexed field. */
  public int fieldId() {
    return task.fieldId();
  }

  /** The fragments the segment covers, in manifest order. */
  public List<Long> fragmentIds() {
    return task.fragmentIds();
  }

  // ---------------------------------------------------------------- building

  /**
   * Builds this task with only its own contents and {@code options} (store options, allocator, session): opens
   * the table's store, reads the planned version, writes the segment file, and closes the store (and the
   * allocator it created when the options name none). The file is the caller's until {@link Indices#commit}
   * publishes it; if the commit never comes, {@link Dataset#cleanup} removes it after its safety window.
   *
   * @throws VersionNotFoundException if the planned version no longer exists (a cleanup removed it)
   * @throws TableNotFoundException if no table exists at the task's URI
   * @throws InvalidArgumentException if the URI now resolves to another location, or the version does not hold
   *     the task's fragments or field (another table lives there)
   */
  public BuiltIndexSegment build(DatasetOptions options) {
    Objects.requireNonNull(options, "options");
    ObjectStore store = options.registry().open(task.tableUri(), options.storeOptions());
    BufferAllocator allocator = options.allocator().orElse(null);
    boolean ownsAllocator = allocator == null;
    try {
      if (ownsAllocator) {
        allocator = new RootAllocator();
      }
      TableIo io = options.tableIo(store);
      checkTable(io);
      return build(io, load(io), allocator);
    } finally {
      try {
        if (ownsAllocator && allocator != null) {
          allocator.close();
        }
      } finally {
        store.close();
      }
    }
  }

  /**
   * Builds this task through an open handle on its table (any version), sharing the handle's store, caches and
   * allocator: what a worker that runs many tasks of one table does.
   *
   * @throws InvalidArgumentException if {@code dataset} is a handle on another table
   * @throws VersionNotFoundException if the planned version no longer exists (a cleanup removed it)
   */
  public BuiltIndexSegment build(Dataset dataset) {
    Objects.requireNonNull(dataset, "dataset");
    TableIo io = dataset.io();
    checkTable(io);
    Manifest manifest = dataset.version() == task.version() ? dataset.manifest() : load(io);
    return build(io, manifest, dataset.allocator());
  }

  /** Indexes the task's fragments of {@code manifest} (the planned version) through {@code io}. */
  BuiltIndexSegment build(TableIo io, Manifest manifest, BufferAllocator allocator) {
    if (manifest.schema().findField(task.fieldId()).isEmpty()) {
      throw new InvalidArgumentException(
          "version " + task.version() + " of " + io.location() + " has no field " + task.fieldId() + ", which index"
              + " build task " + task.taskIndex() + " of plan " + task.planId() + " indexes: the task was planned on"
              + " another table at this location; plan the build again");
    }
    Map<Long, Fragment> byId = new HashMap<>();
    manifest.fragments().forEach(f -> byId.put(f.id(), f));
    List<Fragment> fragments = new ArrayList<>();
    for (long id : task.fragmentIds()) {
      Fragment f = byId.get(id);
      if (f == null) {
        throw new InvalidArgumentException(
            "version " + task.version() + " of " + io.location() + " has no fragment " + id + ", which index build"
                + " task " + task.taskIndex() + " of plan " + task.planId() + " indexes: the task was planned on"
                + " another table at this location; plan the build again");
      }
      fragments.add(f);
    }
    IndexSegment segment = IndexBuilder.build(io, manifest.schema(), manifest.version(), task.indexUuid(),
        task.kind(), task.fieldId(), fragments, allocator);
    return new BuiltIndexSegment(new IndexBuildCodec.Segment(task.planId(), task.taskIndex(), io.location(),
        task.version(), task.indexUuid(), segment));
  }

  private void checkTable(TableIo io) {
    if (!io.location().equals(task.tableLocation())) {
      throw new InvalidArgumentException(
          "this index build task indexes fragments of the table at " + task.tableLocation() + " but the store"
              + " opened is at " + io.location() + "; build it on the task's table (" + task.tableUri() + ")");
    }
  }

  private Manifest load(TableIo io) {
    try {
      return io.load(task.version()).manifest();
    } catch (VersionNotFoundException e) {
      java.util.Optional<Long> latest = io.commitStore().latestVersion();
      if (latest.isEmpty()) {
        throw new TableNotFoundException(
            "this index build task reads version " + task.version() + " of " + io.location() + ", but no Quiver"
                + " table is there any more (no committed version); the table was dropped");
      }
      throw new VersionNotFoundException(
          task.version(),
          "this index build task was planned at version " + task.version() + " of " + io.location() + ", which"
              + " does not exist (the latest version is " + latest.get() + "; a cleanup removed it, or the table"
              + " was recreated). Plan the build again at a current version");
    }
  }

  // ---------------------------------------------------------------- bytes

  /** Compact deterministic bytes (protobuf in a checksummed envelope, magic {@code QVI1}). */
  public byte[] encode() {
    return IndexBuildCodec.encodeTask(task);
  }

  /**
   * Decodes bytes from {@link #encode()}.
   *
   * @throws io.quiver.exceptions.CorruptFileException if the bytes are null, damaged or not an index build task
   */
  public static IndexBuildTask decode(byte[] bytes) {
    return new IndexBuildTask(IndexBuildCodec.decodeTask(bytes));
  }

  private Object writeReplace() {
    return new EncodedForm(EncodedForm.Kind.INDEX_BUILD_TASK, encode());
  }

  private void readObject(java.io.ObjectInputStream in) throws java.io.InvalidObjectException {
    throw EncodedForm.notDirectly("IndexBuildTask");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IndexBuildTask t && task.equals(t.task);
  }

  @Override
  public int hashCode() {
    return task.hashCode();
  }

  @Override
  public String toString() {
    return "IndexBuildTask[" + task.planId() + " #" + task.taskIndex() + ", index '" + task.indexName() + "' ("
        + task.kind().label() + " on field " + task.fieldId() + "), " + task.tableLocation() + " @ version "
        + task.version() + ", fragments " + task.fragmentIds() + "]";
  }
}
