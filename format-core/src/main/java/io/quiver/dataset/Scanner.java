package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.codec.ScanTaskCodec;
import io.quiver.internal.index.IndexSelection;
import io.quiver.internal.predicate.KeyConditions;
import io.quiver.internal.read.FragmentRange;
import io.quiver.internal.read.MeteringObjectStore;
import io.quiver.internal.read.ParallelScanReader;
import io.quiver.internal.read.Projection;
import io.quiver.internal.read.ScanCounters;
import io.quiver.internal.read.ScanPlanner;
import io.quiver.internal.read.ScanReader;
import io.quiver.internal.read.ScanSpec;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.predicate.Predicate;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.roaringbitmap.RoaringBitmap;

/**
 * Builds a scan of one version: which fields, which rows (an exact filter, a limit), how many rows per
 * batch, whether to add row addresses. Obtain one from {@link Dataset#newScan()}; {@link #open()} returns an
 * {@link ArrowReader} the caller closes, and {@link #planTasks()} splits the same scan into {@link ScanTask}s
 * that other processes read (docs/scan-planning.md).
 *
 * <pre>{@code
 * try (ArrowReader reader = table.newScan()
 *     .columns("id", "name")
 *     .filter(Predicate.and(Predicate.gt("age", 30), Predicate.isNotNull("s.x")))
 *     .open()) { ... }
 * }</pre>
 */
public final class Scanner {
  /** Default most rows per returned batch. */
  public static final int DEFAULT_BATCH_SIZE = ScanSpec.DEFAULT_BATCH_SIZE;
  /** Batches a thread of a parallel scan may have decoded ahead of the caller. */
  private static final int PARALLEL_QUEUE_DEPTH = 2;

  private final TableIo io;
  private final Manifest manifest;
  private final String uri;
  private final BufferAllocator defaultAllocator;
  private List<String> columns;
  private List<Integer> fieldIds;
  private Predicate filter;
  private long limit = ScanSpec.NO_LIMIT;
  private int batchSize = DEFAULT_BATCH_SIZE;
  private boolean withRowAddress;
  private boolean withRowLineage;
  private long targetTaskBytes = ScanPlanner.NO_SPLIT;
  private boolean useIndices = true;
  private BufferAllocator allocator;
  private ScanMetrics metrics;
  private int parallelism = 1;
  private boolean ordered = true;

  Scanner(TableIo io, Manifest manifest, BufferAllocator defaultAllocator, String uri) {
    this.io = io;
    this.manifest = manifest;
    this.defaultAllocator = defaultAllocator;
    this.uri = uri;
  }

  /**
   * Projects by name: top-level names or dotted paths into structs ({@code "s.x"}). Output columns
   * follow the order given; a nested path keeps its struct ancestors with only the selected children.
   */
  public Scanner columns(List<String> names) {
    this.columns = List.copyOf(names);
    this.fieldIds = null;
    return this;
  }

  public Scanner columns(String... names) {
    return columns(List.of(names));
  }

  /** Projects by field id; output columns follow the order given. */
  public Scanner fieldIds(List<Integer> ids) {
    this.fieldIds = List.copyOf(ids);
    this.columns = null;
    return this;
  }

  /**
   * Returns only the rows for which {@code predicate} is true, with SQL's three-valued logic: a row where
   * it is unknown (a compared value is null) is not returned. It is evaluated on the rows as every read
   * sees them (deletions and overlays applied), exactly: no row that fails it is returned. Its columns need
   * not be projected (they are read, used and dropped). Replaces an earlier filter; combine several with
   * {@link Predicate#and}. {@link Predicate#TRUE} removes the filter.
   *
   * @throws InvalidArgumentException if the predicate names a column this version does not have (or one
   *     inside a list or map), or compares a column with a literal of another type; the message names the
   *     columns and the literal types the column takes
   */
  public Scanner filter(Predicate predicate) {
    if (predicate == null) {
      throw new InvalidArgumentException("filter must not be null; use Predicate.TRUE to return every row");
    }
    // Checked now, against the columns it reads: the projection may still change.
    ScanSpec.of(manifest.schema(), Projection.project(manifest.schema(), List.of(), null), predicate, false, 1,
        ScanSpec.NO_LIMIT);
    this.filter = predicate instanceof Predicate.True ? null : predicate;
    return this;
  }

  /**
   * Returns at most {@code rows} rows (after the filter). A planned task returns at most this many of its
   * own rows: an engine applies the global limit to what the tasks return.
   */
  public Scanner limit(long rows) {
    if (rows < 0) {
      throw new InvalidArgumentException("limit must be >= 0, got " + rows);
    }
    this.limit = rows;
    return this;
  }

