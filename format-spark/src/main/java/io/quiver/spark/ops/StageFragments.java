package io.quiver.spark.ops;

import io.quiver.dataset.ColumnSchema;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.RowAddress;
import io.quiver.spark.TableRef;
import io.quiver.spark.VersionRef;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.execution.arrow.ArrowWriter;

/**
 * Executor side of a backfill: rows {@code (values…, _fragment, _rowaddr)} sorted by fragment and address
 * become one staged column write per fragment, written through a handle on the version the values were read
 * at. A fragment's deleted rows (addresses the scan did not return) are written as nulls, so the staged file
 * covers every physical row as Quiver requires; their values are never read.
 */
public final class StageFragments implements FlatMapFunction<Iterator<InternalRow>, byte[]> {
  private static final long serialVersionUID = 1L;
  private static final int BATCH_ROWS = 8192;

  private final TableRef ref;
  private final long version;
  private final byte[] schema;
  private final Map<Long, Long> physicalRows;
  private final int values;

  public StageFragments(TableRef ref, long version, byte[] schema, Map<Long, Long> physicalRows, int values) {
    this.ref = ref;
    this.version = version;
    this.schema = schema.clone();
    this.physicalRows = Map.copyOf(physicalRows);
    this.values = values;
  }

  @Override
  public Iterator<byte[]> call(Iterator<InternalRow> rows) throws IOException {
    List<byte[]> staged = new ArrayList<>();
    if (!rows.hasNext()) {
      return staged.iterator();
    }
    ColumnSchema columns = ColumnSchema.decode(schema);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset ds = new VersionRef.Number(version).open(ref)) {
      Cursor cursor = new Cursor(rows, values);
      while (cursor.current != null) {
        long fragment = cursor.current.getLong(values);
        Long physical = physicalRows.get(fragment);
        if (physical == null) {
          throw new IllegalStateException("row of fragment " + fragment + " that this backfill did not plan");
        }
        try (FragmentRows reader = new FragmentRows(allocator, columns.arrowSchema(), cursor, fragment, physical,
            values)) {
          staged.add(ds.columns().writeFragment(fragment, reader, columns).encode());
        }
        if (cursor.current != null && cursor.current.getLong(values) == fragment) {
          throw new IllegalStateException("fragment " + fragment + " has rows past its " + physical
              + " physical rows at version " + version);
        }
      }
    }
    return staged.iterator();
  }

  /** The row being looked at; advanced only once the row was written (Spark reuses row objects). */
  private static final class Cursor {
    private final Iterator<InternalRow> rows;
    InternalRow current;

    Cursor(Iterator<InternalRow> rows, int values) {
      this.rows = rows;
      this.current = rows.hasNext() ? rows.next() : null;
    }

    void advance() {
      current = rows.hasNext() ? rows.next() : null;
    }
  }

  /** One fragment's physical rows, in offset order, in batches. */
  private static final class FragmentRows extends ArrowReader {
    private final Schema arrow;
    private final Cursor cursor;
    private final long fragment;
    private final long physical;
    private final int values;
    private final GenericInternalRow nulls;
    private ArrowWriter writer;
    private long next;

    FragmentRows(BufferAllocator allocator, Schema arrow, Cursor cursor, long fragment, long physical, int values) {
      super(allocator);
      this.arrow = arrow;
      this.cursor = cursor;
      this.fragment = fragment;
      this.physical = physical;
      this.values = values;
      this.nulls = new GenericInternalRow(values);
    }

    @Override
    public boolean loadNextBatch() throws IOException {
      if (next >= physical) {
        // Drain rows past the fragment's end (there are none unless the table changed under the scan).
        return false;
      }
      if (writer == null) {
        writer = ArrowWriter.create(getVectorSchemaRoot());
      }
      writer.reset();
      int n = 0;
      while (n < BATCH_ROWS && next < physical) {
        InternalRow row = cursor.current;
        long offset = row != null && row.getLong(values) == fragment ? RowAddress.offset(row.getLong(values + 1))
            : physical;
        if (offset == next) {
          writer.write(row);
          cursor.advance();
        } else if (offset > next) {
          writer.write(nulls);
        } else {
          throw new IllegalStateException("fragment " + fragment + " rows out of order at offset " + offset);
        }
        next++;
        n++;
      }
      writer.finish();
      return n > 0;
    }

    @Override
    public long bytesRead() {
      return 0;
    }

    @Override
    protected void closeReadSource() {}

    @Override
    protected Schema readSchema() {
      return arrow;
    }
  }
}
