package io.quiver.internal.read;

import io.quiver.dataset.RowAddress;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.roaringbitmap.RoaringBitmap;

/**
 * The result of a scan as an Arrow reader: fragment by fragment, chunk by chunk, deleted rows removed,
 * optionally with the {@code _rowaddr} column last. Reads lazily; close it to release its buffers.
 */
final public class ScanReader extends ArrowReader {
  private final TableIo io;
  private final Schema projected;
  private final Schema table;
  private final boolean withRowAddress;
  private final int batchSize;
  private final Iterator<Fragment> fragments;
  private final BufferAllocator allocator;

  private FragmentReader reader;
  private Fragment fragment;
  private RoaringBitmap deleted;
  private Iterator<FragmentReader.Chunk> chunks;
  private long bytesDelivered;

  public ScanReader(TableIo io, Manifest manifest, Schema projected, boolean withRowAddress, int batchSize,
      BufferAllocator allocator) {
    super(allocator);
    this.io = io;
    this.projected = projected;
    this.table = manifest.schema();
    this.withRowAddress = withRowAddress;
    this.batchSize = batchSize;
    this.fragments = manifest.fragments().iterator();
    this.allocator = allocator;
  }

  static Field rowAddressField() {
    return new Field(RowAddress.COLUMN, FieldType.notNullable(new ArrowType.Int(64, false)), null);
  }

  @Override
  protected org.apache.arrow.vector.types.pojo.Schema readSchema() {
    List<Field> fields = new ArrayList<>(projected.toArrow().getFields());
    if (withRowAddress) {
      fields.add(rowAddressField());
    }
    return new org.apache.arrow.vector.types.pojo.Schema(fields, projected.toArrow().getCustomMetadata());
  }

  @Override
  public boolean loadNextBatch() throws java.io.IOException {
    VectorSchemaRoot out = getVectorSchemaRoot();
    while (true) {
      if (chunks == null || !chunks.hasNext()) {
        closeFragment();
        if (!fragments.hasNext()) {
          out.setRowCount(0);
          return false;
        }
        fragment = fragments.next();
        if (fragment.liveRows() == 0) {
          continue;
        }
        deleted = Deletions.of(io, fragment);
        reader = new FragmentReader(io, fragment, projected, table, allocator);
        chunks = reader.plan(batchSize).iterator();
        continue;
      }
      FragmentReader.Chunk chunk = chunks.next();
      long firstDeleted = deleted.rangeCardinality(chunk.start(), chunk.start() + chunk.length());
      if (firstDeleted == chunk.length()) {
        continue;
      }
      try (VectorSchemaRoot physical = reader.read(chunk)) {
        emit(physical, chunk, firstDeleted > 0, out);
      }
      return true;
    }
  }

  /** Moves the chunk's live rows into the reader's root. */
  private void emit(VectorSchemaRoot physical, FragmentReader.Chunk chunk, boolean hasDeletes, VectorSchemaRoot out) {
    int[] live = liveRows(chunk, hasDeletes);
    List<FieldVector> outVectors = out.getFieldVectors();
    for (int c = 0; c < physical.getFieldVectors().size(); c++) {
      FieldVector from = physical.getVector(c);
      FieldVector to = outVectors.get(c);
      if (live == null) {
        from.makeTransferPair(to).transfer();
      } else {
        to.clear();
        to.allocateNew();
        for (int i = 0; i < live.length; i++) {
          to.copyFromSafe(live[i], i, from);
        }
        to.setValueCount(live.length);
      }
    }
    int rows = live == null ? chunk.length() : live.length;
    if (withRowAddress) {
      UInt8Vector addresses = (UInt8Vector) outVectors.get(outVectors.size() - 1);
      addresses.clear();
      addresses.allocateNew(rows);
      for (int i = 0; i < rows; i++) {
        long offset = chunk.start() + (live == null ? i : live[i]);
        addresses.set(i, RowAddress.of(fragment.id(), offset));
      }
      addresses.setValueCount(rows);
    }
    out.setRowCount(rows);
    for (FieldVector v : outVectors) {
      bytesDelivered += v.getBufferSize();
    }
  }

  private int[] liveRows(FragmentReader.Chunk chunk, boolean hasDeletes) {
    if (!hasDeletes) {
      return null;
    }
    int[] live = new int[chunk.length()];
    int n = 0;
    for (int i = 0; i < chunk.length(); i++) {
      if (!deleted.contains((int) (chunk.start() + i))) {
        live[n++] = i;
      }
    }
    return java.util.Arrays.copyOf(live, n);
  }

  private void closeFragment() {
    if (reader != null) {
      reader.close();
      reader = null;
    }
    chunks = null;
  }

  /** Bytes of Arrow buffers handed out so far (there is no single channel to count). */
  @Override
  public long bytesRead() {
    return bytesDelivered;
  }

  @Override
  protected void closeReadSource() {
    closeFragment();
  }
}
