package io.quiver.spark.write;

import io.quiver.spark.TableRef;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;

/**
 * Shipped to executors: where the table is, the version every task writes against (the batch write's loaded
 * version, or the latest at a streaming epoch's start), the table's Arrow schema, and the write's batch and
 * fragment sizes. Each task opens its own {@link io.quiver.dataset.DistributedWriter} from it.
 */
final class QuiverWriterFactory implements DataWriterFactory, StreamingDataWriterFactory {
  private static final long serialVersionUID = 1L;

  final TableRef ref;
  final long readVersion;
  private final String schemaJson;
  final WriteSizes sizes;
  private transient Schema schema;

  QuiverWriterFactory(TableRef ref, long readVersion, Schema schema, WriteSizes sizes) {
    this.ref = ref;
    this.readVersion = readVersion;
    this.schemaJson = schema.toJson();
    this.sizes = sizes;
    this.schema = schema;
  }

  Schema schema() {
    if (schema == null) {
      try {
        schema = Schema.fromJSON(schemaJson);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return schema;
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
    return new QuiverDataWriter(this, partitionId, taskId, -1);
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId, long epochId) {
    return new QuiverDataWriter(this, partitionId, taskId, epochId);
  }
}
