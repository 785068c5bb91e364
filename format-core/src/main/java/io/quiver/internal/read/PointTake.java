package io.quiver.internal.read;

import io.quiver.dataset.RowAddress;
import io.quiver.exceptions.NotFoundException;
import io.quiver.exceptions.QuiverException;
import io.quiver.internal.file.DataFileMetadata;
import io.quiver.internal.file.PointReader;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.Coverage;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.buffer.ImmutableRoaringBitmap;

/**
 * {@code take} by point reads: for each wanted row and projected field, the one place its value comes
 * from (the newest overlay covering it, else the base file storing the field, else null), then only those
 * rows' bytes, fetched per data file with {@link PointReader} (one {@link io.quiver.store.ObjectStore#readRanges}
 * per round). The rules are {@link FragmentReader}'s (docs/format.md §3 and §5), applied to single offsets
 * instead of chunks: a covered null is a null, a struct's validity comes from the newest overlay covering
 * any of its atomic descendants (its first covering carrier in file order), else from the base file of its
 * first live atomic descendant; {@code TakeEqualityTest} pins that the result equals {@link
 * Take#takeByBatches} cell for cell.
 */
final class PointTake {
  private PointTake() {}

  static VectorSchemaRoot take(TableIo io, Manifest manifest, Schema projected, long[] addresses,
      BufferAllocator allocator, int threads) {
    Map<Long, Fragment> fragments = new HashMap<>();
    if (manifest.fragments() instanceof io.quiver.manifest.FragmentList list) {
      // A segmented version: read only the segments holding the addressed fragments.
      for (long address : addresses) {
        long id = RowAddress.fragmentId(address);
        if (!fragments.containsKey(id)) {
          list.find(id).ifPresent(f -> fragments.put(id, f));
        }
      }
    } else {
      for (Fragment f : manifest.fragments()) {
        fragments.put(f.id(), f);
      }
    }
    for (long address : addresses) {
      Take.check(io, fragments, address);
    }
    Map<Long, TreeSet<Long>> wanted = new TreeMap<>(Long::compareUnsigned);
    for (long address : addresses) {
      wanted.computeIfAbsent(RowAddress.fragmentId(address), id -> new TreeSet<>()).add(RowAddress.offset(address));
    }
    PointReader reader = new PointReader(io.store(), io.dataFiles(), io.dataFiles().options().takeGapBytes());
    Map<Long, FragmentPoints> planned = new HashMap<>();
    Map<Integer, FieldVector> nulls = new HashMap<>();
    try {
      for (Map.Entry<Long, TreeSet<Long>> e : wanted.entrySet()) {
        Fragment fragment = fragments.get(e.getKey());
        long[] offsets = e.getValue().stream().mapToLong(Long::longValue).toArray();
        FragmentPoints points = new FragmentPoints(io, fragment, projected, manifest.schema(), offsets);
        planned.put(fragment.id(), points);
        RoaringBitmap deleted = Deletions.of(io, fragment);
        for (long offset : offsets) {
          if (deleted.contains((int) offset)) {
            throw new NotFoundException(
                "row address " + RowAddress.of(fragment.id(), offset) + " (fragment " + fragment.id() + ", offset "
                    + offset + ") was deleted at version " + manifest.version() + " or earlier");
          }
        }
        points.plan();
      }
      List<FileReads> reads = new ArrayList<>();
      for (FragmentPoints points : planned.values()) {
        points.reads(reads);
      }
      readAll(reads, reader, allocator, threads);
      return output(new Output(addresses, planned, nulls, allocator), projected, allocator);
    } finally {
      planned.values().forEach(FragmentPoints::close);
      nulls.values().forEach(FieldVector::close);
    }
  }

