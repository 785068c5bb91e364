package io.quiver.dataset;

import io.quiver.internal.txn.Operation;
import io.quiver.schema.Schema;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/** Batches for staged column writes and values read back. */
public final class StagedColumnSupport {
  private StagedColumnSupport() {}

  public static final ArrowType INT32 = new ArrowType.Int(32, true);

  public static Field intField(String name, boolean nullable) {
    return new Field(name, nullable ? FieldType.nullable(INT32) : FieldType.notNullable(INT32), null);
  }

  /**
   * An Arrow stream of one batch for {@code schema}: every int column (top-level, or struct member, whose
   * struct is then valid) gets {@code values}; a null entry is a null.
   */
  public static ArrowReader ints(BufferAllocator allocator, org.apache.arrow.vector.types.pojo.Schema schema,
      Integer... values) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      for (FieldVector v : root.getFieldVectors()) {
        fill(v, values);
      }
      root.setRowCount(values.length);
      try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(out))) {
        writer.start();
        writer.writeBatch();
        writer.end();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), allocator);
  }

  private static void fill(FieldVector v, Integer[] values) {
    if (v instanceof StructVector s) {
      s.allocateNew();
      for (int i = 0; i < values.length; i++) {
        s.setIndexDefined(i);
      }
      for (FieldVector child : s.getChildrenFromFields()) {
        fill(child, values);
      }
      s.setValueCount(values.length);
    } else {
      IntVector iv = (IntVector) v;
      iv.allocateNew(values.length);
      for (int i = 0; i < values.length; i++) {
        if (values[i] == null) {
          iv.setNull(i);
        } else {
          iv.set(i, values[i]);
        }
      }
      iv.setValueCount(values.length);
    }
  }

  /** An int column (or dotted struct member) of every live row, in scan order. */
  public static List<Integer> column(Dataset ds, String path) {
    List<Integer> out = new ArrayList<>();
    String[] parts = path.split("\\.");
    try (ArrowReader reader = ds.newScan().columns(parts[0]).open()) {
      while (reader.loadNextBatch()) {
        FieldVector v = reader.getVectorSchemaRoot().getVector(parts[0]);
        for (int p = 1; p < parts.length; p++) {
          v = (FieldVector) ((StructVector) v).getChild(parts[p]);
        }
        for (int i = 0; i < v.getValueCount(); i++) {
          out.add(v.isNull(i) ? null : ((IntVector) v).get(i));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** {@code w} with its declared contract and new field ids replaced, as a hostile or buggy caller would. */
  public static StagedColumnWrite forge(StagedColumnWrite w, Schema contract, Set<Integer> newIds) {
    Operation.ColumnWrite cw = w.write();
    return new StagedColumnWrite(w.tableLocation(), w.readVersion(), new Operation.ColumnWrite(cw.fragmentId(),
        cw.physicalRows(), cw.preparedFiles(), contract, newIds, cw.file(), cw.witness()));
  }
}
