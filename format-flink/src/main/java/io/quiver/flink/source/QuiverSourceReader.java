package io.quiver.flink.source;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.ScanMetrics;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.flink.types.ArrowRowDataReader;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Reads a Quiver source's splits: a fetcher thread opens each split's scan task, batch by batch, and turns the
 * rows into {@link RowData} (copied, so each Arrow batch is released as soon as it is converted); the task
 * thread emits them and counts, per split, the rows emitted. That count is the split's checkpointed state: a
 * split read again after a restore skips the rows already emitted.
 */
final class QuiverSourceReader
    extends SingleThreadMultiplexSourceReaderBase<RowData, RowData, QuiverSplit, QuiverSourceReader.SplitState> {

  /** A split being read, and the rows of it emitted so far (task thread only). */
  static final class SplitState {
    final QuiverSplit split;
    long emitted;

    SplitState(QuiverSplit split) {
      this.split = split;
      this.emitted = split.rowsEmitted();
    }
  }

  QuiverSourceReader(SourceConfig config, SourceReaderContext context) {
    this(config, context, new ScanMetrics());
  }

  private QuiverSourceReader(SourceConfig config, SourceReaderContext context, ScanMetrics metrics) {
    super(() -> new TaskReader(config, metrics), new Emitter(config.flat()), new Configuration(), context);
    SourceMetrics.register(context.metricGroup(), metrics);
  }

  @Override
  public void start() {
    if (getNumberOfCurrentlyAssignedSplits() == 0) {
      context.sendSplitRequest();
    }
  }

  @Override
  protected void onSplitFinished(Map<String, SplitState> finished) {
    context.sendSplitRequest();
  }

  @Override
  protected SplitState initializedState(QuiverSplit split) {
    return new SplitState(split);
  }

  @Override
  protected QuiverSplit toSplitType(String splitId, SplitState state) {
    return state.split.withRowsEmitted(state.emitted);
  }

  private static final class Emitter implements RecordEmitter<RowData, RowData, SplitState> {
    private final FlatRows flat;

    Emitter(FlatRows flat) {
      this.flat = flat;
    }

    @Override
    public void emitRecord(RowData row, SourceOutput<RowData> output, SplitState state) {
      output.collect(flat == null ? row : flat.apply(row));
      state.emitted++;
    }
  }

  /** Reads splits one after another on the fetcher thread: one Arrow batch per fetch. */
  static final class TaskReader implements SplitReader<RowData, QuiverSplit> {
    private final SourceConfig config;
    private final DatasetOptions options;
    private final RowType rowType;
    private final RootAllocator root = new RootAllocator();
    private final ScanMetrics metrics;
    private final ArrayDeque<QuiverSplit> splits = new ArrayDeque<>();
    private QuiverSplit current;
    private BufferAllocator allocator;
    private ArrowReader reader;
    /** The table handle a change split reads through. */
    private Dataset changes;
    private long toSkip;

    TaskReader(SourceConfig config, ScanMetrics metrics) {
      this.config = config;
      this.metrics = metrics;
      this.options = config.datasetOptions();
      this.rowType = config.rowType();
    }

    @Override
    public RecordsWithSplitIds<RowData> fetch() throws IOException {
      RecordsBySplits.Builder<RowData> out = new RecordsBySplits.Builder<>();
      if (current == null) {
        current = splits.poll();
        if (current == null) {
          return out.build();
        }
        open(current);
      }
      while (reader.loadNextBatch()) {
        VectorSchemaRoot batch = reader.getVectorSchemaRoot();
        VectorSchemaRoot values = batch;
        if (current.isChanges()) {
          // The table's columns, then _change_type, _commit_version, _commit_timestamp and _rowid.
          List<org.apache.arrow.vector.FieldVector> all = batch.getFieldVectors();
          values = new VectorSchemaRoot(all.subList(0, all.size() - 4));
          values.setRowCount(batch.getRowCount());
        }
        ArrowRowDataReader rows = ArrowRowDataReader.of(values);
        if (!rows.rowType().equals(rowType)) {
          throw new SchemaMismatchException("split " + current.splitId() + " of table " + config.uri()
              + " returned rows of type " + rows.rowType().asSummaryString() + ", but the source produces "
              + rowType.asSummaryString() + "; the table's columns changed in a way the source cannot follow:"
              + " start it again");
        }
        int skip = (int) Math.min(toSkip, rows.rowCount());
        toSkip -= skip;
        if (skip < rows.rowCount()) {
          List<RowData> converted = rows.readFrom(skip);
          if (current.isChanges()) {
            org.apache.arrow.vector.VarCharVector types = (org.apache.arrow.vector.VarCharVector)
                batch.getVector(io.quiver.dataset.ChangeScan.CHANGE_TYPE);
            for (int i = 0; i < converted.size(); i++) {
              converted.get(i).setRowKind(kindOf(new String(types.get(skip + i), java.nio.charset.StandardCharsets.UTF_8)));
            }
          }
          out.addAll(current.splitId(), converted);
          return out.build();
        }
      }
      out.addFinishedSplit(current.splitId());
      closeCurrent();
      return out.build();
    }

    private static org.apache.flink.types.RowKind kindOf(String changeType) {
      return switch (changeType) {
        case io.quiver.dataset.ChangeScan.INSERT -> org.apache.flink.types.RowKind.INSERT;
        case io.quiver.dataset.ChangeScan.DELETE -> org.apache.flink.types.RowKind.DELETE;
        case io.quiver.dataset.ChangeScan.UPDATE_PREIMAGE -> org.apache.flink.types.RowKind.UPDATE_BEFORE;
        case io.quiver.dataset.ChangeScan.UPDATE_POSTIMAGE -> org.apache.flink.types.RowKind.UPDATE_AFTER;
        default -> throw new IllegalStateException("unknown change type '" + changeType + "'");
      };
    }

    private void open(QuiverSplit split) {
      allocator = root.newChildAllocator(split.splitId(), 0, Long.MAX_VALUE);
      try {
        if (split.isChanges()) {
          // The changes of one version; the handle lives as long as the split's reader.
          changes = Dataset.open(config.uri(), options.toBuilder().allocator(allocator).build());
          reader = changes.changes(split.changesOf() - 1, split.changesOf()).columns(config.columns())
              .batchSize(config.batchSize()).open();
        } else {
          reader = split.task().open(options, allocator, metrics);
        }
      } catch (RuntimeException e) {
        if (changes != null) {
          changes.close();
          changes = null;
        }
        allocator.close();
        allocator = null;
        current = null;
        throw e;
      }
      toSkip = split.rowsEmitted();
    }

    private void closeCurrent() throws IOException {
      try {
        if (reader != null) {
          reader.close();
        }
        if (changes != null) {
          changes.close();
        }
      } finally {
        reader = null;
        changes = null;
        current = null;
        if (allocator != null) {
          allocator.close();
          allocator = null;
        }
      }
    }

    @Override
    public void handleSplitsChanges(SplitsChange<QuiverSplit> change) {
      if (change instanceof SplitsAddition<QuiverSplit> addition) {
        splits.addAll(addition.splits());
      }
    }

    @Override
    public void wakeUp() {
      // A fetch reads at most one batch: nothing blocks.
    }

    @Override
    public void close() throws Exception {
      try {
        closeCurrent();
      } finally {
        root.close();
      }
    }
  }
}
