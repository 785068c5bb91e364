package io.quiver.internal.read;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.internal.file.DataFileMetadata;
import io.quiver.internal.file.FetchPlan;
import io.quiver.internal.file.Prefetch;
import io.quiver.internal.file.StructValidityBits;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.Coverage;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Overlay;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.buffer.ImmutableRoaringBitmap;

/**
 * Reads one fragment's projected fields in chunks of physical rows, assembling each projected field
 * from whichever data file stores it, with the fragment's overlays merged in. Chunks never cross a
 * record-batch boundary of any base file read, so every chunk costs at most one batch read per base file;
 * an overlay file's batches are read once each while the chunks advance. Deletions are not applied here.
 *
 * <p>Overlay semantics (docs/format.md §3): overlays apply oldest to newest (by committed version, then
 * list position); for each atomic field and physical offset the newest overlay whose coverage for that
 * field contains the offset supplies the value (a covered null is a null), otherwise the base value does.
 * A struct's validity at an offset comes from the newest overlay covering any of the struct's atomic
 * descendants there (from the row of the first such descendant in the overlay file's field order), else
 * from the base data file that stores the struct's first live atomic descendant in table-schema order,
 * whichever members are projected (docs/format.md §5): a projection that does not read that descendant
 * reads only the struct's validity buffer from its file, not its values. Every projection, {@code take},
 * update, column write and compaction reads through here, so they all see the same struct nulls.
 */
final public class FragmentReader implements AutoCloseable {
  private final TableIo io;
  private final Fragment fragment;
  private final Schema projected;
  private final Schema table;
  private final BufferAllocator allocator;
  private final Map<DataFile, int[]> columnsByFile = new LinkedHashMap<>();
  private final Map<Integer, Source> sourceByField = new HashMap<>();
  private final Map<DataFile, DataFileMetadata> metadata = new HashMap<>();
  private final Map<DataFile, OpenBatch> open = new HashMap<>();
  /** Overlays that touch the projection, oldest first. */
  private final List<OverlayFile> overlays = new ArrayList<>();
  /** Projected struct id → the base column whose struct ancestor carries its validity (absent: none stored). */
  private final Map<Integer, ValiditySource> validityByStruct = new HashMap<>();
  /** Validity read on its own (the source column is not read for values), by source: the batch loaded. */
  private final Map<ValiditySource, LoadedBits> validityBits = new HashMap<>();
  /** Only struct validity is wanted: no atomic values are read. */
  private final boolean validityOnly;
  /** The reads {@link #prefetch} planned, by what they read; each is taken once. */
  private final Map<PlannedRead, Integer> planned = new HashMap<>();
  /** Step of each chunk {@link #prefetch} planned. */
  private final Map<Chunk, Integer> stepOf = new HashMap<>();
  private Prefetch prefetch;

  /** What one planned read fetches: a batch's values of {@code file} (column -1), or a struct validity. */
  private record PlannedRead(DataFile file, int batch, int column, int depth) {}

  /** Where an atomic field's values come from: a file and its atomic column index. */
  private record Source(DataFile file, int column) {}

  /**
   * Where a struct's base validity comes from: the struct ancestor at {@code depth} of atomic column
   * {@code column} of {@code file}, the file storing the struct's first live atomic descendant.
   */
  private record ValiditySource(DataFile file, int column, int depth) {}

  private record LoadedBits(int batch, StructValidityBits bits) {}

  /** The base answer to "is the struct null" for the rows of one chunk, before overlays. */
  private interface BaseValidity {
    boolean isNull(int row);
  }

  private record OpenBatch(int batch, VectorSchemaRoot root, Map<Integer, FieldVector> atomicByColumn,
      Map<Integer, List<StructVector>> ancestorsByColumn) {}

  /** A run of physical rows {@code [start, start + length)} of the fragment. */
  public record Chunk(long start, int length) {}

  /**
   * @param projected the fields to read
   * @param table the table schema the projection was taken from: every member of a projected struct
   *     counts for its validity (the first live one's base file, or an overlay on any), projected or not
   */
  public FragmentReader(TableIo io, Fragment fragment, Schema projected, Schema table, BufferAllocator allocator) {
    this(io, fragment, projected, table, allocator, false);
  }

