package io.quiver.internal.read;

import io.quiver.manifest.RowLineage;
import io.quiver.schema.ReservedNames;
import io.quiver.dataset.RowAddress;
import io.quiver.internal.file.FetchPool;
import io.quiver.internal.file.ReadOptions;
import io.quiver.internal.predicate.PredicateEvaluator;
import io.quiver.internal.table.TableIo;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.roaringbitmap.RoaringBitmap;

/**
 * The result of a scan as an Arrow reader: range by range (a fragment, or part of one), chunk by chunk,
 * deleted rows removed, the filter applied to what remains (overlays merged), optionally with the
 * {@code _rowaddr} column last. Fields only the filter reads are read and then dropped. Never returns an
 * empty batch before the end. Reads lazily; close it to release its buffers.
 */
final public class ScanReader extends ArrowReader {
  private final TableIo io;
  private final ScanSpec spec;
  private final Schema projected;
  /** What the current range reads and evaluates: the scan's, or the range's own (a residual filter). */
  private Schema read;
  private PredicateEvaluator evaluator;
  /** Per output column: true when the read field has exactly the projected shape (no member to drop). */
  private final boolean[] sameShape;
  private final Iterator<FragmentRange> ranges;
  private final BufferAllocator allocator;
  private final AutoCloseable onClose;
  private final ScanCounters counters;
  private final ReadOptions readOptions;
  /** The fetch threads this reader started (closed with it), or null. */
  private final FetchPool ownPool;
  private final Executor fetchPool;

  private FragmentReader reader;
  private FragmentRange range;
  private RoaringBitmap deleted;
  private Iterator<FragmentReader.Chunk> chunks;
  /** The range's selected live offsets when they are read by point reads, else null; the next one to read. */
  private long[] points;
  private int nextPoint;
  /** Most candidates per row of the chunks they fall in for a selection to be point-read (0: never). */
  private double pointReadShare = POINT_READ_SHARE;
  private long remaining;
  private long bytesDelivered;

  /** Scans {@code ranges} in order. */
  public ScanReader(TableIo io, ScanSpec spec, List<FragmentRange> ranges, BufferAllocator allocator) {
    this(io, spec, ranges, allocator, null);
  }

  /**
   * @param onClose closed after the reader's own buffers (e.g. the store and allocator of a task opened
   *     without a dataset handle); may be null
   */
  public ScanReader(TableIo io, ScanSpec spec, List<FragmentRange> ranges, BufferAllocator allocator,
      AutoCloseable onClose) {
    this(io, spec, ranges, allocator, onClose, ScanCounters.NONE);
  }

  /**
   * @param counters records the ranges skipped (no live rows, or not reached because the limit was) and the
   *     rows returned; the bytes and files are recorded by the store of {@code io} (a {@link
   *     MeteringObjectStore} when the caller meters)
   */
  public ScanReader(TableIo io, ScanSpec spec, List<FragmentRange> ranges, BufferAllocator allocator,
      AutoCloseable onClose, ScanCounters counters) {
    this(io, spec, ranges, allocator, onClose, counters, null);
  }

  /**
   * @param fetchPool where the fetch plan's requests run (shared by the readers of a parallel scan); null:
   *     this reader starts its own threads when it has requests to run ahead, and stops them on close
   */
  public ScanReader(TableIo io, ScanSpec spec, List<FragmentRange> ranges, BufferAllocator allocator,
      AutoCloseable onClose, ScanCounters counters, Executor fetchPool) {
    super(allocator);
    ReadOptions options = io.dataFiles().options();
    this.readOptions = options;
    if (fetchPool != null || !options.planned() || options.requestsInFlight() == 0) {
      this.ownPool = null;
      this.fetchPool = fetchPool;
    } else {
      this.ownPool = new FetchPool(options.requestsInFlight());
      this.fetchPool = ownPool;
    }
    this.counters = counters;
    this.io = io;
    this.spec = spec;
    this.projected = spec.projected();
    this.ranges = List.copyOf(ranges).iterator();
    this.allocator = allocator;
    this.onClose = onClose;
    this.remaining = spec.limit();
    this.sameShape = new boolean[projected.fields().size()];
    readWith(spec);
  }

