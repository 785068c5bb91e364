package io.quiver.flink.sink;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;

/** Encodes Arrow batches as the records of a sink built with {@link QuiverSink#forArrow}. */
public final class ArrowBatches {
  private ArrowBatches() {}

  /** {@code batch} as Arrow IPC stream bytes (schema, one record batch, end of stream). The caller keeps the batch. */
  public static byte[] encode(VectorSchemaRoot batch) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ArrowStreamWriter writer = new ArrowStreamWriter(batch, null, out)) {
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException("could not encode an Arrow batch of " + batch.getRowCount() + " rows", e);
    }
    return out.toByteArray();
  }
}
