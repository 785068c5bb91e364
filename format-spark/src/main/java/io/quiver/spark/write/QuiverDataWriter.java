package io.quiver.spark.write;

import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.DistributedWriter;
import io.quiver.dataset.WriteResult;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task attempt's writer: converts rows into Arrow batches of the table's schema, buffers at most one
 * fragment's worth, hands each fragment to a {@link DistributedWriter} (data files written, nothing visible)
 * and returns the encoded {@link WriteResult}s in its commit message. {@link #abort()} deletes every file this
 * attempt wrote: an aborted attempt's message never reaches the driver, so no commit can reference them.
 */
final class QuiverDataWriter implements DataWriter<InternalRow> {
  private static final Logger LOG = LoggerFactory.getLogger(QuiverDataWriter.class);

  private final QuiverWriterFactory factory;
  private final int partitionId;
  private final long taskId;
  private final int attemptNumber;
  private final long epochId;
  private final BufferAllocator allocator;
  private final List<VectorSchemaRoot> pending = new ArrayList<>();
  private final List<byte[]> results = new ArrayList<>();
  private final List<String> files = new ArrayList<>();
  private DistributedWriter writer;
  private VectorSchemaRoot current;
  private ArrowRowWriter rowWriter;
  private int currentRows;
  private long pendingRows;
  private long pendingBytes;
  private boolean closed;

  QuiverDataWriter(QuiverWriterFactory factory, int partitionId, long taskId, long epochId) {
    this.factory = factory;
    this.partitionId = partitionId;
    this.taskId = taskId;
    TaskContext context = TaskContext.get();
    this.attemptNumber = context == null ? 0 : context.attemptNumber();
    this.epochId = epochId;
    this.allocator = new RootAllocator();
  }

  @Override
  public void write(InternalRow row) {
    if (current == null) {
      current = VectorSchemaRoot.create(factory.schema(), allocator);
      current.allocateNew();
      rowWriter = new ArrowRowWriter(current);
      currentRows = 0;
    }
    rowWriter.write(row, currentRows++);
    if (currentRows >= factory.sizes.rowsPerBatch()) {
      seal();
    }
  }

  /** Ends the batch being filled; writes a fragment when a fragment's worth is buffered. */
  private void seal() {
    if (current == null) {
      return;
    }
    rowWriter.finish(currentRows);
    pending.add(current);
    pendingRows += currentRows;
    for (var v : current.getFieldVectors()) {
      pendingBytes += v.getBufferSize();
    }
    current = null;
    rowWriter = null;
    if (pendingRows >= factory.sizes.rowsPerFragment() || pendingBytes >= factory.sizes.fragmentBytes()) {
      flush();
    }
  }

  private void flush() {
    if (pending.isEmpty()) {
      return;
    }
    if (writer == null) {
      DatasetOptions options = factory.ref.datasetOptions().toBuilder()
          .allocator(allocator)
          .rowsPerBatch(factory.sizes.rowsPerBatch())
          .maxRowsPerFragment(factory.sizes.rowsPerFragment())
          .build();
      writer = DistributedWriter.open(factory.ref.uri(), options, factory.readVersion);
    }
    try {
      WriteResult result = writer.write(pending);
      files.addAll(result.files());
      results.add(result.encode());
    } finally {
      closePending();
    }
  }

  private void closePending() {
    for (VectorSchemaRoot root : pending) {
      root.close();
    }
    pending.clear();
    pendingRows = 0;
    pendingBytes = 0;
  }

  @Override
  public WriterCommitMessage commit() {
    seal();
    flush();
    WriteHooks hooks = WriteHooks.current();
    hooks.afterFilesWritten(partitionId, attemptNumber, epochId, List.copyOf(files));
    if (hooks.commitsEachTask() && !results.isEmpty()) { // the broken write of the kill suites; never in production
      try (io.quiver.dataset.Dataset ds = factory.ref.open()) {
        long version = ds.distributed().commit(results.stream().map(WriteResult::decode).toList(),
            io.quiver.dataset.WriteMode.APPEND,
            io.quiver.dataset.CommitOptions.defaults());
        hooks.afterTableCommit("task " + partitionId, version);
      }
      return new QuiverCommitMessage(partitionId, taskId, attemptNumber, epochId, List.of());
    }
    return new QuiverCommitMessage(partitionId, taskId, attemptNumber, epochId, results);
  }

  @Override
  public void abort() {
    if (files.isEmpty()) {
      return;
    }
    LOG.info("Deleting the {} files of aborted task attempt {} (partition {}, attempt {}) of {}", files.size(),
        taskId, partitionId, attemptNumber, factory.ref);
    Files.delete(factory.ref, files);
    files.clear();
    results.clear();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (current != null) {
        current.close();
        current = null;
      }
      closePending();
      if (writer != null) {
        writer.close();
      }
    } finally {
      allocator.close();
    }
  }
}