  private FragmentReader(TableIo io, Fragment fragment, Schema projected, Schema table, BufferAllocator allocator,
      boolean validityOnly) {
    this.io = io;
    this.fragment = fragment;
    this.projected = projected;
    this.table = table;
    this.allocator = allocator;
    this.validityOnly = validityOnly;
    Map<DataFile, TreeSet<Integer>> columns = new LinkedHashMap<>();
    for (Field field : validityOnly ? List.<Field>of() : projected.atomicFields()) {
      for (DataFile file : fragment.files()) {
        int column = file.columnOf(field.id());
        if (column >= 0) {
          sourceByField.put(field.id(), new Source(file, column));
          columns.computeIfAbsent(file, f -> new TreeSet<>()).add(column);
          break;
        }
      }
    }
    columns.forEach((file, set) -> columnsByFile.put(file, set.stream().mapToInt(Integer::intValue).toArray()));
    for (Field field : projected.fields()) {
      planValidity(field, 0);
    }
    Set<DataFile> needed = new java.util.LinkedHashSet<>(columnsByFile.keySet());
    validityByStruct.values().forEach(v -> needed.add(v.file()));
    for (DataFile file : needed) {
      metadata.put(file, FragmentFiles.base(io, fragment, file));
    }
    List<Overlay> ordered = new ArrayList<>(fragment.overlays());
    ordered.sort(Comparator.comparingLong(Overlay::committedVersion)); // stable: list position breaks ties
    for (Overlay overlay : ordered) {
      OverlayFile reader = OverlayFile.plan(this, overlay);
      if (reader != null) {
        overlays.add(reader);
      }
    }
  }

  /**
   * The offsets at which each of {@code structIds} (structs reached from the top level through structs
   * only) is null in {@code fragment}, by the same rule every read applies; reads only struct validity
   * buffers (and overlay rows that carry struct validity), never member values.
   */
  static public Map<Integer, RoaringBitmap> structNulls(TableIo io, Fragment fragment, Schema table,
      java.util.Collection<Integer> structIds, BufferAllocator allocator) {
    Map<Integer, RoaringBitmap> out = new LinkedHashMap<>();
    if (structIds.isEmpty()) {
      return out;
    }
    structIds.forEach(id -> out.put(id, new RoaringBitmap()));
    try (FragmentReader reader = new FragmentReader(io, fragment, table.project(structIds), table, allocator, true)) {
      for (Chunk chunk : reader.plan(ScanSpec.DEFAULT_BATCH_SIZE)) {
        for (OverlayFile overlay : reader.overlays) {
          overlay.load(chunk);
        }
        for (int id : structIds) {
          boolean[] nulls = reader.structNulls(table.field(id), chunk);
          RoaringBitmap into = out.get(id);
          for (int row = 0; row < nulls.length; row++) {
            if (nulls[row]) {
              into.add((int) (chunk.start() + row));
            }
          }
        }
      }
    }
    return out;
  }

  /** Records where each struct reached through structs from {@code field} takes its base validity. */
  private void planValidity(Field field, int depth) {
    if (!field.isStruct()) {
      return;
    }
    FragmentFiles.StructSource source = FragmentFiles.validitySource(table, fragment, field);
    if (source != null) {
      validityByStruct.put(field.id(),
          new ValiditySource(source.file(), sameStructColumn(field, source.file(), source.column()), depth));
    }
    for (Field child : field.children()) {
      planValidity(child, depth + 1);
    }
  }

  /**
   * A file holds one node per struct, shared by all the struct's members it stores: when a projected
   * descendant of {@code struct} is read from {@code file} anyway, its column carries the same validity
   * as {@code column} and costs no extra read.
   */
  private int sameStructColumn(Field struct, DataFile file, int column) {
    for (Field member : struct.preorder()) {
      Source source = sourceByField.get(member.id());
      if (source != null && source.file().equals(file)) {
        return source.column();
      }
    }
    return column;
  }

  /** Chunks covering all physical rows, each at most {@code maxRows} long. */
  public List<Chunk> plan(int maxRows) {
    return plan(maxRows, 0, fragment.physicalRows());
  }

