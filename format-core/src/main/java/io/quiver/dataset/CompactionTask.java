package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.TableNotFoundException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.internal.codec.CompactionCodec;
import io.quiver.internal.ops.Compactor;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.Operation;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.store.ObjectStore;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * One group of adjacent fragments of a {@link CompactionPlan} to rewrite together, pinned to the plan's
 * version: the table (URI and location), the version, the fragment ids, the {@link CompactionOptions} and
 * the plan's identity. A worker calls {@link #execute(DatasetOptions)} (or {@link #execute(Dataset)} to
 * share an open handle's store and caches), which reads the fragments' live rows at the pinned version
 * (deletions applied, overlays merged), writes them into new data files and returns the {@link
 * CompactedGroup} to hand back to the driver. Nothing is committed by a task.
 *
 * <p>Immutable. Travels between processes as {@link #encode()} bytes (deterministic protobuf in a
 * checksummed envelope, magic {@code QVA1}) or by Java serialization, which writes the same bytes.
 */
public final class CompactionTask implements Serializable {
  private static final long serialVersionUID = 1L;

  private final transient CompactionCodec.Task task;

  CompactionTask(CompactionCodec.Task task) {
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

  /** The version planned: the task reads its fragments at it, whatever was committed since. */
  public long version() {
    return task.version();
  }

  /** The fragments to rewrite together, in manifest order. */
  public List<Long> fragmentIds() {
    return task.fragmentIds();
  }

  /** The options of the plan (the target size of the new fragments). */
  public CompactionOptions options() {
    return task.options();
  }

  // ---------------------------------------------------------------- executing

  /**
   * Executes this task with only its own contents and {@code options} (store options, allocator, session,
   * rows per batch): opens the table's store, reads the planned version, rewrites the fragments into new
   * data files, and closes the store (and the allocator it created when the options name none). The files
   * are the caller's until {@link DistributedCompaction#commit} publishes them; if this fails part-way, what
   * it wrote is unreferenced and {@link Dataset#cleanup} removes it after its safety window.
   *
   * @throws VersionNotFoundException if the planned version no longer exists (a cleanup removed it)
   * @throws TableNotFoundException if no table exists at the task's URI
   * @throws InvalidArgumentException if the URI now resolves to another location, or the version holds none
   *     of the task's fragments (another table lives there)
   */
  public CompactedGroup execute(DatasetOptions options) {
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
      return execute(io, load(io), allocator, options.rowsPerBatch());
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
   * Executes this task through an open handle on its table (any version), sharing the handle's store,
   * caches, allocator and rows per batch: what a worker that runs many tasks of one table does.
   *
   * @throws InvalidArgumentException if {@code dataset} is a handle on another table
   * @throws VersionNotFoundException if the planned version no longer exists (a cleanup removed it)
   */
  public CompactedGroup execute(Dataset dataset) {
    Objects.requireNonNull(dataset, "dataset");
    TableIo io = dataset.io();
    checkTable(io);
    Manifest manifest = dataset.version() == task.version() ? dataset.manifest() : load(io);
    return execute(io, manifest, dataset.allocator(), dataset.options().rowsPerBatch());
  }

  /** Rewrites the task's fragments of {@code manifest} (the planned version) through {@code io}. */
  CompactedGroup execute(TableIo io, Manifest manifest, BufferAllocator allocator, int rowsPerBatch) {
    List<Fragment> run = new ArrayList<>();
    for (long id : task.fragmentIds()) {
      Optional<Fragment> f = manifest.fragments().stream().filter(x -> x.id() == id).findFirst();
      if (f.isEmpty()) {
        throw new InvalidArgumentException(
            "version " + task.version() + " of " + io.location() + " has no fragment " + id + ", which compaction"
                + " task " + task.taskIndex() + " of plan " + task.planId() + " rewrites: the task was planned on"
                + " another table at this location; plan the compaction again");
      }
      run.add(f.get());
    }
    Operation.RewriteGroup g = new Compactor(io, manifest, allocator, rowsPerBatch).rewrite(run, task.options());
    return new CompactedGroup(new CompactionCodec.Group(task.planId(), task.taskIndex(), io.location(),
        task.version(), g.oldFragmentIds(), g.newFragments()));
  }

  private void checkTable(TableIo io) {
    if (!io.location().equals(task.tableLocation())) {
      throw new InvalidArgumentException(
          "this compaction task rewrites fragments of the table at " + task.tableLocation() + " but the store"
              + " opened is at " + io.location() + "; execute it on the task's table (" + task.tableUri() + ")");
    }
  }

  private Manifest load(TableIo io) {
    try {
      return io.load(task.version()).manifest();
    } catch (VersionNotFoundException e) {
      Optional<Long> latest = io.commitStore().latestVersion();
      if (latest.isEmpty()) {
        throw new TableNotFoundException(
            "this compaction task reads version " + task.version() + " of " + io.location() + ", but no Quiver"
                + " table is there any more (no committed version); the table was dropped");
      }
      throw new VersionNotFoundException(
          task.version(),
          "this compaction task was planned at version " + task.version() + " of " + io.location() + ", which"
              + " does not exist (the latest version is " + latest.get() + "; a cleanup removed it, or the table"
              + " was recreated). Plan the compaction again at a current version");
    }
  }

  // ---------------------------------------------------------------- bytes

  /** Compact deterministic bytes (protobuf in a checksummed envelope, magic {@code QVA1}). */
  public byte[] encode() {
    return CompactionCodec.encodeTask(task);
  }

  /**
   * Decodes bytes from {@link #encode()}.
   *
   * @throws io.quiver.exceptions.CorruptFileException if the bytes are null, damaged or not a compaction task
   */
  public static CompactionTask decode(byte[] bytes) {
    return new CompactionTask(CompactionCodec.decodeTask(bytes));
  }

  private Object writeReplace() {
    return new EncodedForm(EncodedForm.Kind.COMPACTION_TASK, encode());
  }

  private void readObject(java.io.ObjectInputStream in) throws java.io.InvalidObjectException {
    throw EncodedForm.notDirectly("CompactionTask");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CompactionTask t && task.equals(t.task);
  }

  @Override
  public int hashCode() {
    return task.hashCode();
  }

  @Override
  public String toString() {
    return "CompactionTask[" + task.planId() + " #" + task.taskIndex() + ", " + task.tableLocation() + " @ version "
        + task.version() + ", fragments " + task.fragmentIds() + "]";
  }
}