  /** Reads and evaluates as {@code s} says (the scan's spec, or a range's own with the same projection). */
  private void readWith(ScanSpec s) {
    if (!s.projected().equals(projected)) {
      throw new IllegalStateException("a range's spec projects " + s.projected() + ", the scan " + projected);
    }
    this.read = s.readSchema();
    this.evaluator = s.evaluator();
    for (int c = 0; c < sameShape.length; c++) {
      io.quiver.schema.Field out = projected.fields().get(c);
      io.quiver.schema.Field in = read.fields().get(c);
      if (out.id() != in.id()) {
        throw new IllegalStateException("read schema " + read + " does not start with the projection " + projected);
      }
      sameShape[c] = out.equals(in);
    }
  }

  /**
   * A range's index selection is read by point reads when its live candidates are at most this share of the rows
   * of the chunks holding them (1 in 256, e.g. 32 of an 8,192-row chunk); denser selections read whole chunks and
   * filter them. Measured (docs/scan-planning.md, "Reading an index selection").
   */
  public static final double POINT_READ_SHARE = 1.0 / 256;

  /** Overrides {@link #POINT_READ_SHARE} (0: always whole chunks; 1: always point reads); before the first batch. */
  public ScanReader pointReadShare(double share) {
    this.pointReadShare = share;
    return this;
  }

  /** The row lineage columns a scan adds when asked, in this order (uint64, never null). */
  static final List<String> LINEAGE_COLUMNS = List.of(ReservedNames.ROW_ID,
      ReservedNames.ROW_CREATED_AT_VERSION, ReservedNames.ROW_LAST_UPDATED_AT_VERSION);

  static Field rowAddressField() {
    return new Field(RowAddress.COLUMN, FieldType.notNullable(new ArrowType.Int(64, false)), null);
  }

  @Override
  protected org.apache.arrow.vector.types.pojo.Schema readSchema() {
    return outputSchema(spec);
  }

  /** The Arrow schema of what a scan of {@code spec} returns: the projection, then {@code _rowaddr} if asked. */
  static org.apache.arrow.vector.types.pojo.Schema outputSchema(ScanSpec spec) {
    org.apache.arrow.vector.types.pojo.Schema projected = spec.projected().toArrow();
    List<Field> fields = new ArrayList<>(projected.getFields());
    if (spec.withRowAddress()) {
      fields.add(rowAddressField());
    }
    if (spec.withRowLineage()) {
      for (String name : LINEAGE_COLUMNS) {
        fields.add(new Field(name, FieldType.notNullable(new ArrowType.Int(64, false)), null));
      }
    }
    return new org.apache.arrow.vector.types.pojo.Schema(fields, projected.getCustomMetadata());
  }

  @Override
  public boolean loadNextBatch() throws java.io.IOException {
    VectorSchemaRoot out = getVectorSchemaRoot();
    while (true) {
      if (remaining == 0) {
        closeFragment();
        long notReached = 0;
        while (ranges.hasNext()) {
          ranges.next();
          notReached++;
        }
        counters.fragmentsPruned(notReached);
        out.setRowCount(0);
        return false;
      }
      if (points != null && nextPoint < points.length) {
        if (readPoints(out)) {
          return true;
        }
        continue;
      }
      if (chunks == null || !chunks.hasNext()) {
        closeFragment();
        if (!ranges.hasNext()) {
          out.setRowCount(0);
          return false;
        }
        range = ranges.next();
        if (range.fragment().liveRows() == 0 || range.physicalRows() == 0) {
          counters.fragmentsPruned(1);
          continue;
        }
        readWith(range.spec() != null ? range.spec() : spec);
        deleted = Deletions.of(io, range.fragment());
        reader = new FragmentReader(io, range.fragment(), read, spec.table(), allocator);
        List<FragmentReader.Chunk> toRead = chunksToRead(reader.plan(spec.batchSize(), range.start(), range.end()));
        points = pointReadable(toRead);
        if (points != null) {
          nextPoint = 0;
          chunks = java.util.Collections.emptyIterator();
          continue;
        }
        if (readOptions.planned()) {
          reader.prefetch(prefetchable(toRead), fetchPool);
        } else {
          reader.loadMetadata(toRead);
        }
        chunks = toRead.iterator();
        continue;
      }
      FragmentReader.Chunk chunk = chunks.next();
      long deletedInChunk = deleted.rangeCardinality(chunk.start(), chunk.start() + chunk.length());
      try (VectorSchemaRoot physical = reader.read(chunk)) {
        int[] selected = select(physical, chunk, deletedInChunk > 0 || range.selection() != null);
        int rows = selected == null ? chunk.length() : selected.length;
        if (rows == 0) {
          continue;
        }
        if (rows > remaining) {
          rows = (int) remaining;
          selected = selected == null ? identity(rows) : Arrays.copyOf(selected, rows);
        }
        emit(physical, chunk.length(), chunk.start(), null, selected, out);
        counters.rowsReturned(rows);
        if (remaining != ScanSpec.NO_LIMIT) {
          remaining -= rows;
        }
      }
      return true;
    }
  }

