package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.TableNotFoundException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.internal.codec.ScanTaskCodec;
import io.quiver.internal.read.FragmentRange;
import io.quiver.internal.read.Projection;
import io.quiver.internal.read.ScanCounters;
import io.quiver.internal.read.ScanReader;
import io.quiver.internal.read.ScanSpec;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.predicate.Predicate;
import io.quiver.schema.Schema;
import io.quiver.store.ObjectStore;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.roaringbitmap.RoaringBitmap;

/**
 * One unit of a planned scan ({@link Scanner#planTasks()}): the rows of one fragment, or of a range of its
 * physical offsets, at the version the scan was planned at, with the scan's projection, filter, batch size,
 * {@code _rowaddr} flag and limit, and the candidate offsets a scalar index left in the range ({@link #selection()}),
 * when one answered for the fragment. A task holds everything a worker needs except the table's store options:
 * a worker calls {@link #open(DatasetOptions)} (or {@link #open(Dataset)} to share an open handle's store
 * and caches) and reads exactly the rows the full scan returns for this fragment or range, whatever was
 * committed since planning.
 *
 * <p>Immutable. Travels between processes as {@link #encode()} bytes (deterministic protobuf in a
 * checksummed envelope, magic {@code QVP1}; see docs/scan-planning.md) or by Java serialization, which
 * writes the same bytes.
 */
public final class ScanTask implements Serializable {
  private static final long serialVersionUID = 1L;

  private final transient ScanTaskCodec.Task task;

  ScanTask(ScanTaskCodec.Task task) {
    this.task = Objects.requireNonNull(task, "task");
  }

  // ---------------------------------------------------------------- what it reads

  /** The table URI the scan was planned on, as its {@link Dataset} was opened. */
  public String tableUri() {
    return task.tableUri();
  }

  /** The table's location as its store resolved it. */
  public String tableLocation() {
    return task.tableLocation();
  }

  /** The version planned: the task reads it, whatever was committed since. */
  public long version() {
    return task.version();
  }

  public long fragmentId() {
    return task.fragmentId();
  }

  /** First physical offset of the fragment this task reads. */
  public long rowStart() {
    return task.rowStart();
  }

  /** End (exclusive) of the physical offsets this task reads. */
  public long rowEnd() {
    return task.rowEnd();
  }

  /** The projection: field ids in output order. */
  public List<Integer> fieldIds() {
    return task.fieldIds();
  }

  /**
   * The exact row filter the task evaluates, if the scan had one: the scan's filter, less the top-level conjuncts a
   * scalar index decided for this task's fragment (its {@link #selection()} holds only rows where they are true;
   * docs/format.md §13.1, "Decided conjuncts"). Empty when the scan had none or the index decided all of it.
   */
  public Optional<Predicate> filter() {
    return task.filter();
  }

  public boolean withRowAddress() {
    return task.withRowAddress();
  }

  /** Whether the task's batches end with the row lineage columns ({@link Scanner#withRowLineage}). */
  public boolean withRowLineage() {
    return task.withRowLineage();
  }

  public int batchSize() {
    return task.batchSize();
  }

  /** Most rows this task returns, if the scan had a limit. */
  public OptionalLong limit() {
    return task.limit();
  }

  /** Live rows in this task's range at its version, before the filter. */
  public long rowCount() {
    return task.rowCount();
  }

  /**
   * Estimate of the bytes the task fetches: each data and overlay file's share of the fields read
   * (by column count), prorated to the range, plus the deletion file.
   */
  public long bytesEstimate() {
    return task.bytesEstimate();
  }

  /**
   * What the manifest's column statistics say about the task's rows at the planned version: its live row
   * count, its byte estimate, and per atomic field read (projection and filter) the bounds of its values over
   * the task's fragment (docs/scan-planning.md, "Task statistics"). Carried in the task's encoding; fields
   * whose bounds are unknown (files written without statistics) are not listed.
   */
  public TaskStatistics statistics() {
    return new TaskStatistics(task.rowCount(), task.bytesEstimate(), task.fieldBounds());
  }

  /**
   * The offsets of the range a scalar index left as candidates for the filter (docs/format.md §13), when one
   * answered for the fragment at planning: the task reads only these (minus rows deleted), evaluating its {@link
   * #filter()} on each. Empty when the task reads every offset of its range. A copy: changing it changes nothing.
   */
  public Optional<RoaringBitmap> selection() {
    return Optional.ofNullable(task.selectionOrNull());
  }

  // ---------------------------------------------------------------- bytes

