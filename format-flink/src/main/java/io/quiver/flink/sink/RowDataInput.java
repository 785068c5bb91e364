package io.quiver.flink.sink;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.flink.types.FlinkTypes;
import io.quiver.flink.types.RowDataArrowWriter;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.apache.flink.table.types.logical.RowType;

/**
 * Flink {@link RowData} of one {@link RowType}, converted by the connector's {@link RowDataArrowWriter} into
 * batches of {@link #BATCH_ROWS} rows whose columns are the row type's fields (by {@link FlinkTypes}'
 * mapping). The sink appends: rows of kind other than INSERT are refused.
 */
final class RowDataInput implements SinkInput<RowData> {
  private static final long serialVersionUID = 1L;

  /** Rows per Arrow batch handed to the writer. */
  static final int BATCH_ROWS = 4096;

  private final RowType rowType;

  RowDataInput(RowType rowType) {
    this.rowType = rowType;
    FlinkTypes.toArrowSchema(rowType); // fail on the client, not in the tasks, for a type Quiver cannot store
  }

  @Override
  public Batcher<RowData> open(BufferAllocator allocator) {
    Schema schema = FlinkTypes.toArrowSchema(rowType);
    return new Batcher<>() {
      private VectorSchemaRoot root;
      private RowDataArrowWriter writer;

      @Override
      public void add(RowData row, Consumer<VectorSchemaRoot> completed) {
        if (row.getRowKind() != RowKind.INSERT) {
          throw new InvalidArgumentException("the Quiver sink appends rows, but got a " + row.getRowKind()
              + " row; give it an insert-only (append) stream");
        }
        if (root == null) {
          root = VectorSchemaRoot.create(schema, allocator);
          writer = new RowDataArrowWriter(root);
        }
        writer.write(row);
        if (writer.rowCount() >= BATCH_ROWS) {
          flush(completed);
        }
      }

      @Override
      public void flush(Consumer<VectorSchemaRoot> completed) {
        if (root == null || writer.rowCount() == 0) {
          return;
        }
        VectorSchemaRoot done = writer.finish();
        root = null;
        writer = null;
        completed.accept(done);
      }

      @Override
      public long bufferedRows() {
        return writer == null ? 0 : writer.rowCount();
      }

      @Override
      public long bufferedBytes() {
        return writer == null ? 0 : writer.bufferedBytes();
      }

      @Override
      public void close() {
        if (root != null) {
          root.close();
          root = null;
          writer = null;
        }
      }
    };
  }
}
