package io.quiver.spark.read;

import io.quiver.dataset.Dataset;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.spark.TableRef;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * {@code spark.readStream.format("quiver").option("readChangeFeed", "true").load(uri)}: the change feed as a
 * Structured Streaming source. An offset is a table version; a micro-batch from offset {@code a} to {@code b} reads
 * the changes of versions {@code a + 1 … b}, one input partition per version, on the executors. The changes of a
 * version are fixed once it is committed, so a query restarted from its checkpoint reads each version's changes
 * exactly once more, as Spark's offsets say. Starts after {@code startingVersion - 1} when given, else at the
 * latest version when the query first starts (later changes only).
 */
final class ChangeFeedStream implements MicroBatchStream {
  private final TableRef ref;
  private final StructType schema;
  private final long schemaVersion;
  private final Long startingVersion;

  /** {@code schema}: the table's columns at {@code schemaVersion} (when the query loaded the table), then the feed's. */
  ChangeFeedStream(TableRef ref, StructType schema, long schemaVersion, Long startingVersion) {
    this.ref = ref;
    this.schema = schema;
    this.schemaVersion = schemaVersion;
    this.startingVersion = startingVersion;
  }

  /** A table version as a streaming offset. */
  static final class VersionOffset extends Offset {
    final long version;

    VersionOffset(long version) {
      this.version = version;
    }

    @Override
    public String json() {
      return Long.toString(version);
    }
  }

  private long latest() {
    try (Dataset ds = Dataset.open(ref.uri(), ref.datasetOptions())) {
      return ds.latestVersion();
    }
  }

  @Override
  public Offset initialOffset() {
    if (startingVersion != null) {
      if (startingVersion < 2) {
        throw new InvalidArgumentException("startingVersion must be 2 or later (version 1 created the table), got "
            + startingVersion);
      }
      return new VersionOffset(startingVersion - 1);
    }
    return new VersionOffset(latest());
  }

  @Override
  public Offset latestOffset() {
    return new VersionOffset(latest());
  }

  @Override
  public Offset deserializeOffset(String json) {
    try {
      return new VersionOffset(Long.parseLong(json.trim()));
    } catch (NumberFormatException e) {
      throw new InvalidArgumentException("a Quiver change feed offset is a table version, got '" + json + "' in the"
          + " query's checkpoint; restart the query with a new checkpoint location");
    }
  }

  @Override
  public InputPartition[] planInputPartitions(Offset start, Offset end) {
    long from = ((VersionOffset) start).version;
    long to = ((VersionOffset) end).version;
    List<InputPartition> out = new ArrayList<>();
    for (long v = from + 1; v <= to; v++) {
      out.add(new VersionPartition(v));
    }
    return out.toArray(InputPartition[]::new);
  }

  /** The changes of one version. */
  record VersionPartition(long version) implements InputPartition {}

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new Factory(ref, schema, schemaVersion);
  }

  @Override
  public void commit(Offset end) {
    // Nothing to release: every version's changes stay readable until a cleanup removes the version.
  }

  @Override
  public void stop() {}

  /**
   * Reads one version's changes on an executor, as columnar batches, with the columns named and typed as version
   * {@code schemaVersion} has them (matched by field id, so every partition's batches have {@code schema}'s columns
   * whatever columns its own version has; a restarted query loads the table's newer schema).
   */
  static final class Factory implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;
    private final TableRef ref;
    private final StructType schema;
    private final long schemaVersion;

    Factory(TableRef ref, StructType schema, long schemaVersion) {
      this.ref = ref;
      this.schema = schema;
      this.schemaVersion = schemaVersion;
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
      return true;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
      throw new UnsupportedOperationException("Quiver change partitions are read as columnar batches");
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
      long version = ((VersionPartition) partition).version();
      return new PartitionReader<>() {
        private final BufferAllocator allocator = new RootAllocator();
        private final Dataset ds = Dataset.open(ref.uri(), ref.datasetOptions().toBuilder().allocator(allocator)
            .build());
        private final ArrowReader reader = ds.changes(version - 1, version).namedAt(schemaVersion).open();
        private ColumnarBatch batch;

        @Override
        public boolean next() throws IOException {
          while (reader.loadNextBatch()) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            if (root.getRowCount() == 0) {
              continue;
            }
            ColumnVector[] columns = new ColumnVector[schema.fields().length];
            for (int i = 0; i < columns.length; i++) {
              StructField f = schema.fields()[i];
              columns[i] = ArrowVectors.wrap(root.getVector(i), f.dataType());
            }
            batch = new ColumnarBatch(columns, root.getRowCount());
            return true;
          }
          return false;
        }

        @Override
        public ColumnarBatch get() {
          return batch;
        }

        @Override
        public void close() throws IOException {
          try {
            reader.close();
          } finally {
            try {
              ds.close();
            } finally {
              allocator.close();
            }
          }
        }
      };
    }
  }
}