  /**
   * The chunks of the range that are read, in order: a chunk whose rows are all deleted is neither fetched
   * nor read, and zone pruning drops the chunks whose record batches' statistics show no row can match the
   * filter (counted as batches considered and pruned).
   */
  private List<FragmentReader.Chunk> chunksToRead(List<FragmentReader.Chunk> all) {
    counters.batchesConsidered(all.size());
    List<FragmentReader.Chunk> live = new ArrayList<>(all.size());
    RoaringBitmap selection = range.selection();
    for (FragmentReader.Chunk chunk : all) {
      if (selection != null) {
        long wanted = selection.rangeCardinality(chunk.start(), chunk.start() + chunk.length());
        if (wanted == 0) {
          continue; // no offset a scalar index selected (counted by the scan as answered by the index)
        }
      }
      if (deleted.rangeCardinality(chunk.start(), chunk.start() + chunk.length()) < chunk.length()) {
        live.add(chunk);
      }
    }
    if (spec.pruner() == null) {
      return live;
    }
    List<FragmentReader.Chunk> kept = reader.mayMatch(live, spec.pruner());
    counters.batchesPruned(live.size() - kept.size());
    return kept;
  }

  /**
   * The chunks worth fetching ahead: all of them, except under a limit without a filter, where the rows
   * each chunk returns are known, only as many as hold the rows still to return (a limit of 10 does not
   * fetch a fragment's worth of batches ahead).
   */
  private List<FragmentReader.Chunk> prefetchable(List<FragmentReader.Chunk> toRead) {
    if (remaining == ScanSpec.NO_LIMIT || evaluator != null) {
      return toRead;
    }
    long rows = 0;
    int n = 0;
    while (n < toRead.size() && rows < remaining) {
      FragmentReader.Chunk chunk = toRead.get(n++);
      rows += chunk.length() - deleted.rangeCardinality(chunk.start(), chunk.start() + chunk.length());
    }
    return toRead.subList(0, n);
  }

  /**
   * The live selected offsets of the chunks to read, when the range has an index selection sparse enough to read
   * them by point reads; else null (whole chunks are read and filtered).
   */
  private long[] pointReadable(List<FragmentReader.Chunk> toRead) {
    RoaringBitmap selection = range.selection();
    if (selection == null || toRead.isEmpty() || pointReadShare <= 0) {
      return null;
    }
    long rows = 0;
    RoaringBitmap wanted = new RoaringBitmap();
    for (FragmentReader.Chunk chunk : toRead) {
      rows += chunk.length();
      RoaringBitmap part = RoaringBitmap.and(selection, RoaringBitmap.bitmapOfRange(chunk.start(),
          chunk.start() + chunk.length()));
      wanted.or(part);
    }
    wanted.andNot(deleted);
    if (wanted.getLongCardinality() > rows * pointReadShare) {
      return null;
    }
    long[] out = new long[wanted.getCardinality()];
    org.roaringbitmap.IntIterator it = wanted.getIntIterator();
    for (int i = 0; it.hasNext(); i++) {
      out[i] = Integer.toUnsignedLong(it.next());
    }
    return out;
  }