  /**
   * Chunks covering the physical rows {@code [start, end)}, each at most {@code maxRows} long and none
   * crossing a record-batch boundary of a file read.
   */
  public List<Chunk> plan(int maxRows, long start, long end) {
    if (start < 0 || end > fragment.physicalRows() || start > end) {
      throw new IllegalArgumentException(
          "row range [" + start + ", " + end + ") is not within fragment " + fragment.id() + "'s "
              + fragment.physicalRows() + " physical rows");
    }
    TreeSet<Long> cuts = new TreeSet<>();
    cuts.add(start);
    cuts.add(end);
    for (DataFileMetadata md : metadata.values()) {
      for (int b = 0; b < md.batchCount(); b++) {
        long cut = md.batchStart(b);
        if (cut > start && cut < end) {
          cuts.add(cut);
        }
      }
    }
    List<Chunk> chunks = new ArrayList<>();
    Long previous = null;
    for (long cut : cuts) {
      if (previous != null) {
        for (long s = previous; s < cut; s += maxRows) {
          chunks.add(new Chunk(s, (int) Math.min(maxRows, cut - s)));
        }
      }
      previous = cut;
    }
    return chunks;
  }

  /**
   * Plans the fetches of every read {@link #read} will make for {@code chunks}, which it must then be given
   * in this order (the chunks of {@link #plan}, or some of them: a caller drops the chunks it will not
   * read — all rows deleted, or pruned by statistics — so that their batches are not fetched), and starts
   * fetching them ahead ({@link Prefetch}): coalesced across consecutive batches, bounded by the reader's
   * {@link io.quiver.internal.file.ReadOptions}. A chunk not in the list is still read, with its own fetches.
   * At most once per reader; {@link #close()} stops the fetches and releases their buffers.
   *
   * @param pool where requests run; null fetches on the reading thread when a read needs them
   */
  public void prefetch(List<Chunk> chunks, Executor pool) {
    if (prefetch != null) {
      throw new IllegalStateException("prefetch was already planned for this reader");
    }
    for (int step = 0; step < chunks.size(); step++) {
      if (stepOf.putIfAbsent(chunks.get(step), step) != null) {
        throw new IllegalArgumentException("chunk " + chunks.get(step) + " is listed twice");
      }
    }
    List<Pending> reads = reads(chunks);
    loadBatchMetadata(reads);
    FetchPlan.Builder plan = FetchPlan.builder(io.dataFiles().options());
    for (Pending r : reads) {
      PlannedRead what = r.what();
      addPlanned(plan, r.step(), what, r.columns() != null
          ? io.dataFiles().wantedBuffers(what.file().path(), what.batch(), r.columns())
          : io.dataFiles().structValidityRange(what.file().path(), what.batch(), what.column(), what.depth()));
    }
    if (!plan.isEmpty()) {
      prefetch = new Prefetch(io.store(), plan.build(), io.dataFiles().options(), pool, allocator);
    }
  }

  /**
   * Loads the metadata of the batches {@code chunks} will read (as {@link #prefetch} does, without planning
   * their fetches): for a read that fetches batch by batch.
   */
  public void loadMetadata(List<Chunk> chunks) {
    loadBatchMetadata(reads(chunks));
  }

  /** The batch reads the chunks need, in order, each once; step = the index of the first chunk needing it. */
  private List<Pending> reads(List<Chunk> chunks) {
    List<Pending> reads = new ArrayList<>();
    Map<DataFile, Integer> lastBatch = new HashMap<>();
    Map<OverlayFile, Integer> lastOverlayBatch = new HashMap<>();
    Map<ValiditySource, Integer> lastValidityBatch = new HashMap<>();
    for (int step = 0; step < chunks.size(); step++) {
      Chunk chunk = chunks.get(step);
      for (Map.Entry<DataFile, int[]> e : columnsByFile.entrySet()) {
        int batch = batchOf(metadata.get(e.getKey()), chunk.start());
        if (!Integer.valueOf(batch).equals(lastBatch.put(e.getKey(), batch))) {
          reads.add(new Pending(step, new PlannedRead(e.getKey(), batch, -1, -1), e.getValue()));
        }
      }
      for (OverlayFile overlay : overlays) {
        long[] rows = overlay.rowsFor(chunk);
        if (rows == null) {
          continue;
        }
        int highest = lastOverlayBatch.getOrDefault(overlay, -1);
        for (int b = Math.max(highest + 1, batchOf(overlay.md, rows[0])); b <= batchOf(overlay.md, rows[1] - 1); b++) {
          reads.add(new Pending(step, new PlannedRead(overlay.overlay.dataFile(), b, -1, -1), overlay.columns));
          lastOverlayBatch.put(overlay, b);
        }
      }
      for (ValiditySource source : new java.util.LinkedHashSet<>(validityByStruct.values())) {
        int[] read = columnsByFile.get(source.file());
        if (read != null && Arrays.binarySearch(read, source.column()) >= 0) {
          continue; // carried by the values read
        }
        int batch = batchOf(metadata.get(source.file()), chunk.start());
        if (!Integer.valueOf(batch).equals(lastValidityBatch.put(source, batch))) {
          reads.add(new Pending(step, new PlannedRead(source.file(), batch, source.column(), source.depth()), null));
        }
      }
    }
    return reads;
  }

