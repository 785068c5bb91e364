package io.quiver.flink.sink;

import io.quiver.exceptions.SchemaMismatchException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Lines a batch's columns up with the table's (by name, in the table's order): a table column the batch
 * lacks is written as nulls if it is nullable — a column added to the table while the job runs — and a
 * batch column the table does not have, or has with another type, fails with a message saying so.
 */
final class TableColumns {
  private final Schema table;
  private final long version;

  TableColumns(Schema table, long version) {
    this.table = table;
    this.version = version;
  }

  /**
   * {@code batch} with the table's columns, as a new root owning the batch's buffers (the batch is then
   * empty and still the caller's to close), or {@code batch} itself when its columns are already the table's.
   *
   * @throws SchemaMismatchException if a column of the batch is not a table column of the same type, or a
   *     table column the batch lacks is NOT NULL
   */
  VectorSchemaRoot align(VectorSchemaRoot batch, BufferAllocator allocator) {
    List<Field> have = batch.getSchema().getFields();
    if (sameColumns(have, table.getFields())) {
      return batch;
    }
    Map<String, Field> tableByName =
        table.getFields().stream().collect(Collectors.toMap(Field::getName, f -> f, (a, b) -> a));
    for (Field f : have) {
      Field t = tableByName.get(f.getName());
      if (t == null) {
        throw new SchemaMismatchException("the Quiver sink writes column '" + f.getName() + "', which the table's"
            + " schema at version " + version + " does not have (it was dropped or renamed while the job ran); "
            + "the table's columns are " + names(table.getFields()) + ". Nothing of this checkpoint was committed:"
            + " change the job's output to the table's columns, or add the column back.");
      }
      if (!t.getType().equals(f.getType())) {
        throw new SchemaMismatchException("the Quiver sink writes column '" + f.getName() + "' as " + f.getType()
            + ", but at version " + version + " the table's column is " + t.getType() + ". Nothing of this"
            + " checkpoint was committed: change the job's output type, or the table's column back.");
      }
    }
    int rows = batch.getRowCount();
    List<FieldVector> vectors = new ArrayList<>();
    List<Field> fields = new ArrayList<>();
    try {
      for (Field t : table.getFields()) {
        FieldVector source = batch.getVector(t.getName());
        if (source != null) {
          TransferPair pair = source.getTransferPair(allocator);
          pair.transfer();
          vectors.add((FieldVector) pair.getTo());
          fields.add(batch.getSchema().findField(t.getName())); // the schema's field: a vector may name list items otherwise
        } else if (t.isNullable()) {
          FieldVector nulls = t.createVector(allocator);
          nulls.allocateNew();
          nulls.setValueCount(rows);
          vectors.add(nulls);
          fields.add(t);
        } else {
          throw new SchemaMismatchException("the table's column '" + t.getName() + "' (version " + version + ") is"
              + " NOT NULL, but the Quiver sink's records have no such column; the sink's columns are "
              + names(have) + ". Nothing of this checkpoint was committed: write the column, or make it nullable.");
        }
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(fields, vectors, rows);
  }

  private static boolean sameColumns(List<Field> a, List<Field> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).getName().equals(b.get(i).getName()) || !a.get(i).getType().equals(b.get(i).getType())) {
        return false;
      }
    }
    return true;
  }

  private static List<String> names(List<Field> fields) {
    return fields.stream().map(Field::getName).toList();
  }
}