  /** Compact deterministic bytes (protobuf in a checksummed envelope, magic {@code QVP1}). */
  public byte[] encode() {
    return ScanTaskCodec.encode(task);
  }

  /**
   * Decodes bytes from {@link #encode()}.
   *
   * @throws io.quiver.exceptions.CorruptFileException if the bytes are damaged or not a scan task
   */
  public static ScanTask decode(byte[] bytes) {
    return new ScanTask(ScanTaskCodec.decode(bytes));
  }

  // ---------------------------------------------------------------- reading

  /**
   * Reads this task with only its own contents and {@code options} (store options, allocator, session):
   * opens the table's store, reads the planned version's manifest (through the options' session cache)
   * and returns a reader of the task's rows. Closing the reader closes the store it opened, and the
   * allocator if the options name none.
   *
   * @throws VersionNotFoundException if the planned version no longer exists (a cleanup removed it)
   * @throws io.quiver.exceptions.TableNotFoundException if no table exists at the task's URI
   * @throws InvalidArgumentException if the version holds no fragment with the task's id (another table
   *     now lives at the URI) or its projection or filter no longer fit it
   */
  public ArrowReader open(DatasetOptions options) {
    return open(options, null, null);
  }

  /**
   * Like {@link #open(DatasetOptions)}, with the returned batches allocated from {@code allocator} (the
   * caller's: closing the reader does not close it; null means the options' allocator, or one the reader
   * creates and closes) and what the read does recorded into {@code metrics} (may be null): data files
   * opened, bytes fetched from the store, rows returned, and the task's range as pruned if it holds no live
   * row or the limit is 0. The manifest the task loads is not counted. For an engine that reports
   * per-task metrics.
   *
   * @throws VersionNotFoundException if the planned version no longer exists (a cleanup removed it)
   * @throws io.quiver.exceptions.TableNotFoundException if no table exists at the task's URI
   * @throws InvalidArgumentException if the version holds no fragment with the task's id or its
   *     projection or filter no longer fit it
   */
  public ArrowReader open(DatasetOptions datasetOptions, BufferAllocator batchAllocator, ScanMetrics metrics) {
    Objects.requireNonNull(datasetOptions, "options");
    DatasetOptions options =
        batchAllocator == null ? datasetOptions : datasetOptions.toBuilder().allocator(batchAllocator).build();
    ObjectStore store = options.registry().open(task.tableUri(), options.storeOptions());
    BufferAllocator allocator = options.allocator().orElse(null);
    boolean ownsAllocator = allocator == null;
    try {
      TableIo io = options.tableIo(store);
      Manifest manifest = load(io);
      if (ownsAllocator) {
        allocator = new RootAllocator();
      }
      BufferAllocator owned = ownsAllocator ? allocator : null;
      return read(io, manifest, allocator, ScanMetrics.countersOf(metrics), () -> {
        try {
          store.close();
        } finally {
          if (owned != null) {
            owned.close();
          }
        }
      });
    } catch (RuntimeException e) {
      if (ownsAllocator && allocator != null) {
        allocator.close();
      }
      store.close();
      throw e;
    }
  }

  /**
   * Reads this task through an open handle on its table (any version), sharing the handle's store,
   * caches and allocator: what a worker that runs many tasks of one table does.
   *
   * @throws InvalidArgumentException if {@code dataset} is a handle on another table
   * @throws VersionNotFoundException if the planned version no longer exists (a cleanup removed it)
   */
  public ArrowReader open(Dataset dataset) {
    Objects.requireNonNull(dataset, "dataset");
    Scanner handle = dataset.newScan();
    return open(handle, handle.allocatorOrDefault());
  }

  /** Like {@link #open(Dataset)}, with the returned batches allocated from {@code allocator}. */
  public ArrowReader open(Dataset dataset, BufferAllocator allocator) {
    Objects.requireNonNull(dataset, "dataset");
    Objects.requireNonNull(allocator, "allocator");
    return open(dataset.newScan(), allocator);
  }

  /**
   * Like {@link #open(Dataset, BufferAllocator)}, recording what the read does into {@code metrics} (may be
   * null; see {@link #open(DatasetOptions, BufferAllocator, ScanMetrics)}).
   */
  public ArrowReader open(Dataset dataset, BufferAllocator allocator, ScanMetrics metrics) {
    Objects.requireNonNull(dataset, "dataset");
    Objects.requireNonNull(allocator, "allocator");
    return open(dataset.newScan(), allocator, ScanMetrics.countersOf(metrics));
  }

