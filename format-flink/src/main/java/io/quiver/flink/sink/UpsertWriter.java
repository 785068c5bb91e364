package io.quiver.flink.sink;

import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.DistributedWriter;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.StoreException;
import io.quiver.flink.types.RowDataSerializer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One upsert subtask: keeps, per key changed since the last checkpoint, its last change (the new row of an
 * insert or update-after, or a delete; an update-before is a delete that a following update-after replaces).
 * On each checkpoint barrier it writes the rows of the upserted keys as one data file (through its own {@link
 * DistributedWriter}) and hands on an {@link UpsertResult} with every changed key; nothing is visible until the
 * committer commits the checkpoint. Its memory holds one row per key changed in the checkpoint.
 */
final class UpsertWriter implements CommittingSinkWriter<RowData, UpsertResult> {
  private static final Logger LOG = LoggerFactory.getLogger(UpsertWriter.class);

  private final BufferAllocator allocator;
  private final DistributedWriter writer;
  private final RowType rowType;
  private final UpsertKeys keys;
  private final RowDataSerializer copier;
  /** Key to its last change: the row (kind INSERT) or a delete (kind DELETE, holding the key). */
  private final Map<String, RowData> changes = new LinkedHashMap<>();
  private final List<UpsertResult> results = new ArrayList<>();
  private TableColumns columns;

  UpsertWriter(String uri, DatasetOptions options, RowType rowType, UpsertKeys keys) {
    this.rowType = rowType;
    this.keys = keys;
    this.copier = new RowDataSerializer(rowType);
    this.allocator = new RootAllocator();
    try {
      this.writer = DistributedWriter.open(uri, options.toBuilder().allocator(allocator).build());
    } catch (RuntimeException e) {
      allocator.close();
      throw e;
    }
    this.columns = new TableColumns(writer.schema().toArrow(), writer.readVersion());
  }

  @Override
  public void write(RowData row, Context context) {
    String key = keys.of(row);
    if (SinkFaults.current().firstChangeWins() && changes.containsKey(key)) {
      return;
    }
    RowKind kind = row.getRowKind();
    if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER) {
      RowData copy = copier.copy(row);
      copy.setRowKind(RowKind.INSERT);
      changes.put(key, copy);
    } else {
      RowData gone = keys.keyRow(copier.copy(row));
      gone.setRowKind(RowKind.DELETE);
      changes.put(key, gone);
    }
  }

  @Override
  public void flush(boolean endOfInput) {
    // The changes are written at the checkpoint (prepareCommit), when no later change of a key can follow.
  }

  @Override
  public Collection<UpsertResult> prepareCommit() {
    if (!changes.isEmpty()) {
      results.add(writeChanges());
      changes.clear();
    }
    List<UpsertResult> out = List.copyOf(results);
    results.clear();
    long before = writer.readVersion();
    try {
      long now = writer.refresh();
      if (now != before) {
        columns = new TableColumns(writer.schema().toArrow(), now);
      }
    } catch (StoreException e) {
      LOG.warn("could not move the upsert writer past version {} ({}); trying again at the next checkpoint",
          before, e.getMessage());
    }
    return out;
  }

  private UpsertResult writeChanges() {
    long upserts = 0;
    long deletes = 0;
    List<VectorSchemaRoot> rows = new ArrayList<>();
    List<VectorSchemaRoot> keyBatches = new ArrayList<>();
    List<RowData> deleted = new ArrayList<>();
    try (SinkInput.Batcher<RowData> rowBatcher = new RowDataInput(rowType).open(allocator);
        SinkInput.Batcher<RowData> keyBatcher = new RowDataInput(keys.keyType()).open(allocator)) {
      // The upserted keys first, in the order of the rows written (the committer pairs each row with the row it
      // replaces by them), then the deleted keys.
      for (RowData change : changes.values()) {
        if (change.getRowKind() == RowKind.INSERT) {
          upserts++;
          rowBatcher.add(change, rows::add);
          RowData key = keys.keyRow(change);
          keyBatcher.add(key, keyBatches::add);
        } else {
          deletes++;
          change.setRowKind(RowKind.INSERT); // the key row of the delete; the map is cleared after this
          deleted.add(change);
        }
      }
      for (RowData key : deleted) {
        keyBatcher.add(key, keyBatches::add);
      }
      rowBatcher.flush(rows::add);
      keyBatcher.flush(keyBatches::add);
      Optional<WriteResult> written = Optional.empty();
      if (!rows.isEmpty()) {
        written = Optional.of(write(rows));
      }
      return new UpsertResult(written, UpsertBatches.encode(keyBatches, allocator), upserts, deletes, true);
    } finally {
      rows.forEach(VectorSchemaRoot::close);
      keyBatches.forEach(VectorSchemaRoot::close);
    }
  }

  private WriteResult write(List<VectorSchemaRoot> batches) {
    List<VectorSchemaRoot> toWrite = new ArrayList<>(batches.size());
    List<VectorSchemaRoot> aligned = new ArrayList<>();
    try {
      for (VectorSchemaRoot batch : batches) {
        VectorSchemaRoot a = columns.align(batch, allocator);
        toWrite.add(a);
        if (a != batch) {
          aligned.add(a);
        }
      }
      return writer.write(toWrite);
    } finally {
      aligned.forEach(VectorSchemaRoot::close);
    }
  }

  @Override
  public void close() {
    changes.clear();
    try {
      writer.close();
    } finally {
      allocator.close();
    }
  }
}
