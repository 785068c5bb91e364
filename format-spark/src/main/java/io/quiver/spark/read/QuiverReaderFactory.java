package io.quiver.spark.read;

import io.quiver.spark.TableRef;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** Opens Quiver scan tasks on executors as columnar readers (rows are never materialised by Quiver). */
final class QuiverReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 1L;

  private final TableRef table;
  private final StructType readSchema;

  QuiverReaderFactory(TableRef table, StructType readSchema) {
    this.table = table;
    this.readSchema = readSchema;
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return true;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    throw new UnsupportedOperationException("Quiver partitions are read as columnar batches");
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return new QuiverPartitionReader(table, (QuiverInputPartition) partition, readSchema);
  }
}