  /** Most rows per batch (default 8192). Batches may be smaller, e.g. at file batch boundaries. */
  public Scanner batchSize(int rows) {
    if (rows < 1) {
      throw new InvalidArgumentException("batch size must be >= 1, got " + rows);
    }
    this.batchSize = rows;
    return this;
  }

  /** Adds a non-nullable uint64 {@code _rowaddr} column (fragment id << 32 | offset) at the end. */
  public Scanner withRowAddress(boolean value) {
    this.withRowAddress = value;
    return this;
  }

  /**
   * Adds the row lineage of a table with stable row ids (table configuration {@code row-ids = true}; docs/format.md
   * section 14) at the end, after {@code _rowaddr} if asked: {@code _rowid}, {@code _row_created_at_version} and
   * {@code _row_last_updated_at_version}, non-nullable uint64 columns. A row keeps its id through updates,
   * merge-inserts and compaction; the versions say which commit inserted it and which last changed a value of it.
   *
   * @throws InvalidArgumentException (when the scan is opened) if the table has no row ids
   */
  public Scanner withRowLineage(boolean value) {
    this.withRowLineage = value;
    return this;
  }

  /** Allocator for the returned batches; defaults to the dataset handle's. */
  public Scanner allocator(BufferAllocator value) {
    this.allocator = value;
    return this;
  }

  /**
   * For {@link #planTasks()}: a fragment whose {@linkplain ScanTask#bytesEstimate() estimated bytes} exceed
   * this is split into row ranges of about this size, one task each. Default: never split (one task per
   * fragment).
   */
  public Scanner targetTaskBytes(long bytes) {
    if (bytes < 1) {
      throw new InvalidArgumentException("target task bytes must be >= 1, got " + bytes);
    }
    this.targetTaskBytes = bytes;
    return this;
  }

  /**
   * Records what {@link #planTasks()} and {@link #open()} do into {@code value} (fragments considered and
   * pruned, tasks planned, data files opened, bytes fetched from the store, rows returned; see {@link
   * ScanMetrics}). Null stops recording. A task's own read records into the metrics given to {@link
   * ScanTask#open(DatasetOptions, BufferAllocator, ScanMetrics)}.
   */
  public Scanner metrics(ScanMetrics value) {
    this.metrics = value;
    return this;
  }

  /**
   * Decodes fragments on {@code threads} threads of the scan's own (default 1: the calling thread reads, as
   * an embedder that brings its own parallelism, such as an engine running {@link #planTasks() tasks},
   * wants). With more, {@link #open()} reads up to {@code threads} fragments at once, each thread a whole
   * fragment at a time, and holds at most {@code threads × 3} decoded batches; the threads end when the
   * reader is closed or returns its last batch. See {@link #ordered(boolean)} for the order of the output.
   *
   * @throws InvalidArgumentException unless {@code 1 <= threads <= 256}
   */
  public Scanner parallelism(int threads) {
    if (threads < 1 || threads > 256) {
      throw new InvalidArgumentException("parallelism must be between 1 and 256 threads, got " + threads
          + "; use 1 to read on the calling thread, or about the number of cores");
    }
    this.parallelism = threads;
    return this;
  }

  /**
   * For a {@link #parallelism parallel} scan: {@code true} (the default) returns batches in scan order,
   * exactly as the sequential scan does; {@code false} returns each batch as soon as a thread has decoded
   * it — the same rows, in no particular order (with a {@link #limit}, some {@code limit} matching rows, not
   * necessarily the first ones), which keeps every thread busy when fragments differ in cost.
   */
  public Scanner ordered(boolean value) {
    this.ordered = value;
    return this;
  }

  /**
   * Whether the table's scalar indices may narrow the rows read (default true). An index answers only for the
   * fragments it covers in their state at the build, or in that state plus newer overlays (whose covered rows are
   * then read too: docs/format.md §13.1), and the filter is evaluated on every row read, so results are the same
   * either way; false reads every fragment the statistics do not prune, as a table without indices does (for
   * comparison, or to read past a damaged index file). Planned tasks carry the candidates ({@link
   * ScanTask#selection()}); a sparse selection is read by point reads (docs/scan-planning.md, "Reading an index
   * selection").
   */
  public Scanner useIndices(boolean value) {
    this.useIndices = value;
    return this;
  }

