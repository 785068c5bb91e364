package io.quiver.flink.sink;

import java.io.Serializable;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * How a {@link QuiverSink} turns its input records into Arrow batches: {@link #arrowIpc()} for records that
 * are Arrow batches already (IPC stream bytes), {@link QuiverSink#forRowData} for Flink {@code RowData}. The
 * batches' columns are matched to the table's by name: a table column the batches lack must be nullable
 * (it is written as null), and every batch column must be a table column of the same type.
 *
 * <p>Serializable: it travels with the sink to every subtask, which {@link #open opens} its own batcher.
 *
 * @param <IN> the sink's input record type
 */
public interface SinkInput<IN> extends Serializable {
  /** Opens one subtask's batcher, allocating its batches from {@code allocator}. */
  Batcher<IN> open(BufferAllocator allocator);

  /** Records as Arrow IPC stream bytes (one or more batches each), as {@link ArrowBatches#encode} writes them. */
  static SinkInput<byte[]> arrowIpc() {
    return new ArrowIpcInput();
  }

  /**
   * One subtask's conversion of records to batches. Not thread-safe; a subtask calls it from its task
   * thread only.
   *
   * @param <IN> the record type
   */
  interface Batcher<IN> extends AutoCloseable {
    /**
     * Adds one record. Each batch it completes is handed to {@code completed}, which owns (and closes) it.
     *
     * @throws io.quiver.exceptions.InvalidArgumentException if the record cannot be converted (the message
     *     names the column)
     */
    void add(IN record, Consumer<VectorSchemaRoot> completed);

    /** Hands the batch in progress, if it holds rows, to {@code completed}. */
    void flush(Consumer<VectorSchemaRoot> completed);

    /** Rows added to the batch in progress. */
    long bufferedRows();

    /** Estimated Arrow bytes of the batch in progress. */
    long bufferedBytes();

    /** Releases the batch in progress (its rows are dropped) and every buffer the batcher holds. */
    @Override
    void close();
  }
}