  /**
   * Reads the next batch of the range's point offsets (at most the batch size) and emits the rows the filter
   * keeps; false when it keeps none.
   */
  private boolean readPoints(VectorSchemaRoot out) {
    int n = (int) Math.min(spec.batchSize(), points.length - nextPoint);
    long[] offsets = Arrays.copyOfRange(points, nextPoint, nextPoint + n);
    nextPoint += n;
    counters.rowsPointRead(n);
    try (VectorSchemaRoot physical = PointTake.readRows(io, range.fragment(), spec.table(), read, offsets, allocator)) {
      int[] selected = null;
      if (evaluator != null) {
        BitSet match = evaluator.evaluate(physical);
        selected = match.cardinality() == n ? null : match.stream().toArray();
      }
      int rows = selected == null ? n : selected.length;
      if (rows == 0) {
        return false;
      }
      if (rows > remaining) {
        rows = (int) remaining;
        selected = selected == null ? identity(rows) : Arrays.copyOf(selected, rows);
      }
      emit(physical, n, 0, offsets, selected, out);
      counters.rowsReturned(rows);
      if (remaining != ScanSpec.NO_LIMIT) {
        remaining -= rows;
      }
      return true;
    }
  }

  /** The chunk's rows to return, ascending: live, and true for the filter; null for all of them. */
  private int[] select(VectorSchemaRoot physical, FragmentReader.Chunk chunk, boolean hasDeletes) {
    int[] live = hasDeletes ? liveRows(chunk) : null;
    if (evaluator == null) {
      return live;
    }
    BitSet match = evaluator.evaluate(physical);
    if (live == null) {
      if (match.cardinality() == chunk.length()) {
        return null;
      }
      return match.stream().toArray();
    }
    int n = 0;
    int[] out = new int[live.length];
    for (int row : live) {
      if (match.get(row)) {
        out[n++] = row;
      }
    }
    return Arrays.copyOf(out, n);
  }