  /** The schema (with field ids) of the projected columns, without {@code _rowaddr}. */
  public Schema projectedSchema() {
    return Projection.project(manifest.schema(), columns, fieldIds);
  }

  /** The version this scan reads. */
  public long version() {
    return manifest.version();
  }

  /**
   * Starts the scan (on {@link #parallelism} threads when more than one). With {@link #metrics}, records every fragment as considered, the fragments skipped
   * (no live row, or not reached because the limit was) as pruned, and the data files opened, bytes
   * fetched and rows returned as the reader reads.
   */
  public ArrowReader open() {
    ScanSpec spec = spec();
    List<FragmentRange> ranges = new ArrayList<>();
    ScanCounters counters = ScanMetrics.countersOf(metrics);
    counters.fragmentsConsidered(manifest.fragments().size());
    List<Fragment> candidates = ScanPlanner.candidates(manifest, spec);
    counters.fragmentsPruned(manifest.fragments().size() - candidates.size()); // whole segments, by their bounds
    IndexSelection selection = useIndices ? IndexSelection.of(metered(io, counters), manifest, spec.filter(), candidates)
        : IndexSelection.NONE;
    Map<BitSet, ScanSpec> residuals = new HashMap<>();
    for (Fragment f : candidates) {
      if (!spec.mayMatch(f)) {
        counters.fragmentsPruned(1); // column statistics: no row can match the filter
        continue;
      }
      Optional<RoaringBitmap> hits = selection.candidates(f.id());
      if (hits.isEmpty()) {
        counters.fragmentsScannedWithoutIndex(!useIndices || manifest.indices().isEmpty() || spec.filter().isEmpty() ? 0 : 1);
        ranges.add(FragmentRange.whole(f));
      } else if (hits.get().isEmpty()) {
        counters.fragmentsAnsweredByIndex(1);
        counters.fragmentsPruned(1); // a scalar index: no row of it can match the filter
      } else {
        counters.fragmentsAnsweredByIndex(1);
        FragmentRange range = FragmentRange.whole(f).select(hits.get());
        ScanSpec own = residualSpec(spec, selection.decided(f.id()), residuals, counters);
        ranges.add(own == spec ? range : range.readWith(own));
      }
    }
    BufferAllocator batches = allocator != null ? allocator : defaultAllocator;
    if (parallelism > 1 && ranges.size() > 1) {
      return new ParallelScanReader(metered(io, counters), spec, ranges, batches, counters, parallelism, ordered,
          PARALLEL_QUEUE_DEPTH, null);
    }
    return new ScanReader(metered(io, counters), spec, ranges, batches, null, counters);
  }

  /** {@code io} reading through a store that records into {@code counters} (itself when nothing is recorded). */
  static TableIo metered(TableIo io, ScanCounters counters) {
    return counters.records() ? io.withStore(new MeteringObjectStore(io.store(), counters)) : io;
  }

