package io.quiver.spark.read;

import io.quiver.dataset.ScanTask;
import io.quiver.spark.QuiverTable;
import io.quiver.spark.TableRef;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads one Quiver scan task on an executor: decodes it, opens it with a child allocator of its own, and
 * hands Spark each Arrow batch as a {@link ColumnarBatch} over the same vectors (no copy). Closing it
 * closes the Arrow reader (and with it the store) and the task's allocator.
 */
final class QuiverPartitionReader implements PartitionReader<ColumnarBatch> {
  /** The executor JVM's root for Quiver reads; every task reads from a child, closed with the task. */
  private static final RootAllocator ROOT = new RootAllocator();

  /** Bytes the executor JVM's Quiver reads hold now (zero when every partition reader is closed). */
  static long allocatedBytes() {
    return ROOT.getAllocatedMemory();
  }

  private final QuiverInputPartition partition;
  private final StructType readSchema;
  private final BufferAllocator allocator;
  private final ArrowReader reader;
  private ColumnarBatch batch;
  private long rows;
  private long batches;

  QuiverPartitionReader(TableRef table, QuiverInputPartition partition, StructType readSchema) {
    this.partition = partition;
    this.readSchema = readSchema;
    ScanTask task = ScanTask.decode(partition.task());
    this.allocator = ROOT.newChildAllocator("quiver-task-fragment-" + task.fragmentId() + "-rows-"
        + task.rowStart(), 0, Long.MAX_VALUE);
    try {
      this.reader = task.open(table.datasetOptions().toBuilder().allocator(allocator).build());
    } catch (RuntimeException e) {
      allocator.close();
      throw e;
    }
  }

  @Override
  public boolean next() throws java.io.IOException {
    while (reader.loadNextBatch()) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      int count = root.getRowCount();
      if (count == 0) {
        continue;
      }
      ColumnVector[] columns = new ColumnVector[readSchema.fields().length];
      for (int i = 0; i < columns.length; i++) {
        StructField f = readSchema.fields()[i];
        if (f.name().equals(QuiverTable.FRAGMENT) && root.getSchema().getFields().stream()
            .noneMatch(a -> a.getName().equals(QuiverTable.FRAGMENT))) {
          columns[i] = new ArrowVectors.ConstantLong(partition.fragmentId());
        } else {
          FieldVector v = root.getVector(f.name());
          if (v == null) {
            throw new IllegalStateException("the Quiver scan task returned no column '" + f.name() + "' (it returned "
                + root.getSchema().getFields().stream().map(a -> a.getName()).toList() + ")");
          }
          columns[i] = ArrowVectors.wrap(v, f.dataType());
        }
      }
      batch = new ColumnarBatch(columns, count);
      rows += count;
      batches++;
      return true;
    }
    batch = null;
    return false;
  }

  @Override
  public ColumnarBatch get() {
    return batch;
  }

  long rowsRead() {
    return rows;
  }

  @Override
  public void close() throws java.io.IOException {
    try {
      reader.close();
    } finally {
      allocator.close();
    }
  }
}
