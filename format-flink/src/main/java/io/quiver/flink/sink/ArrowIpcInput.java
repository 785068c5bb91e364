package io.quiver.flink.sink;

import io.quiver.exceptions.InvalidArgumentException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.util.TransferPair;

/** Records that are Arrow IPC streams: every batch of a record is handed on as it is (no copy of values). */
final class ArrowIpcInput implements SinkInput<byte[]> {
  private static final long serialVersionUID = 1L;

  @Override
  public Batcher<byte[]> open(BufferAllocator allocator) {
    return new Batcher<>() {
      @Override
      public void add(byte[] record, Consumer<VectorSchemaRoot> completed) {
        if (record == null) {
          throw new InvalidArgumentException("a null record reached the Quiver sink; its records are Arrow IPC"
              + " streams (ArrowBatches.encode)");
        }
        try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(record), allocator)) {
          while (reader.loadNextBatch()) {
            VectorSchemaRoot read = reader.getVectorSchemaRoot();
            if (read.getRowCount() > 0) {
              completed.accept(take(read, allocator));
            }
          }
        } catch (IOException e) {
          throw new InvalidArgumentException("a record of " + record.length + " bytes is not an Arrow IPC stream ("
              + e.getMessage() + "); encode batches with ArrowBatches.encode");
        }
      }

      @Override
      public void flush(Consumer<VectorSchemaRoot> completed) {}

      @Override
      public long bufferedRows() {
        return 0;
      }

      @Override
      public long bufferedBytes() {
        return 0;
      }

      @Override
      public void close() {}
    };
  }

  /** A root owning {@code read}'s buffers (transferred), which the reader may then reuse. */
  static VectorSchemaRoot take(VectorSchemaRoot read, BufferAllocator allocator) {
    List<FieldVector> vectors = new ArrayList<>();
    for (FieldVector v : read.getFieldVectors()) {
      TransferPair t = v.getTransferPair(allocator);
      t.transfer();
      vectors.add((FieldVector) t.getTo());
    }
    return new VectorSchemaRoot(read.getSchema().getFields(), vectors, read.getRowCount());
  }
}