  /** A read {@link #prefetch} plans: at step {@code step}, these columns of a batch (null: a validity). */
  private record Pending(int step, PlannedRead what, int[] columns) {}

  /**
   * Loads the metadata of every batch the reads need, per file in one coalesced fetch, so that the batches
   * of chunks not read (pruned, deleted) are never fetched and the ones read cost no request each.
   */
  private void loadBatchMetadata(List<Pending> reads) {
    Map<String, TreeSet<Integer>> batchesByFile = new LinkedHashMap<>();
    for (Pending r : reads) {
      batchesByFile.computeIfAbsent(r.what().file().path(), k -> new TreeSet<>()).add(r.what().batch());
    }
    batchesByFile.forEach((path, batches) ->
        io.dataFiles().loadBatches(path, batches.stream().mapToInt(Integer::intValue).toArray()));
  }

  private void addPlanned(FetchPlan.Builder plan, int step, PlannedRead what, List<long[]> wanted) {
    if (!wanted.isEmpty()) {
      planned.put(what, plan.add(what.file().path(), io.store().locationOf(what.file().path()), step, wanted));
    }
  }

  /** The planned read of {@code what} (once), or null to fetch it directly. */
  private Integer takePlanned(PlannedRead what) {
    Integer read = planned.remove(what);
    return read != null && prefetch.available(read) ? read : null;
  }

  /** The fetch plan of {@link #prefetch}, or null when none was made (or it had nothing to fetch). */
  public Prefetch prefetched() {
    return prefetch;
  }

  /**
   * The chunks of {@code chunks} whose rows may match {@code pruner}, by the zone statistics of the base
   * files that hold the filter's fields (and the statistics of the overlays that cover the chunk's rows); a
   * chunk whose statistics are unknown is kept. Reads nothing: the footers are loaded already.
   */
  List<Chunk> mayMatch(List<Chunk> chunks, io.quiver.internal.predicate.StatsPruner pruner) {
    List<Chunk> kept = new ArrayList<>(chunks.size());
    for (Chunk chunk : chunks) {
      if (pruner.mayMatch(id -> FragmentBounds.ofRows(fragment, table, id, chunk.start(),
          chunk.start() + chunk.length(), metadata::get))) {
        kept.add(chunk);
      }
    }
    return kept;
  }

