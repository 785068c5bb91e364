package io.quiver.flink.sink;

import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.DistributedWriter;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.StoreException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subtask's writer: converts records to Arrow batches, writes a data file (through its own {@link
 * DistributedWriter}) whenever the buffered rows reach the roll size, and on each checkpoint barrier writes
 * the rest and hands the checkpoint's {@link WriteResult}s on; then moves to the table's latest version.
 * Nothing it writes is visible until the committer commits the checkpoint.
 */
final class QuiverSinkWriter<IN> implements CommittingSinkWriter<IN, WriteResult> {
  private static final Logger LOG = LoggerFactory.getLogger(QuiverSinkWriter.class);

  private final BufferAllocator allocator;
  private final DistributedWriter writer;
  private final SinkInput.Batcher<IN> batcher;
  private final long rollAtRows;
  private final long rollAtBytes;
  private final List<VectorSchemaRoot> pending = new ArrayList<>();
  private final List<WriteResult> results = new ArrayList<>();
  private TableColumns columns;
  private long pendingRows;
  private long pendingBytes;

  QuiverSinkWriter(String uri, DatasetOptions options, SinkInput<IN> input, long rollAtRows, long rollAtBytes) {
    this.rollAtRows = rollAtRows;
    this.rollAtBytes = rollAtBytes;
    this.allocator = new RootAllocator();
    DistributedWriter w = null;
    SinkInput.Batcher<IN> b = null;
    try {
      w = DistributedWriter.open(uri, options.toBuilder().allocator(allocator).build());
      b = input.open(allocator);
    } catch (RuntimeException e) {
      if (w != null) {
        w.close();
      }
      allocator.close();
      throw e;
    }
    this.writer = w;
    this.batcher = b;
    this.columns = new TableColumns(writer.schema().toArrow(), writer.readVersion());
  }

  @Override
  public void write(IN element, Context context) {
    batcher.add(element, this::buffer);
    if (pendingRows + batcher.bufferedRows() >= rollAtRows || pendingBytes + batcher.bufferedBytes() >= rollAtBytes) {
      roll();
    }
  }

  private void buffer(VectorSchemaRoot batch) {
    pending.add(batch);
    pendingRows += batch.getRowCount();
    pendingBytes += bytes(batch);
  }

  static long bytes(VectorSchemaRoot batch) {
    long n = 0;
    for (org.apache.arrow.vector.FieldVector v : batch.getFieldVectors()) {
      n += v.getBufferSize();
    }
    return n;
  }

  /** Writes everything buffered as new fragments (one data file, more past the fragment size). */
  private void roll() {
    batcher.flush(this::buffer);
    if (pending.isEmpty()) {
      return;
    }
    List<VectorSchemaRoot> toWrite = new ArrayList<>(pending.size());
    List<VectorSchemaRoot> aligned = new ArrayList<>();
    try {
      for (VectorSchemaRoot batch : pending) {
        VectorSchemaRoot a = columns.align(batch, allocator);
        toWrite.add(a);
        if (a != batch) {
          aligned.add(a);
        }
      }
      WriteResult result = writer.write(toWrite);
      results.add(result);
      LOG.debug("wrote {} rows in {} fragments at version {}", result.rows(), result.fragments().size(),
          result.readVersion());
    } finally {
      aligned.forEach(VectorSchemaRoot::close);
      pending.forEach(VectorSchemaRoot::close);
      pending.clear();
      pendingRows = 0;
      pendingBytes = 0;
    }
  }

  @Override
  public void flush(boolean endOfInput) {
    roll();
  }

  /**
   * The results written since the last checkpoint (a checkpoint with no rows has none); then the writer
   * moves to the table's latest version, so the next checkpoint's results carry a recent read version.
   */
  @Override
  public Collection<WriteResult> prepareCommit() {
    roll();
    List<WriteResult> out = List.copyOf(results);
    results.clear();
    long before = writer.readVersion();
    try {
      long now = writer.refresh();
      if (now != before) {
        columns = new TableColumns(writer.schema().toArrow(), now);
      }
    } catch (StoreException e) {
      // The results are already written; a store blip only delays the move to the next checkpoint.
      LOG.warn("could not move the writer past version {} ({}); trying again at the next checkpoint", before,
          e.getMessage());
    }
    return out;
  }

  @Override
  public void close() {
    try {
      batcher.close();
      pending.forEach(VectorSchemaRoot::close);
      pending.clear();
    } finally {
      try {
        writer.close();
      } finally {
        allocator.close();
      }
    }
  }
}