  /**
   * The {@code projected} fields (of the version's schema {@code table}) of {@code fragment}'s rows at {@code
   * offsets}, in that order: what a scan's whole chunks would hold at those offsets (overlays newest first, struct
   * validity, covered nulls), read by point reads on the calling thread. The offsets are ascending, distinct,
   * within the fragment and not deleted: the caller (a scan reading an index selection) has checked.
   */
  static VectorSchemaRoot readRows(TableIo io, Fragment fragment, Schema table, Schema projected, long[] offsets,
      BufferAllocator allocator) {
    long[] addresses = new long[offsets.length];
    for (int i = 0; i < offsets.length; i++) {
      addresses[i] = RowAddress.of(fragment.id(), offsets[i]);
    }
    PointReader reader = new PointReader(io.store(), io.dataFiles(), io.dataFiles().options().takeGapBytes());
    Map<Integer, FieldVector> nulls = new HashMap<>();
    FragmentPoints points = new FragmentPoints(io, fragment, projected, table, offsets);
    try {
      points.plan();
      List<FileReads> reads = new ArrayList<>();
      points.reads(reads);
      readAll(reads, reader, allocator, 1);
      return output(new Output(addresses, Map.of(fragment.id(), points), nulls, allocator), projected, allocator);
    } finally {
      points.close();
      nulls.values().forEach(FieldVector::close);
    }
  }

  private static VectorSchemaRoot output(Output output, Schema projected, BufferAllocator allocator) {
    VectorSchemaRoot out = VectorSchemaRoot.create(projected.toArrow(), allocator);
    try {
      out.allocateNew();
      for (int v = 0; v < projected.fields().size(); v++) {
        output.fill(out.getVector(v), projected.fields().get(v));
      }
      out.setRowCount(output.addresses().length);
      return out;
    } catch (RuntimeException ex) {
      out.close();
      throw ex;
    }
  }

