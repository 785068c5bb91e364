package io.quiver.dataset;

import io.quiver.internal.file.DataFileWriter;
import io.quiver.internal.file.WrittenFile;
import io.quiver.internal.read.Deletions;
import io.quiver.internal.table.CommitLoop;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.Transaction;
import io.quiver.internal.write.FragmentWriter;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.DeletionFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.roaringbitmap.RoaringBitmap;

/** Hand-built overlays and deletions, committed through the real commit loop; row snapshots for checks. */
public final class OverlayTestSupport {
  static final String URI_ = "test://table";

  private OverlayTestSupport() {}

  /** Options on an in-memory store, small batches so chunks and file batches interleave. */
  static DatasetOptions options(BufferAllocator allocator, MemoryObjectStore store, int rowsPerBatch) {
    ObjectStoreProvider provider =
        TestStores.provider("test", () -> store);
    return DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(1 << 20))
        .registry(ObjectStores.empty().register(provider))
        .rowsPerBatch(rowsPerBatch)
        .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
        .build();
  }

  static Dataset create(BufferAllocator allocator, DatasetOptions options, long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  static TableIo io(ObjectStore store) {
    return new TableIo(store, new ObjectStoreCommitStore(store), new Session(1 << 20));
  }

  /** Commits {@code op} read at {@code base}; returns the new manifest. */
  public static Manifest commit(ObjectStore store, Manifest base, Operation op) {
    Transaction txn = new Transaction(UUID.randomUUID().toString(), base.version(), op, Map.of());
    return new CommitLoop(io(store), CommitOptions.defaults(), Clock.systemUTC()).commit(txn, Optional.of(base));
  }

  /** Writes an overlay data file holding {@code batch} (whose schema is the projection it stores). */
  static DataFile writeOverlayFile(ObjectStore store, BufferAllocator allocator, VectorSchemaRoot batch,
      List<Integer> fieldIds, int rowsPerBatch) {
    try (DataFileWriter writer = new DataFileWriter(store, FragmentWriter.newDataFilePath(), batch.getSchema(),
        allocator, rowsPerBatch)) {
      writer.write(batch);
      WrittenFile file = writer.finish();
      return DataFile.of(file.key(), fieldIds, file.sizeBytes());
    }
  }

  /** A root holding one utf8 column "name" (a null where the value is null). */
  static VectorSchemaRoot names(BufferAllocator allocator, List<String> values) {
    VectorSchemaRoot root = VectorSchemaRoot.create(
        new org.apache.arrow.vector.types.pojo.Schema(List.of(SampleTable.SCHEMA.getFields().get(1))), allocator);
    VarCharVector v = (VarCharVector) root.getVector(0);
    v.allocateNew();
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) == null) {
        v.setNull(i);
      } else {
        v.setSafe(i, values.get(i).getBytes(StandardCharsets.UTF_8));
      }
    }
    root.setRowCount(values.size());
    return root;
  }

  /** Writes a deletion file for fragment {@code fragmentId} and commits an {@code Operation.Delete}. */
  static Manifest delete(ObjectStore store, Manifest base, long fragmentId, int... offsets) {
    Fragment fragment = base.fragments().stream().filter(f -> f.id() == fragmentId).findFirst().orElseThrow();
    RoaringBitmap all = Deletions.of(io(store), fragment);
    RoaringBitmap added = RoaringBitmap.bitmapOf(offsets);
    all.or(added);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      all.serialize(new DataOutputStream(bytes));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String path = DeletionFile.DELETIONS_PREFIX + UUID.randomUUID() + ".bin";
    store.write(path, bytes.toByteArray());
    DeletionFile file = new DeletionFile(path, all.getLongCardinality(), bytes.size());
    Operation.FragmentDeletion fd = new Operation.FragmentDeletion(
        fragmentId, fragment.deletionFile(), file, added.toMutableRoaringBitmap());
    return commit(store, base, new Operation.Delete(List.of(fd), Set.of(), "hand-made"));
  }

  /** One row's values: name, s (null or [x, y]), tags. */
  record Row(String name, boolean structNull, Integer x, String y, Object tags) {}

  /** The row SampleTable writes for an id. */
  static Row expected(long id) {
    boolean sNull = SampleTable.structIsNull(id);
    return new Row(SampleTable.expectedName(id), sNull, sNull ? null : SampleTable.expectedX(id),
        sNull ? null : "y" + id, SampleTable.expectedTags(id));
  }

  /** id → row of a full-width batch. */
  static Map<Long, Row> rows(VectorSchemaRoot root) {
    Map<Long, Row> out = new HashMap<>();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    StructVector s = (StructVector) root.getVector("s");
    IntVector x = (IntVector) s.getChild("x");
    VarCharVector y = (VarCharVector) s.getChild("y");
    ListVector tags = (ListVector) root.getVector("tags");
    for (int i = 0; i < root.getRowCount(); i++) {
      boolean sNull = s.isNull(i);
      out.put(id.get(i), new Row(
          name.isNull(i) ? null : name.getObject(i).toString(),
          sNull,
          sNull ? null : x.getObject(i),
          sNull || y.isNull(i) ? null : y.getObject(i).toString(),
          tags.getObject(i)));
    }
    return out;
  }

  /** id → row over a whole scan. */
  static Map<Long, Row> scanRows(ArrowReader reader) {
    Map<Long, Row> out = new HashMap<>();
    try (reader) {
      while (reader.loadNextBatch()) {
        out.putAll(rows(reader.getVectorSchemaRoot()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** Row addresses of a scan, in scan order, keyed by id. */
  static Map<Long, Long> addresses(Dataset ds) {
    Map<Long, Long> out = new HashMap<>();
    try (ArrowReader reader = ds.newScan().columns("id").withRowAddress(true).open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        org.apache.arrow.vector.UInt8Vector addr = (org.apache.arrow.vector.UInt8Vector) root.getVector(RowAddress.COLUMN);
        for (int i = 0; i < root.getRowCount(); i++) {
          out.put(id.get(i), addr.get(i));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  static List<Long> sorted(java.util.Collection<Long> ids) {
    List<Long> out = new ArrayList<>(ids);
    out.sort(null);
    return out;
  }
}
