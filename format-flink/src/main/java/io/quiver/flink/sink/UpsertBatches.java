package io.quiver.flink.sink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;

/** Batches of one schema as one Arrow IPC stream, and back: the keys an upsert checkpoint changed. */
final class UpsertBatches {
  private UpsertBatches() {}

  /** {@code batches} (at least one, all of one schema) as one IPC stream; the caller keeps the batches. */
  static byte[] encode(List<VectorSchemaRoot> batches, BufferAllocator allocator) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot stream = VectorSchemaRoot.create(batches.get(0).getSchema(), allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(stream, null, out)) {
      writer.start();
      org.apache.arrow.vector.VectorLoader loader = new org.apache.arrow.vector.VectorLoader(stream);
      for (VectorSchemaRoot batch : batches) {
        try (ArrowRecordBatch rb = new VectorUnloader(batch).getRecordBatch()) {
          loader.load(rb);
          writer.writeBatch();
        }
      }
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException("could not encode " + batches.size() + " Arrow batches of keys", e);
    }
    return out.toByteArray();
  }

  /** Hands every batch of the stream {@code bytes} to {@code batch} (valid during the call only). */
  static void decode(byte[] bytes, BufferAllocator allocator, Consumer<VectorSchemaRoot> batch) {
    try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(bytes), allocator)) {
      while (reader.loadNextBatch()) {
        batch.accept(reader.getVectorSchemaRoot());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not decode the keys of an upsert checkpoint (" + bytes.length
          + " bytes of Arrow IPC)", e);
    }
  }
}
