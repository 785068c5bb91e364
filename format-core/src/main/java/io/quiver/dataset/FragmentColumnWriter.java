package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.file.DataFileWriter;
import io.quiver.file.WrittenFile;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import io.quiver.store.ObjectStore;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Writes some fields of one existing fragment into one new data file: the single column-writing path
 * behind adding columns and replacing column data. The file must cover exactly the fragment's physical
 * rows; on any mismatch or failure the file is discarded and nothing is returned.
 */
final class FragmentColumnWriter {
  private final ObjectStore store;
  private final BufferAllocator allocator;
  private final int rowsPerBatch;

  FragmentColumnWriter(ObjectStore store, BufferAllocator allocator, int rowsPerBatch) {
    this.store = store;
    this.allocator = allocator;
    this.rowsPerBatch = rowsPerBatch;
  }

  /**
   * Writes {@code columns} (a schema with ids: the written fields' subtree, structs holding only written
   * members) for {@code fragment} from {@code batches}.
   *
   * @return the data file, storing the atomic fields of {@code columns} in order
   * @throws InvalidArgumentException if the batches hold more or fewer rows than the fragment's physical
   *     rows (the file is deleted)
   * @throws io.quiver.exceptions.SchemaMismatchException if a batch does not match {@code columns}
   */
  DataFile write(Fragment fragment, Schema columns, Iterator<VectorSchemaRoot> batches) {
    org.apache.arrow.vector.types.pojo.Schema arrow = columns.toArrow();
    // The footer carries every node's field id, so a commit can check a file against the contract it declares.
    org.apache.arrow.vector.types.pojo.Schema stored = columns.toArrowWithIds();
    List<Integer> atomicIds = columns.atomicFields().stream().map(Field::id).toList();
    String path = FragmentWriter.newDataFilePath();
    long rows = 0;
    try (DataFileWriter writer = new DataFileWriter(store, path, stored, allocator, rowsPerBatch)) {
      while (batches.hasNext()) {
        VectorSchemaRoot batch = batches.next();
        BatchValidator.check(arrow, batch);
        rows += batch.getRowCount();
        if (rows > fragment.physicalRows()) {
          writer.abort();
          throw rowCountMismatch(fragment, columns, "more than");
        }
        writer.write(batch);
      }
      if (rows != fragment.physicalRows()) {
        writer.abort();
        throw rowCountMismatch(fragment, columns, rows + " rows, fewer than");
      }
      WrittenFile file = writer.finish();
      return DataFile.of(file.key(), atomicIds, file.sizeBytes());
    }
  }

  private static InvalidArgumentException rowCountMismatch(Fragment fragment, Schema columns, String found) {
    return new InvalidArgumentException(
        "values for " + columns.fields().stream().map(Field::name).toList() + " of fragment " + fragment.id()
            + ": expected exactly " + fragment.physicalRows() + " rows (the fragment's physical rows, deleted"
            + " ones included), got " + found + " that; nothing was written");
  }
}
