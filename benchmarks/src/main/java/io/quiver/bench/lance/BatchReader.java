package io.quiver.bench.lance;

import java.io.IOException;
import java.util.Iterator;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An {@link ArrowReader} over batches the caller already holds in memory, so the same generated
 * {@link VectorSchemaRoot}s can be handed to Lance (which only accepts readers/C streams).
 *
 * <p>Each {@link #loadNextBatch()} moves the next source root's buffers into the reader's own root
 * by reference ({@link VectorUnloader} + {@link VectorLoader}: the buffers are retained, not
 * copied). The source roots stay owned by the caller and are never closed here; an iterator that
 * refills one root for every {@code next()} is fine, because the previous batch's buffers are
 * released from this reader's root before the next one is loaded.
 */
public final class BatchReader extends ArrowReader {
  private final Schema schema;
  private final Iterator<? extends VectorSchemaRoot> batches;
  private long bytesRead;

  /**
   * @param allocator allocator for this reader's own root (buffers are retained from the sources)
   * @param schema schema of every batch
   * @param batches the batches, in order; each must have exactly {@code schema}
   */
  public BatchReader(
      BufferAllocator allocator, Schema schema, Iterator<? extends VectorSchemaRoot> batches) {
    super(allocator);
    this.schema = Objects.requireNonNull(schema, "schema");
    this.batches = Objects.requireNonNull(batches, "batches");
  }

  /** A reader over {@code batches}. */
  public static BatchReader of(
      BufferAllocator allocator, Schema schema, Iterable<? extends VectorSchemaRoot> batches) {
    return new BatchReader(allocator, schema, batches.iterator());
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    prepareLoadNextBatch();
    if (!batches.hasNext()) {
      return false;
    }
    VectorSchemaRoot source = batches.next();
    if (!schema.equals(source.getSchema())) {
      throw new IOException(
          "batch schema " + source.getSchema() + " differs from the reader's " + schema);
    }
    try (ArrowRecordBatch batch = new VectorUnloader(source).getRecordBatch()) {
      bytesRead += batch.computeBodyLength();
      new VectorLoader(getVectorSchemaRoot()).load(batch);
    }
    return true;
  }

  @Override
  public long bytesRead() {
    return bytesRead;
  }

  @Override
  protected void closeReadSource() {
    // The source roots belong to the caller.
  }

  @Override
  protected Schema readSchema() {
    return schema;
  }
}