  /** The projected fields of the chunk's physical rows, overlays merged; the caller closes the result. */
  public VectorSchemaRoot read(Chunk chunk) {
    List<FieldVector> vectors = new ArrayList<>();
    Integer step = prefetch == null ? null : stepOf.get(chunk);
    try {
      for (DataFile file : columnsByFile.keySet()) {
        ensureOpen(file, chunk);
      }
      for (OverlayFile overlay : overlays) {
        overlay.load(chunk);
      }
      for (Field field : projected.fields()) {
        FieldVector target = field.toArrow().createVector(allocator);
        vectors.add(target);
        fill(target, field, chunk);
      }
      VectorSchemaRoot out = new VectorSchemaRoot(projected.toArrow().getFields(), vectors, chunk.length());
      if (step != null) {
        prefetch.release(step);
      }
      return out;
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
  }

  private void fill(FieldVector target, Field field, Chunk chunk) {
    int n = chunk.length();
    if (field.isStruct()) {
      StructVector struct = (StructVector) target;
      for (int i = 0; i < field.children().size(); i++) {
        fill((FieldVector) struct.getChildByOrdinal(i), field.children().get(i), chunk);
      }
      boolean[] nulls = structNulls(field, chunk);
      for (int row = 0; row < n; row++) {
        if (nulls[row]) {
          struct.setNull(row);
        } else {
          struct.setIndexDefined(row);
        }
      }
      struct.setValueCount(n);
      return;
    }
    Sources covered = atomicCoverage(field, chunk);
    Source source = sourceByField.get(field.id());
    if (covered == null) {
      if (source == null) {
        // No file stores the field in this fragment (added after it was written): all nulls.
        target.allocateNew();
        target.setValueCount(n);
        return;
      }
      OpenBatch batch = open.get(source.file());
      FieldVector from = batch.atomicByColumn().get(source.column());
      int offset = (int) (chunk.start() - metadata.get(source.file()).batchStart(batch.batch()));
      if (offset == 0 && n == from.getValueCount()) {
        from.makeTransferPair(target).transfer();
      } else {
        from.makeTransferPair(target).splitAndTransfer(offset, n);
      }
      return;
    }
    if (source != null && target instanceof BaseFixedWidthVector) {
      // Fixed width: take the base column's buffers as they are (no copy) and overwrite the covered rows
      // in place; cost is the covered rows, not the chunk. Each physical row is in exactly one chunk, so
      // writing through a slice shared with the base batch touches no row another chunk will read.
      OpenBatch batch = open.get(source.file());
      FieldVector from = batch.atomicByColumn().get(source.column());
      int offset = (int) (chunk.start() - metadata.get(source.file()).batchStart(batch.batch()));
      if (offset == 0 && n == from.getValueCount()) {
        from.makeTransferPair(target).transfer();
      } else {
        from.makeTransferPair(target).splitAndTransfer(offset, n);
      }
      for (int row = 0; row < n; row++) {
        int k = covered.overlay[row];
        if (k >= 0) {
          OverlayFile o = overlays.get(k);
          OpenBatch ob = o.batchAt(covered.row[row]);
          target.copyFrom(o.indexInBatch(ob, covered.row[row]), row, ob.atomicByColumn().get(o.columnOf.get(field.id())));
        }
      }
      target.setValueCount(n);
      return;
    }
    // Merge: every row copied from its newest source, in row order (variable-width targets grow sequentially).
    FieldVector base = null;
    FieldVector nulls = null;
    int baseOffset = 0;
    try {
      if (source != null) {
        OpenBatch batch = open.get(source.file());
        base = batch.atomicByColumn().get(source.column());
        baseOffset = (int) (chunk.start() - metadata.get(source.file()).batchStart(batch.batch()));
      } else {
        nulls = field.toArrow().createVector(allocator);
        nulls.allocateNew();
        nulls.setValueCount(1);
      }
      target.allocateNew();
      for (int row = 0; row < n; row++) {
        int k = covered.overlay[row];
        if (k >= 0) {
          OverlayFile o = overlays.get(k);
          OpenBatch batch = o.batchAt(covered.row[row]);
          FieldVector from = batch.atomicByColumn().get(o.columnOf.get(field.id()));
          target.copyFromSafe(o.indexInBatch(batch, covered.row[row]), row, from);
        } else if (base != null) {
          target.copyFromSafe(baseOffset + row, row, base);
        } else {
          target.copyFromSafe(0, row, nulls);
        }
      }
      target.setValueCount(n);
    } finally {
      if (nulls != null) {
        nulls.close();
      }
    }
  }

  /** Per row of a chunk: which overlay (index into {@link #overlays}, -1 for none), field and file row. */
  private static final class Sources {
    final int[] overlay;
    final int[] field;
    final long[] row;

    Sources(int n) {
      overlay = new int[n];
      Arrays.fill(overlay, -1);
      field = new int[n];
      row = new long[n];
    }
  }

  /** The newest overlay row for each row of the chunk for an atomic field, or null when none covers any. */
  private Sources atomicCoverage(Field field, Chunk chunk) {
    Sources out = null;
    for (int k = 0; k < overlays.size(); k++) {
      OverlayFile o = overlays.get(k);
      if (o.values.contains(field.id())) {
        out = cover(out, k, field.id(), o.coverage(field.id()), chunk);
      }
    }
    return out;
  }

  /** Like {@link #atomicCoverage} for a struct's validity: per overlay, its first covering carrier. */
  private Sources structCoverage(Field struct, Chunk chunk) {
    Sources out = null;
    for (int k = 0; k < overlays.size(); k++) {
      OverlayFile o = overlays.get(k);
      List<Integer> carriers = o.carriers.get(struct.id());
      if (carriers == null) {
        continue;
      }
      // Later carriers only fill offsets the earlier ones of this overlay left uncovered.
      boolean[] taken = null;
      for (int fieldId : carriers) {
        ImmutableRoaringBitmap cov = o.coverage(fieldId);
        if (cov.rangeCardinality(chunk.start(), chunk.start() + chunk.length()) == 0) {
          continue;
        }
        if (out == null) {
          out = new Sources(chunk.length());
        }
        if (taken == null) {
          taken = new boolean[chunk.length()];
        }
        long r = cov.rangeCardinality(0, chunk.start());
        PeekableIntIterator it = cov.getIntIterator();
        it.advanceIfNeeded((int) chunk.start());
        long end = chunk.start() + chunk.length();
        while (it.hasNext()) {
          long offset = Integer.toUnsignedLong(it.peekNext());
          if (offset >= end) {
            break;
          }
          it.next();
          int row = (int) (offset - chunk.start());
          if (!taken[row]) {
            taken[row] = true;
            out.overlay[row] = k;
            out.field[row] = fieldId;
            out.row[row] = r;
          }
          r++;
        }
      }
    }
    return out;
  }

  private static Sources cover(Sources out, int k, int fieldId, ImmutableRoaringBitmap cov, Chunk chunk) {
    long end = chunk.start() + chunk.length();
    if (cov.rangeCardinality(chunk.start(), end) == 0) {
      return out;
    }
    Sources s = out == null ? new Sources(chunk.length()) : out;
    long r = cov.rangeCardinality(0, chunk.start());
    PeekableIntIterator it = cov.getIntIterator();
    it.advanceIfNeeded((int) chunk.start());
    while (it.hasNext()) {
      long offset = Integer.toUnsignedLong(it.peekNext());
      if (offset >= end) {
        break;
      }
      it.next();
      int row = (int) (offset - chunk.start());
      s.overlay[row] = k;
      s.field[row] = fieldId;
      s.row[row] = r++;
    }
    return s;
  }

  /**
   * Per row of the chunk, whether the struct is null: the newest overlay covering any of its atomic
   * descendants decides, else its validity source in the base files (null when no base file stores a
   * live descendant).
   */
  private boolean[] structNulls(Field struct, Chunk chunk) {
    int n = chunk.length();
    boolean[] out = new boolean[n];
    BaseValidity base = baseValidity(struct, chunk);
    Sources covered = structCoverage(struct, chunk);
    int depth = depthOf(struct);
    for (int row = 0; row < n; row++) {
      if (covered != null && covered.overlay[row] >= 0) {
        out[row] = overlays.get(covered.overlay[row]).structIsNull(covered.field[row], depth, covered.row[row]);
      } else {
        out[row] = base.isNull(row);
      }
    }
    return out;
  }

  private BaseValidity baseValidity(Field struct, Chunk chunk) {
    ValiditySource source = validityByStruct.get(struct.id());
    if (source == null) {
      return row -> true;
    }
    DataFileMetadata md = metadata.get(source.file());
    int batch = batchOf(md, chunk.start());
    int offset = (int) (chunk.start() - md.batchStart(batch));
    int[] read = columnsByFile.get(source.file());
    if (read != null && Arrays.binarySearch(read, source.column()) >= 0) {
      // The source column is read for its values anyway: its loaded ancestors carry the validity.
      StructVector vector = open.get(source.file()).ancestorsByColumn().get(source.column()).get(source.depth());
      return row -> vector.isNull(offset + row);
    }
    LoadedBits loaded = validityBits.get(source);
    if (loaded == null || loaded.batch() != batch) {
      Integer plannedRead = takePlanned(new PlannedRead(source.file(), batch, source.column(), source.depth()));
      loaded = new LoadedBits(batch, plannedRead == null
          ? io.dataFiles().readStructValidity(source.file().path(), batch, source.column(), source.depth())
          : io.dataFiles().readStructValidity(source.file().path(), batch, source.column(), source.depth(),
              prefetch, plannedRead));
      validityBits.put(source, loaded);
    }
    StructValidityBits bits = loaded.bits();
    if (bits.length() != md.batchRowCount(batch)) {
      throw new CorruptFileException(io.store().locationOf(source.file().path()),
          "batch " + batch + " has " + md.batchRowCount(batch) + " rows but the validity of struct '"
              + table.pathOf(struct.id()) + "' has " + bits.length() + "; rewrite the file");
    }
    return row -> bits.isNull(offset + row);
  }

  private int depthOf(Field field) {
    return FragmentFiles.depthOf(table, field);
  }

  private void ensureOpen(DataFile file, Chunk chunk) {
    DataFileMetadata md = metadata.get(file);
    int batch = batchOf(md, chunk.start());
    OpenBatch current = open.get(file);
    if (current != null && current.batch() == batch) {
      return;
    }
    if (current != null) {
      current.root().close();
      open.remove(file);
    }
    open.put(file, readBatch(file, batch, columnsByFile.get(file)));
  }

  private OpenBatch readBatch(DataFile file, int batch, int[] columns) {
    Integer read = takePlanned(new PlannedRead(file, batch, -1, -1));
    VectorSchemaRoot root = read == null ? io.dataFiles().readBatch(file.path(), batch, columns, allocator)
        : io.dataFiles().readBatch(file.path(), batch, columns, allocator, prefetch, read);
    Map<Integer, FieldVector> atomic = new HashMap<>();
    Map<Integer, List<StructVector>> ancestors = new HashMap<>();
    int[] next = {0};
    for (FieldVector v : root.getFieldVectors()) {
      index(v, new ArrayList<>(), columns, next, atomic, ancestors);
    }
    return new OpenBatch(batch, root, atomic, ancestors);
  }

  /** Pairs the projected root's atomic vectors (depth-first) with the requested column indices. */
  private static void index(FieldVector v, List<StructVector> path, int[] columns, int[] next,
      Map<Integer, FieldVector> atomic, Map<Integer, List<StructVector>> ancestors) {
    if (v instanceof StructVector struct) {
      List<StructVector> deeper = new ArrayList<>(path);
      deeper.add(struct);
      for (FieldVector child : struct.getChildrenFromFields()) {
        index(child, deeper, columns, next, atomic, ancestors);
      }
      return;
    }
    int column = columns[next[0]++];
    atomic.put(column, v);
    ancestors.put(column, path);
  }

  private static int batchOf(DataFileMetadata md, long row) {
    return FragmentFiles.batchOf(md, row);
  }

  /**
   * One overlay's data file as far as this projection needs it: the projected fields it supplies values
   * for, and for each projected struct the fields whose rows carry the struct's validity. Its batches are
   * loaded as the chunks reach them and released once the chunks have passed them.
   */
  private static final class OverlayFile {
    final FragmentReader owner;
    final Overlay overlay;
    final DataFileMetadata md;
    /** Field id → position in the overlay file's field list (live fields only). */
    final Map<Integer, Integer> positionOf = new HashMap<>();
    /** Field id → atomic column index, for every field read. */
    final Map<Integer, Integer> columnOf = new HashMap<>();
    /** Projected atomic fields whose values this overlay supplies. */
    final Set<Integer> values = new HashSet<>();
    /** Projected struct id → fields (file order) whose rows carry its validity. */
    final Map<Integer, List<Integer>> carriers = new HashMap<>();
    final int[] columns;
    final TreeMap<Integer, OpenBatch> loaded = new TreeMap<>();

    private OverlayFile(FragmentReader owner, Overlay overlay, DataFileMetadata md, int[] columns) {
      this.owner = owner;
      this.overlay = overlay;
      this.md = md;
      this.columns = columns;
    }

    /** The reader for an overlay, or null when it touches nothing projected. */
    static OverlayFile plan(FragmentReader owner, Overlay overlay) {
      DataFile file = overlay.dataFile();
      Map<Integer, Integer> positions = new LinkedHashMap<>();
      for (int i = 0; i < file.fieldIds().size(); i++) {
        if (file.fieldIds().get(i) >= 0) {
          positions.put(file.fieldIds().get(i), i);
        }
      }
      Set<Integer> values = new HashSet<>();
      for (Field f : owner.validityOnly ? List.<Field>of() : owner.projected.atomicFields()) {
        if (positions.containsKey(f.id())) {
          values.add(f.id());
        }
      }
      Map<Integer, List<Integer>> carriers = new HashMap<>();
      for (Field struct : owner.projected.allFields()) {
        if (!struct.isStruct()) {
          continue;
        }
        Set<Integer> members = FragmentFiles.atomicMembers(owner.table, struct);
        List<Integer> found = new ArrayList<>();
        for (int id : positions.keySet()) {
          if (members.contains(id)) {
            found.add(id);
          }
        }
        if (found.isEmpty()) {
          continue;
        }
        if (overlay.coverage() instanceof Coverage.Shared) {
          // Every field shares the rows: one carrier is enough; prefer one that is read anyway.
          int pick = found.stream().filter(values::contains).findFirst().orElse(found.get(0));
          found = List.of(pick);
        }
        carriers.put(struct.id(), found);
      }
      if (values.isEmpty() && carriers.isEmpty()) {
        return null;
      }
      DataFileMetadata md = FragmentFiles.overlay(owner.io, owner.fragment, overlay);
      TreeMap<Integer, Integer> byColumn = new TreeMap<>();
      Set<Integer> read = new HashSet<>(values);
      carriers.values().forEach(read::addAll);
      for (int id : read) {
        byColumn.put(file.columnIndices().get(positions.get(id)), id);
      }
      int[] columns = byColumn.keySet().stream().mapToInt(Integer::intValue).toArray();
      OverlayFile out = new OverlayFile(owner, overlay, md, columns);
      out.positionOf.putAll(positions);
      byColumn.forEach((column, id) -> out.columnOf.put(id, column));
      out.values.addAll(values);
      out.carriers.putAll(carriers);
      return out;
    }

    ImmutableRoaringBitmap coverage(int fieldId) {
      return overlay.coverage().offsetsFor(positionOf.get(fieldId));
    }

    /** Loads the batches holding the rows of this chunk's covered offsets; drops the ones before them. */
    void load(Chunk chunk) {
      long[] rows = rowsFor(chunk);
      if (rows == null) {
        return;
      }
      int firstBatch = FragmentReader.batchOf(md, rows[0]);
      int lastBatch = FragmentReader.batchOf(md, rows[1] - 1);
      while (!loaded.isEmpty() && loaded.firstKey() < firstBatch) {
        loaded.pollFirstEntry().getValue().root().close();
      }
      for (int b = firstBatch; b <= lastBatch; b++) {
        if (!loaded.containsKey(b)) {
          loaded.put(b, owner.readBatch(overlay.dataFile(), b, columns));
        }
      }
    }

    /** The overlay file's rows {@code [lo, hi)} that cover offsets of the chunk, or null when none does. */
    long[] rowsFor(Chunk chunk) {
      long lo = Long.MAX_VALUE;
      long hi = Long.MIN_VALUE;
      for (int id : columnOf.keySet()) {
        ImmutableRoaringBitmap cov = coverage(id);
        long first = cov.rangeCardinality(0, chunk.start());
        long last = first + cov.rangeCardinality(chunk.start(), chunk.start() + chunk.length());
        if (last > first) {
          lo = Math.min(lo, first);
          hi = Math.max(hi, last);
        }
      }
      return hi <= lo ? null : new long[] {lo, hi};
    }

    OpenBatch batchAt(long row) {
      return loaded.get(FragmentReader.batchOf(md, row));
    }

    int indexInBatch(OpenBatch batch, long row) {
      return (int) (row - md.batchStart(batch.batch()));
    }

    boolean structIsNull(int carrier, int depth, long row) {
      OpenBatch batch = batchAt(row);
      List<StructVector> ancestors = batch.ancestorsByColumn().get(columnOf.get(carrier));
      if (depth >= ancestors.size()) {
        return false;
      }
      return ancestors.get(depth).isNull(indexInBatch(batch, row));
    }

    void close() {
      loaded.values().forEach(b -> b.root().close());
      loaded.clear();
    }
  }

  @Override
  public void close() {
    try {
      if (prefetch != null) {
        prefetch.close();
      }
      AutoCloseables.close(open.values().stream().map(OpenBatch::root).toList());
    } catch (Exception e) {
      throw new IllegalStateException("failed to release Arrow buffers", e);
    } finally {
      open.clear();
      overlays.forEach(OverlayFile::close);
    }
  }
}