  private static int[] identity(int n) {
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = i;
    }
    return out;
  }

  /**
   * Moves the selected rows of the projected columns into the reader's root. Row {@code i} of {@code physical} is
   * the fragment's offset {@code base + i}, or {@code offsets[i]} when the rows were point-read.
   */
  private void emit(VectorSchemaRoot physical, int physicalRows, long base, long[] offsets, int[] selected,
      VectorSchemaRoot out) {
    List<FieldVector> outVectors = out.getFieldVectors();
    int rows = selected == null ? physicalRows : selected.length;
    for (int c = 0; c < sameShape.length; c++) {
      FieldVector from = physical.getVector(c);
      FieldVector to = outVectors.get(c);
      if (sameShape[c]) {
        copy(from, to, selected);
      } else {
        narrow((StructVector) from, (StructVector) to, selected, rows);
      }
    }
    if (spec.withRowLineage()) {
      RowLineage lineage = range.fragment().lineage().orElseThrow(() -> new IllegalStateException(
          "fragment " + range.fragment().id() + " of a table with row ids has no row lineage"));
      int first = outVectors.size() - 3;
      UInt8Vector ids = (UInt8Vector) outVectors.get(first);
      UInt8Vector created = (UInt8Vector) outVectors.get(first + 1);
      UInt8Vector updated = (UInt8Vector) outVectors.get(first + 2);
      for (UInt8Vector v : List.of(ids, created, updated)) {
        v.clear();
        v.allocateNew(rows);
      }
      long[] rowOffsets = new long[rows];
      for (int i = 0; i < rows; i++) {
        rowOffsets[i] = offsetOf(selected == null ? i : selected[i], base, offsets);
      }
      long[] idValues = new long[rows];
      long[] createdValues = new long[rows];
      long[] updatedValues = new long[rows];
      lineage.fill(rowOffsets, rows, idValues, createdValues, updatedValues);
      for (int i = 0; i < rows; i++) {
        ids.set(i, idValues[i]);
        created.set(i, createdValues[i]);
        updated.set(i, updatedValues[i]);
      }
      for (UInt8Vector v : List.of(ids, created, updated)) {
        v.setValueCount(rows);
      }
    }
    if (spec.withRowAddress()) {
      UInt8Vector addresses = (UInt8Vector) outVectors.get(outVectors.size() - 1 - (spec.withRowLineage() ? 3 : 0));
      addresses.clear();
      addresses.allocateNew(rows);
      long fragmentId = range.fragment().id();
      for (int i = 0; i < rows; i++) {
        addresses.set(i, RowAddress.of(fragmentId, offsetOf(selected == null ? i : selected[i], base, offsets)));
      }
      addresses.setValueCount(rows);
    }
    out.setRowCount(rows);
    for (FieldVector v : outVectors) {
      bytesDelivered += v.getBufferSize();
    }
  }

  private static long offsetOf(int row, long base, long[] offsets) {
    return offsets != null ? offsets[row] : base + row;
  }

  /** {@code to} (same type and shape as {@code from}) gets {@code from}'s rows {@code selected} (null: all). */
  private static void copy(FieldVector from, FieldVector to, int[] selected) {
    if (selected == null) {
      from.makeTransferPair(to).transfer();
      return;
    }
    SelectedRows.copy(from, to, selected);
  }

  /**
   * {@code to}, a struct with a subset of {@code from}'s members (the ones projected; {@code from} also
   * holds the ones only the filter reads), gets the selected rows of its members and validity.
   */
  private static void narrow(StructVector from, StructVector to, int[] selected, int rows) {
    for (FieldVector child : to.getChildrenFromFields()) {
      FieldVector source = from.getChild(child.getName());
      if (source.getField().equals(child.getField())) {
        copy(source, child, selected);
      } else {
        narrow((StructVector) source, (StructVector) child, selected, rows);
      }
    }
    for (int i = 0; i < rows; i++) {
      if (from.isNull(selected == null ? i : selected[i])) {
        to.setNull(i);
      } else {
        to.setIndexDefined(i);
      }
    }
    to.setValueCount(rows);
  }

  /** Rows of the chunk that are not deleted and, under an index selection, selected. */
  private int[] liveRows(FragmentReader.Chunk chunk) {
    RoaringBitmap selection = range.selection();
    if (selection != null) {
      int[] live = new int[(int) selection.rangeCardinality(chunk.start(), chunk.start() + chunk.length())];
      int n = 0;
      // Ascending offsets from the chunk's start.
      org.roaringbitmap.PeekableIntIterator peek = selection.getIntIterator();
      peek.advanceIfNeeded((int) chunk.start());
      while (peek.hasNext()) {
        int offset = peek.next();
        if (offset >= chunk.start() + chunk.length()) {
          break;
        }
        if (!deleted.contains(offset)) {
          live[n++] = (int) (offset - chunk.start());
        }
      }
      return Arrays.copyOf(live, n);
    }
    // The chunk's rows but the deleted ones: walk the deleted offsets in the chunk, not every row's bit.
    int start = (int) chunk.start();
    int length = chunk.length();
    int[] live = new int[length];
    org.roaringbitmap.PeekableIntIterator gone = deleted.getIntIterator();
    gone.advanceIfNeeded(start);
    int nextGone = gone.hasNext() ? gone.next() - start : length;
    int n = 0;
    for (int i = 0; i < length; i++) {
      if (i == nextGone) {
        nextGone = gone.hasNext() ? gone.next() - start : length;
        continue;
      }
      live[n++] = i;
    }
    return Arrays.copyOf(live, n);
  }

  private void closeFragment() {
    if (reader != null) {
      reader.close();
      reader = null;
    }
    chunks = null;
    points = null;
  }

  /** Bytes of Arrow buffers handed out so far (there is no single channel to count). */
  @Override
  public long bytesRead() {
    return bytesDelivered;
  }

  @Override
  protected void closeReadSource() throws java.io.IOException {
    try {
      try {
        closeFragment();
      } finally {
        if (ownPool != null) {
          ownPool.close();
        }
      }
    } finally {
      if (onClose != null) {
        try {
          onClose.close();
        } catch (java.io.IOException | RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new java.io.IOException(e);
        }
      }
    }
  }
}