  private ArrowReader open(Scanner handle, BufferAllocator allocator) {
    return open(handle, allocator, ScanCounters.NONE);
  }

  private ArrowReader open(Scanner handle, BufferAllocator allocator, ScanCounters counters) {
    TableIo io = handle.io();
    if (!io.location().equals(task.tableLocation())) {
      throw new InvalidArgumentException(
          "this scan task reads the table at " + task.tableLocation() + " but the dataset handle is on "
              + io.location() + "; open the task's table (" + task.tableUri() + ") or call open(DatasetOptions)");
    }
    Manifest manifest = handle.manifest().version() == task.version() ? handle.manifest() : load(io);
    return read(io, manifest, allocator, counters, null);
  }

  private Manifest load(TableIo io) {
    try {
      return io.load(task.version()).manifest();
    } catch (VersionNotFoundException e) {
      Optional<Long> latest = io.commitStore().latestVersion();
      if (latest.isEmpty()) {
        throw new TableNotFoundException(
            "this scan task reads version " + task.version() + " of " + io.location() + ", but no Quiver table is"
                + " there any more (no committed version); the table was dropped or the task names another store");
      }
      if (latest.get() < task.version()) {
        throw new VersionNotFoundException(
            task.version(),
            "this scan task was planned at version " + task.version() + " of " + io.location() + ", but the latest"
                + " version there is " + latest.get() + ": it is not the table the scan was planned on"
                + " (recreated?). Plan the scan again");
      }
      throw new VersionNotFoundException(
          task.version(),
          "this scan task was planned at version " + task.version() + " of " + io.location() + ", which no longer"
              + " exists (the latest version is " + latest.get() + "): a cleanup removed it while the scan ran."
              + " Plan the scan again at a current version; to keep a version readable for a long job, tag it"
              + " (dataset.tags().create) until the job ends");
    }
  }

  private ArrowReader read(TableIo io, Manifest manifest, BufferAllocator allocator, ScanCounters counters,
      AutoCloseable onClose) {
    Fragment fragment = manifest.fragments().stream().filter(f -> f.id() == task.fragmentId()).findFirst()
        .orElseThrow(() -> new InvalidArgumentException(
            "version " + task.version() + " of " + io.location() + " has no fragment " + task.fragmentId()
                + ", which this scan task reads: the task was planned on another table at this location;"
                + " plan the scan again"));
    if (task.rowEnd() > fragment.physicalRows()) {
      throw new InvalidArgumentException(
          "this scan task reads offsets [" + task.rowStart() + ", " + task.rowEnd() + ") of fragment "
              + task.fragmentId() + ", which has " + fragment.physicalRows() + " physical rows at version "
              + task.version() + ": the task was planned on another table; plan the scan again");
    }
    Schema table = manifest.schema();
    Schema projected = Projection.byIds(table, task.fieldIds());
    ScanSpec spec = ScanSpec.of(table, projected, task.filter().orElse(null), task.withRowAddress(),
        task.batchSize(), task.limit().orElse(ScanSpec.NO_LIMIT)).withRowLineage(task.withRowLineage());
    if (task.withRowLineage() && !manifest.hasRowIds()) {
      throw new InvalidArgumentException("this scan task asks for the row lineage columns, but version "
          + task.version() + " of " + io.location() + " has no stable row ids: the task was planned on another"
          + " table; plan the scan again");
    }
    FragmentRange range = new FragmentRange(fragment, task.rowStart(), task.rowEnd(), task.selectionOrNull());
    return new ScanReader(Scanner.metered(io, counters), spec, List.of(range), allocator, onClose, counters);
  }

  // ---------------------------------------------------------------- values

  private Object writeReplace() {
    return new EncodedForm(EncodedForm.Kind.SCAN_TASK, encode());
  }

  private void readObject(java.io.ObjectInputStream in) throws java.io.InvalidObjectException {
    throw EncodedForm.notDirectly("ScanTask");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ScanTask t && task.equals(t.task);
  }

  @Override
  public int hashCode() {
    return task.hashCode();
  }

  @Override
  public String toString() {
    return "ScanTask[" + task.tableLocation() + " @ version " + task.version() + ", fragment " + task.fragmentId()
        + " rows [" + task.rowStart() + ", " + task.rowEnd() + "), " + task.rowCount() + " live rows, ~"
        + task.bytesEstimate() + " bytes"
        + task.selection().map(sel -> ", " + sel.getLongCardinality() + " offsets selected by an index").orElse("")
        + task.filter().map(f -> ", WHERE " + f).orElse("") + "]";
  }
}
