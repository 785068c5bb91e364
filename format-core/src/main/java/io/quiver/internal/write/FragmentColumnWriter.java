package io.quiver.internal.write;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.file.DataFileWriter;
import io.quiver.internal.file.WrittenFile;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import io.quiver.store.ObjectStore;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.roaringbitmap.RoaringBitmap;

/**
 * Writes some fields of one existing fragment into one new data file: the single column-writing path
 * behind adding columns and replacing column data. The file must cover exactly the fragment's physical
 * rows; on any mismatch or failure the file is discarded and nothing is returned.
 */
final public class FragmentColumnWriter {
  private final ObjectStore store;
  private final BufferAllocator allocator;
  private final int rowsPerBatch;
  private final CompressionConfig compression;

  /** A writer of uncompressed (format 1.0) files. */
  public FragmentColumnWriter(ObjectStore store, BufferAllocator allocator, int rowsPerBatch) {
    this(store, allocator, rowsPerBatch, CompressionConfig.NONE);
  }

  /** A writer of files compressed as the table configuration says ({@link CompressionConfig}). */
  public FragmentColumnWriter(ObjectStore store, BufferAllocator allocator, int rowsPerBatch,
      CompressionConfig compression) {
    this.compression = compression;
    this.store = store;
    this.allocator = allocator;
    this.rowsPerBatch = rowsPerBatch;
  }

  /**
   * Writes {@code columns} (a schema with ids: the written fields' subtree, structs holding only written
   * members) for {@code fragment} from {@code batches}.
   *
   * @param structNulls struct id → the fragment offsets where that struct is null: the validity written
   *     for those structs, whatever the batches carry (a write of some members preserves its struct's
   *     validity, {@link StructValidityWrites}); structs not listed get the batches' validity
   * @return the data file, storing the atomic fields of {@code columns} in order
   * @throws InvalidArgumentException if the batches hold more or fewer rows than the fragment's physical
   *     rows (the file is deleted)
   * @throws io.quiver.exceptions.SchemaMismatchException if a batch does not match {@code columns}
   */
  public DataFile write(Fragment fragment, Schema columns, Iterator<VectorSchemaRoot> batches,
      Map<Integer, RoaringBitmap> structNulls) {
    org.apache.arrow.vector.types.pojo.Schema arrow = columns.toArrow();
    // The footer carries every node's field id, so a commit can check a file against the contract it declares.
    org.apache.arrow.vector.types.pojo.Schema stored = columns.toArrowWithIds();
    List<Integer> atomicIds = columns.atomicFields().stream().map(Field::id).toList();
    String path = FragmentWriter.newDataFilePath();
    long rows = 0;
    try (DataFileWriter writer =
        new DataFileWriter(store, path, stored, allocator, rowsPerBatch, compression.forFile(columns))) {
      while (batches.hasNext()) {
        VectorSchemaRoot batch = batches.next();
        BatchValidator.check(arrow, batch);
        long start = rows;
        rows += batch.getRowCount();
        if (rows > fragment.physicalRows()) {
          writer.abort();
          throw rowCountMismatch(fragment, columns, "more than");
        }
        if (structNulls.isEmpty()) {
          writer.write(batch);
        } else {
          try (VectorSchemaRoot preserved = withStructValidity(batch, columns, structNulls, start)) {
            writer.write(preserved);
          }
        }
      }
      if (rows != fragment.physicalRows()) {
        writer.abort();
        throw rowCountMismatch(fragment, columns, rows + " rows, fewer than");
      }
      WrittenFile file = writer.finish();
      return file.toDataFile(atomicIds);
    }
  }

  /**
   * The batch with the listed structs' validity replaced: the other vectors are shared slices of the
   * caller's (nothing is copied, the caller's batch is not modified), each listed struct a new vector
   * over its members' slices with its own validity.
   */
  private static VectorSchemaRoot withStructValidity(VectorSchemaRoot batch, Schema columns,
      Map<Integer, RoaringBitmap> structNulls, long start) {
    int n = batch.getRowCount();
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (int i = 0; i < columns.fields().size(); i++) {
        Field field = columns.fields().get(i);
        FieldVector from = batch.getVector(i);
        FieldVector to = from.getField().createVector(from.getAllocator());
        vectors.add(to);
        copy(from, to, field, structNulls, start, n);
      }
      return new VectorSchemaRoot(batch.getSchema().getFields(), vectors, n);
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
  }

  private static void copy(FieldVector from, FieldVector to, Field field, Map<Integer, RoaringBitmap> structNulls,
      long start, int n) {
    RoaringBitmap nulls = structNulls.get(field.id());
    if (!field.isStruct() || (nulls == null && !containsListed(field, structNulls))) {
      from.makeTransferPair(to).splitAndTransfer(0, n);
      return;
    }
    StructVector source = (StructVector) from;
    StructVector target = (StructVector) to;
    for (int c = 0; c < field.children().size(); c++) {
      copy((FieldVector) source.getChildByOrdinal(c), (FieldVector) target.getChildByOrdinal(c),
          field.children().get(c), structNulls, start, n);
    }
    for (int row = 0; row < n; row++) {
      boolean isNull = nulls != null ? nulls.contains((int) (start + row)) : source.isNull(row);
      if (isNull) {
        target.setNull(row);
      } else {
        target.setIndexDefined(row);
      }
    }
    target.setValueCount(n);
  }

  private static boolean containsListed(Field struct, Map<Integer, RoaringBitmap> structNulls) {
    for (Field d : struct.preorder()) {
      if (d.isStruct() && structNulls.containsKey(d.id())) {
        return true;
      }
    }
    return false;
  }

  private static InvalidArgumentException rowCountMismatch(Fragment fragment, Schema columns, String found) {
    return new InvalidArgumentException(
        "values for " + columns.fields().stream().map(Field::name).toList() + " of fragment " + fragment.id()
            + ": expected exactly " + fragment.physicalRows() + " rows (the fragment's physical rows, deleted"
            + " ones included), got " + found + " that; nothing was written");
  }
}
