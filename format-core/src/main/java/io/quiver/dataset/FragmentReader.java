package io.quiver.dataset;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.UnsupportedFormatException;
import io.quiver.file.DataFileMetadata;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Reads one fragment's projected fields in chunks of physical rows, assembling each projected field
 * from whichever data file stores it. Chunks never cross a record-batch boundary of any file read, so
 * every chunk costs at most one batch read per file. Deletions are not applied here.
 */
final class FragmentReader implements AutoCloseable {
  private final TableIo io;
  private final Fragment fragment;
  private final Schema projected;
  private final BufferAllocator allocator;
  private final Map<DataFile, int[]> columnsByFile = new LinkedHashMap<>();
  private final Map<Integer, Source> sourceByField = new HashMap<>();
  private final Map<DataFile, DataFileMetadata> metadata = new HashMap<>();
  private final Map<DataFile, OpenBatch> open = new HashMap<>();

  /** Where an atomic field's values come from: a file and its atomic column index. */
  private record Source(DataFile file, int column) {}

  private record OpenBatch(int batch, VectorSchemaRoot root, Map<Integer, FieldVector> atomicByColumn,
      Map<Integer, List<StructVector>> ancestorsByColumn) {}

  /** A run of physical rows {@code [start, start + length)} of the fragment. */
  record Chunk(long start, int length) {}

  FragmentReader(TableIo io, Fragment fragment, Schema projected, BufferAllocator allocator) {
    this.io = io;
    this.fragment = fragment;
    this.projected = projected;
    this.allocator = allocator;
    if (!fragment.overlays().isEmpty()) {
      throw new UnsupportedFormatException(
          "fragment " + fragment.id() + " of " + io.location() + " carries overlays, which this build of Quiver"
              + " cannot merge into reads; upgrade Quiver to read this table");
    }
    Map<DataFile, TreeSet<Integer>> columns = new LinkedHashMap<>();
    for (Field field : projected.atomicFields()) {
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
    for (DataFile file : columnsByFile.keySet()) {
      DataFileMetadata md = io.dataFiles().metadata(file.path());
      if (md.fileSize() != file.sizeBytes()) {
        throw new CorruptFileException(
            io.store().locationOf(file.path()),
            "is " + md.fileSize() + " bytes but the manifest of fragment " + fragment.id() + " records "
                + file.sizeBytes() + "; the file was truncated or replaced");
      }
      if (md.rowCount() != fragment.physicalRows()) {
        throw new CorruptFileException(
            io.store().locationOf(file.path()),
            "holds " + md.rowCount() + " rows but fragment " + fragment.id() + " has " + fragment.physicalRows()
                + " physical rows");
      }
      metadata.put(file, md);
    }
  }

  /** Chunks covering all physical rows, each at most {@code maxRows} long. */
  List<Chunk> plan(int maxRows) {
    TreeSet<Long> cuts = new TreeSet<>();
    cuts.add(0L);
    cuts.add(fragment.physicalRows());
    for (DataFileMetadata md : metadata.values()) {
      for (int b = 0; b < md.batchCount(); b++) {
        cuts.add(md.batchStart(b));
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

  /** The projected fields of the chunk's physical rows; the caller closes the result. */
  VectorSchemaRoot read(Chunk chunk) {
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (DataFile file : columnsByFile.keySet()) {
        ensureOpen(file, chunk);
      }
      for (Field field : projected.fields()) {
        FieldVector target = field.toArrow().createVector(allocator);
        vectors.add(target);
        fill(target, field, chunk);
      }
      return new VectorSchemaRoot(projected.toArrow().getFields(), vectors, chunk.length());
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
      StructVector validity = structSource(field, chunk);
      for (int row = 0; row < n; row++) {
        if (validity == null || validity.isNull(rowInBatch(field, chunk, row))) {
          struct.setNull(row);
        } else {
          struct.setIndexDefined(row);
        }
      }
      struct.setValueCount(n);
      return;
    }
    Source source = sourceByField.get(field.id());
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
  }

  /** The struct vector (in some file) that carries this struct's validity: the first descendant's file. */
  private StructVector structSource(Field struct, Chunk chunk) {
    for (Field leaf : struct.preorder()) {
      Source source = sourceByField.get(leaf.id());
      if (source != null && leaf.isAtomic()) {
        List<StructVector> ancestors = open.get(source.file()).ancestorsByColumn().get(source.column());
        int depth = depthOf(struct);
        return depth < ancestors.size() ? ancestors.get(depth) : null;
      }
    }
    return null;
  }

  private int rowInBatch(Field struct, Chunk chunk, int row) {
    for (Field leaf : struct.preorder()) {
      Source source = sourceByField.get(leaf.id());
      if (source != null && leaf.isAtomic()) {
        OpenBatch batch = open.get(source.file());
        return (int) (chunk.start() - metadata.get(source.file()).batchStart(batch.batch())) + row;
      }
    }
    return row;
  }

  private int depthOf(Field field) {
    int depth = 0;
    int parent = field.parentId();
    while (parent >= 0) {
      depth++;
      parent = projected.field(parent).parentId();
    }
    return depth;
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
    int[] columns = columnsByFile.get(file);
    VectorSchemaRoot root = io.dataFiles().readBatch(file.path(), batch, columns, allocator);
    Map<Integer, FieldVector> atomic = new HashMap<>();
    Map<Integer, List<StructVector>> ancestors = new HashMap<>();
    int[] next = {0};
    for (FieldVector v : root.getFieldVectors()) {
      index(v, new ArrayList<>(), columns, next, atomic, ancestors);
    }
    open.put(file, new OpenBatch(batch, root, atomic, ancestors));
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
    int lo = 0;
    int hi = md.batchCount() - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (md.batchStart(mid) <= row) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  @Override
  public void close() {
    try {
      AutoCloseables.close(open.values().stream().map(OpenBatch::root).toList());
    } catch (Exception e) {
      throw new IllegalStateException("failed to release Arrow buffers", e);
    } finally {
      open.clear();
    }
  }
}