  /**
   * Splits this scan into tasks, in scan order, each pinned to this scan's version: one per fragment with
   * live rows (or per row range of a fragment larger than {@link #targetTaskBytes}). What the tasks'
   * readers return, concatenated in order, is what {@link #open()} returns (with a {@link #limit}, each
   * task applies it to its own rows). Reads no data file; reads the deletion file of each fragment it
   * splits. Tasks travel as {@link ScanTask#encode()} bytes (or Java serialization). With a {@link #limit}
   * and no {@link #filter}, planning stops once the tasks planned hold {@code limit} live rows: the later
   * fragments are pruned (the first {@code limit} rows of the tasks' output are unchanged). With {@link
   * #metrics}, records the fragments considered, those pruned (no live row, or after the limit) and the
   * tasks planned.
   *
   * @throws InvalidArgumentException if the projection or filter does not fit this version's schema
   */
  public List<ScanTask> planTasks() {
    ScanSpec spec = spec();
    List<Integer> ids = Projection.requestedIds(manifest.schema(), columns, fieldIds);
    spec.filter().ifPresent(ScanTaskCodec::checkEncodable);
    List<ScanTask> tasks = new ArrayList<>();
    ScanCounters counters = ScanMetrics.countersOf(metrics);
    // Without a filter, a task's live rows are the rows it returns: once the tasks so far return the limit,
    // the rest are pruned (what the first `limit` rows of the tasks' output are does not change).
    boolean prunable = limit != ScanSpec.NO_LIMIT && spec.filter().isEmpty();
    long rowsSoFar = 0;
    List<ScanPlanner.Planned> planned = ScanPlanner.plan(metered(io, counters), manifest, spec, targetTaskBytes);
    IndexSelection selection = IndexSelection.NONE;
    if (useIndices && !manifest.indices().isEmpty() && spec.filter().isPresent()) {
      List<Fragment> fragments = planned.stream().map(p -> p.range().fragment()).distinct().toList();
      selection = IndexSelection.of(metered(io, counters), manifest, spec.filter(), fragments);
      for (Fragment f : fragments) {
        if (selection.candidates(f.id()).isPresent()) {
          counters.fragmentsAnsweredByIndex(1);
        } else {
          counters.fragmentsScannedWithoutIndex(1);
        }
      }
    }
    Map<BitSet, ScanSpec> residuals = new HashMap<>();
    java.util.Set<Long> decidedCounted = new java.util.HashSet<>();
    for (ScanPlanner.Planned p : planned) {
      Optional<RoaringBitmap> hits = selection.candidates(p.range().fragment().id());
      Optional<RoaringBitmap> inRange = hits.map(h -> {
        RoaringBitmap part = h.clone();
        part.and(RoaringBitmap.bitmapOfRange(p.range().start(), p.range().end()));
        return part;
      });
      if (inRange.isPresent() && inRange.get().isEmpty()) {
        continue; // a scalar index: no row of the range can match the filter
      }
      if (prunable && rowsSoFar >= limit) {
        break;
      }
      rowsSoFar += p.rows();
      // A task answered by an index carries only the conjuncts the index did not decide for its fragment.
      Optional<Predicate> taskFilter = spec.filter();
      if (inRange.isPresent()) {
        BitSet decided = selection.decided(p.range().fragment().id());
        ScanSpec own = residualSpec(spec, decided, residuals,
            decidedCounted.add(p.range().fragment().id()) ? counters : ScanCounters.NONE);
        taskFilter = own.filter();
      }
      tasks.add(new ScanTask(new ScanTaskCodec.Task(
          uri, io.location(), manifest.version(), p.range().fragment().id(), p.range().start(), p.range().end(), ids,
          taskFilter, withRowAddress, batchSize,
          limit == ScanSpec.NO_LIMIT ? OptionalLong.empty() : OptionalLong.of(limit), p.rows(), p.bytes(),
          spec.boundsOf(p.range().fragment()), withRowLineage, inRange)));
    }
    counters.fragmentsConsidered(manifest.fragments().size());
    long withTasks = tasks.stream().mapToLong(ScanTask::fragmentId).distinct().count();
    counters.fragmentsPruned(manifest.fragments().size() - withTasks);
    counters.tasksPlanned(tasks.size());
    return tasks;
  }

  /**
   * The spec the selected rows of a fragment are read with when an index decided the filter's conjuncts at
   * {@code decided} (docs/format.md §13.1, "Decided conjuncts"): the same projection with the other conjuncts as
   * the filter (none when every one is decided), so a column only the decided conjuncts name is not read. {@code
   * spec} itself when none is decided. Counts the fragment as decided when one is.
   */
  private ScanSpec residualSpec(ScanSpec spec, BitSet decided, Map<BitSet, ScanSpec> cache, ScanCounters counters) {
    if (decided.isEmpty() || spec.filter().isEmpty()) {
      return spec;
    }
    counters.fragmentsDecidedByIndex(1);
    return cache.computeIfAbsent(decided, d -> ScanSpec.of(manifest.schema(), spec.projected(),
        KeyConditions.residual(spec.filter().get(), d), withRowAddress, batchSize, limit)
        .withRowLineage(withRowLineage));
  }

  private ScanSpec spec() {
    if (withRowLineage && !manifest.hasRowIds()) {
      throw new InvalidArgumentException("version " + manifest.version() + " of " + uri + " has no stable row ids, so"
          + " it has no _rowid or row versions to scan; give the table row ids with the table configuration"
          + " 'row-ids' = 'true' (Dataset.updateConfig), which assigns ids to every row from that version on");
    }
    return ScanSpec.of(manifest.schema(), projectedSchema(), filter, withRowAddress, batchSize, limit)
        .withRowLineage(withRowLineage);
  }

  // ---------------------------------------------------------------- for ScanTask

  TableIo io() {
    return io;
  }

  Manifest manifest() {
    return manifest;
  }

  BufferAllocator allocatorOrDefault() {
    return allocator != null ? allocator : defaultAllocator;
  }

  @Override
  public String toString() {
    return "Scanner[" + uri + " @ version " + manifest.version() + ", " + Objects.toString(filter, "no filter") + "]";
  }
}