  /**
   * Reads every file, on {@code threads} threads of the take's own when more than one file and thread
   * (each thread a file at a time), else on the calling thread. The first failure stops the other threads
   * from starting another file and is rethrown once every thread has stopped, so the caller may release
   * what the reads hold.
   */
  private static void readAll(List<FileReads> reads, PointReader reader, BufferAllocator allocator, int threads) {
    int n = Math.min(threads, reads.size());
    if (n <= 1) {
      for (FileReads r : reads) {
        r.read(reader, allocator);
      }
      return;
    }
    AtomicInteger next = new AtomicInteger();
    AtomicInteger names = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(n, task -> {
      Thread t = new Thread(task, "quiver-take-" + names.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    List<Future<?>> running = new ArrayList<>();
    Throwable failure = null;
    boolean interrupted = false;
    try {
      for (int i = 0; i < n; i++) {
        running.add(pool.submit(() -> {
          for (int k = next.getAndIncrement(); k < reads.size(); k = next.getAndIncrement()) {
            reads.get(k).read(reader, allocator);
          }
          return null;
        }));
      }
      for (Future<?> f : running) {
        while (true) {
          try {
            f.get();
            break;
          } catch (InterruptedException e) {
            interrupted = true; // keep waiting: the threads write into memory the caller releases
            next.set(reads.size());
          } catch (ExecutionException e) {
            next.set(reads.size());
            failure = failure == null ? e.getCause() : failure;
            break;
          }
        }
      }
    } finally {
      pool.shutdown();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    if (failure instanceof RuntimeException e) {
      throw e;
    }
    if (failure instanceof Error e) {
      throw e;
    }
    if (interrupted) {
      throw new QuiverException("the take was interrupted while reading its rows; nothing was returned");
    }
  }

  /** Writes the output vectors row by row, in the order the addresses were asked for. */
  private record Output(long[] addresses, Map<Long, FragmentPoints> planned, Map<Integer, FieldVector> nulls,
      BufferAllocator allocator) {

    void fill(FieldVector target, Field field) {
      int n = addresses.length;
      if (field.isStruct()) {
        StructVector struct = (StructVector) target;
        for (int i = 0; i < field.children().size(); i++) {
          fill((FieldVector) struct.getChildByOrdinal(i), field.children().get(i));
        }
        for (int i = 0; i < n; i++) {
          FragmentPoints points = planned.get(RowAddress.fragmentId(addresses[i]));
          if (points.structNull(field.id(), points.slot(RowAddress.offset(addresses[i])))) {
            struct.setNull(i);
          } else {
            struct.setIndexDefined(i);
          }
        }
        struct.setValueCount(n);
        return;
      }
      for (int i = 0; i < n; i++) {
        FragmentPoints points = planned.get(RowAddress.fragmentId(addresses[i]));
        CellRef ref = points.cell(field.id(), points.slot(RowAddress.offset(addresses[i])));
        if (ref == null) {
          target.copyFromSafe(0, i, nulls.computeIfAbsent(field.id(), id -> nullVector(field)));
        } else {
          PointReader.Values values = ref.reads().values(ref.key());
          target.copyFromSafe(values.index(ref.reads().position(ref.key(), ref.row())), i, values.vector());
        }
      }
      target.setValueCount(n);
    }

    private FieldVector nullVector(Field field) {
      FieldVector v = field.toArrow().createVector(allocator);
      v.allocateNew();
      v.setValueCount(1);
      return v;
    }
  }

  /** Where one cell's value is: a row of a batch of one column of a file read. */
  private record CellRef(FileReads reads, long key, int row) {}

  /** Where one struct's validity at one offset is: a row of a struct's validity in a file read. */
  private record BitsRef(FileReads reads, StructKey key, int row) {}

  private record StructKey(int batch, int column, int depth) {}

  /** One data file of a fragment as this take reads it: the rows wanted per batch and column. */
  private static final class FileReads {
    final DataFile file;
    final DataFileMetadata md;
    final Map<Long, TreeSet<Integer>> cells = new LinkedHashMap<>();
    final Map<StructKey, TreeSet<Integer>> structs = new LinkedHashMap<>();
    final Map<Long, Integer> cellIndex = new HashMap<>();
    final Map<StructKey, Integer> structIndex = new HashMap<>();
    final List<int[]> cellRows = new ArrayList<>();
    final List<int[]> structRows = new ArrayList<>();
    PointReader.Result result;

    FileReads(DataFile file, DataFileMetadata md) {
      this.file = file;
      this.md = md;
    }

    CellRef cell(int column, long fileRow) {
      int batch = FragmentFiles.batchOf(md, fileRow);
      int row = (int) (fileRow - md.batchStart(batch));
      // Not (batch << 32 | column): Long's hash of that is batch ^ column, and a take's keys collided.
      long key = (long) batch * md.atomicColumnCount() + column;
      cells.computeIfAbsent(key, k -> new TreeSet<>()).add(row);
      return new CellRef(this, key, row);
    }

    BitsRef struct(int column, int depth, long fileRow) {
      int batch = FragmentFiles.batchOf(md, fileRow);
      int row = (int) (fileRow - md.batchStart(batch));
      StructKey key = new StructKey(batch, column, depth);
      structs.computeIfAbsent(key, k -> new TreeSet<>()).add(row);
      return new BitsRef(this, key, row);
    }

    void read(PointReader reader, BufferAllocator allocator) {
      List<PointReader.Cells> c = new ArrayList<>();
      cells.forEach((key, rows) -> {
        int[] r = rows.stream().mapToInt(Integer::intValue).toArray();
        cellIndex.put(key, c.size());
        cellRows.add(r);
        c.add(new PointReader.Cells((int) (key / md.atomicColumnCount()), (int) (key % md.atomicColumnCount()), r));
      });
      List<PointReader.StructRows> s = new ArrayList<>();
      structs.forEach((key, rows) -> {
        int[] r = rows.stream().mapToInt(Integer::intValue).toArray();
        structIndex.put(key, s.size());
        structRows.add(r);
        s.add(new PointReader.StructRows(key.batch(), key.column(), key.depth(), r));
      });
      result = reader.read(file.path(), c, s, allocator);
    }

    PointReader.Values values(long key) {
      return result.values().get(cellIndex.get(key));
    }

    int position(long key, int row) {
      return Arrays.binarySearch(cellRows.get(cellIndex.get(key)), row);
    }

    boolean isNull(StructKey key, int row) {
      int i = structIndex.get(key);
      return result.structNulls().get(i)[Arrays.binarySearch(structRows.get(i), row)];
    }

    void close() {
      if (result != null) {
        result.close();
      }
    }
  }

  /** An overlay that touches the projection: its file and each live field's position in it. */
  private record OverlayInfo(Overlay overlay, FileReads reads, Map<Integer, Integer> positions) {
    ImmutableRoaringBitmap coverage(int fieldId) {
      return overlay.coverage().offsetsFor(positions.get(fieldId));
    }

    int column(int fieldId) {
      return overlay.dataFile().columnIndices().get(positions.get(fieldId));
    }
  }

  /** One fragment's wanted offsets and, per projected field, where each one's value comes from. */
  private static final class FragmentPoints {
    final TableIo io;
    final Fragment fragment;
    final Schema projected;
    final Schema table;
    final long[] offsets;
    /** Keyed by path: a DataFile's record hash walks its statistics, which showed in take profiles. */
    final Map<String, FileReads> files = new LinkedHashMap<>();
    final List<OverlayInfo> overlays = new ArrayList<>();
    final Map<Integer, CellRef[]> cells = new HashMap<>();
    /** Per struct id and offset: a validity row to read, or null when the answer needs no read. */
    final Map<Integer, BitsRef[]> structRefs = new HashMap<>();
    final Map<Integer, boolean[]> structConstants = new HashMap<>();

    FragmentPoints(TableIo io, Fragment fragment, Schema projected, Schema table, long[] offsets) {
      this.io = io;
      this.fragment = fragment;
      this.projected = projected;
      this.table = table;
      this.offsets = offsets;
      for (Field field : projected.atomicFields()) {
        DataFile base = baseFile(field.id());
        if (base != null) {
          base(base);
        }
      }
      for (Field field : projected.allFields()) {
        if (field.isStruct()) {
          FragmentFiles.StructSource source = FragmentFiles.validitySource(table, fragment, field);
          if (source != null) {
            base(source.file());
          }
        }
      }
      List<Overlay> ordered = new ArrayList<>(fragment.overlays());
      ordered.sort(Comparator.comparingLong(Overlay::committedVersion)); // stable: list position breaks ties
      for (Overlay overlay : ordered) {
        OverlayInfo info = overlay(overlay);
        if (info != null) {
          overlays.add(info);
        }
      }
    }

    int slot(long offset) {
      return Arrays.binarySearch(offsets, offset);
    }

    CellRef cell(int fieldId, int slot) {
      return cells.get(fieldId)[slot];
    }

    boolean structNull(int structId, int slot) {
      BitsRef ref = structRefs.get(structId)[slot];
      return ref == null ? structConstants.get(structId)[slot] : ref.reads().isNull(ref.key(), ref.row());
    }

    private DataFile baseFile(int fieldId) {
      for (DataFile file : fragment.files()) {
        if (file.columnOf(fieldId) >= 0) {
          return file;
        }
      }
      return null;
    }

    private FileReads base(DataFile file) {
      return files.computeIfAbsent(file.path(), p -> new FileReads(file, FragmentFiles.base(io, fragment, file)));
    }

    /** The overlay as far as the projection needs it, or null when it touches nothing projected. */
    private OverlayInfo overlay(Overlay overlay) {
      DataFile file = overlay.dataFile();
      Map<Integer, Integer> positions = new LinkedHashMap<>();
      for (int i = 0; i < file.fieldIds().size(); i++) {
        if (file.fieldIds().get(i) >= 0) {
          positions.put(file.fieldIds().get(i), i);
        }
      }
      boolean touches = projected.atomicFields().stream().anyMatch(f -> positions.containsKey(f.id()));
      for (Field struct : projected.allFields()) {
        if (struct.isStruct() && !carriers(struct, positions).isEmpty()) {
          touches = true;
        }
      }
      if (!touches) {
        return null;
      }
      FileReads reads = new FileReads(file, FragmentFiles.overlay(io, fragment, overlay));
      files.put(file.path(), reads);
      return new OverlayInfo(overlay, reads, positions);
    }

    /** The overlay's live fields that carry a struct's validity: its atomic descendants, in file order. */
    private List<Integer> carriers(Field struct, Map<Integer, Integer> positions) {
      Set<Integer> members = FragmentFiles.atomicMembers(table, struct);
      List<Integer> found = new ArrayList<>();
      for (int id : positions.keySet()) {
        if (members.contains(id)) {
          found.add(id);
        }
      }
      return found;
    }

    /** Decides, for every projected field and wanted offset, which row of which file to read. */
    void plan() {
      for (Field field : projected.allFields()) {
        if (field.isStruct()) {
          planStruct(field);
        } else if (projected.atomicFields().contains(field)) {
          planAtomic(field);
        }
      }
    }

    private void planAtomic(Field field) {
      CellRef[] refs = new CellRef[offsets.length];
      DataFile base = baseFile(field.id());
      for (int j = 0; j < offsets.length; j++) {
        long offset = offsets[j];
        CellRef ref = null;
        for (int k = overlays.size() - 1; k >= 0 && ref == null; k--) {
          OverlayInfo o = overlays.get(k);
          if (o.positions().containsKey(field.id())) {
            ImmutableRoaringBitmap cov = o.coverage(field.id());
            if (cov.contains((int) offset)) {
              ref = o.reads().cell(o.column(field.id()), cov.rangeCardinality(0, offset));
            }
          }
        }
        if (ref == null && base != null) {
          ref = files.get(base.path()).cell(base.columnOf(field.id()), offset);
        }
        refs[j] = ref;
      }
      cells.put(field.id(), refs);
    }

    private void planStruct(Field struct) {
      BitsRef[] refs = new BitsRef[offsets.length];
      boolean[] constants = new boolean[offsets.length];
      int depth = FragmentFiles.depthOf(table, struct);
      FragmentFiles.StructSource source = FragmentFiles.validitySource(table, fragment, struct);
      for (int j = 0; j < offsets.length; j++) {
        long offset = offsets[j];
        boolean decided = false;
        for (int k = overlays.size() - 1; k >= 0 && !decided; k--) {
          OverlayInfo o = overlays.get(k);
          List<Integer> carriers = carriers(struct, o.positions());
          if (carriers.isEmpty()) {
            continue;
          }
          if (o.overlay().coverage() instanceof Coverage.Shared) {
            // Every field shares the rows: one carrier is enough (FragmentReader prefers one read anyway).
            int pick = carriers.stream().filter(id -> projected.atomicFields().stream().anyMatch(f -> f.id() == id))
                .findFirst().orElse(carriers.get(0));
            carriers = List.of(pick);
          }
          for (int carrier : carriers) {
            ImmutableRoaringBitmap cov = o.coverage(carrier);
            if (!cov.contains((int) offset)) {
              continue;
            }
            int column = o.column(carrier);
            if (depth >= o.reads().md.atomicColumnDepth(column)) {
              constants[j] = false; // the carrier is not nested that deep in the overlay file
            } else {
              refs[j] = o.reads().struct(column, depth, cov.rangeCardinality(0, offset));
            }
            decided = true;
            break;
          }
        }
        if (!decided) {
          if (source == null) {
            constants[j] = true; // no base file stores a live descendant: null
          } else {
            refs[j] = files.get(source.file().path()).struct(source.column(), depth, offset);
          }
        }
      }
      structRefs.put(struct.id(), refs);
      structConstants.put(struct.id(), constants);
    }


    /** Adds the data files this fragment's rows need read to {@code out}. */
    void reads(List<FileReads> out) {
      for (FileReads reads : files.values()) {
        if (!reads.cells.isEmpty() || !reads.structs.isEmpty()) {
          out.add(reads);
        }
      }
    }

    void close() {
      files.values().forEach(FileReads::close);
    }
  }
}
