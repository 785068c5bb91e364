package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.StaleColumnWriteException;
import io.quiver.store.CountingObjectStore;
import io.quiver.store.MemoryObjectStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongPredicate;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Scenario E7 with a nested struct {@code s {a {p, q}, y}}: each level's validity comes from its own first
 * live member and survives member rewrites at every level; a projection that does not read the validity
 * source reads only its validity buffer; a whole-struct write makes a concurrent staged member write stale.
 */
class NestedStructValidityTest {
  private static final int ROWS = 2000;
  private static final ArrowType INT32 = new ArrowType.Int(32, true);
  private static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("s", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
          new Field("a", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
              new Field("p", FieldType.nullable(INT32), null),
              new Field("q", FieldType.nullable(INT32), null))),
          new Field("y", FieldType.nullable(INT32), null)))));
  private static final List<List<String>> PROJECTIONS = List.of(List.of("s"), List.of("s.a"), List.of("s.a.p"),
      List.of("s.a.q"), List.of("s.y"), List.of("s.a.q", "s.y"), List.of("id", "s.a.p"), List.of("s.y", "s.a"));

  private final RootAllocator allocator = new RootAllocator();
  private final MemoryObjectStore memory = new MemoryObjectStore("mem://nested");
  private final CountingObjectStore store = new CountingObjectStore(memory);
  private final DatasetOptions options = DatasetOptions.builder()
      .allocator(allocator)
      .session(new Session(1 << 20))
      .registry(io.quiver.store.ObjectStores.empty().register(io.quiver.store.TestStores.provider("test", () -> store)))
      .rowsPerBatch(512)
      .commitOptions(CommitOptions.defaults().withBackoff(java.time.Duration.ZERO, java.time.Duration.ZERO))
      .build();
  /** id → {s null, s.a null}. */
  private final Map<Long, boolean[]> model = new TreeMap<>();

  @AfterEach
  void close() {
    allocator.close(); // fails the test on a leaked buffer
  }

  private static boolean sNull(long id) {
    return id % 7 == 3;
  }

  private static boolean aNull(long id) {
    return sNull(id) || id % 5 == 2;
  }

  private Dataset create() {
    long[] ids = new long[ROWS];
    for (int i = 0; i < ROWS; i++) {
      ids[i] = i;
      model.put((long) i, new boolean[] {sNull(i), aNull(i)});
    }
    try (VectorSchemaRoot b = batch(SCHEMA, ids, NestedStructValidityTest::sNull, NestedStructValidityTest::aNull, 1)) {
      // Uncompressed: e7's byte counts are Arrow sizes ("4 bytes a row").
      return Dataset.create("test://nested", SCHEMA, List.of(b), options, java.util.Map.of("write.compression", "none"));
    }
  }

  @Test
  void e7_nestedStructValidityIsKeptAtEveryLevelByMemberRewritesAndChangedOnlyByWholeWrites() {
    try (Dataset ds = create()) {
      check(ds, "created");
      // s.a.q replaced from a function whose s and s.a are valid everywhere: neither level changes.
      replace(ds, "s.a.q", id -> false, id -> false);
      check(ds, "after replacing s.a.q");
      // s.y staged from a worker that says s is null everywhere: ignored.
      stage(ds, "s.y", id -> true);
      check(ds, "after staging s.y");
      // s.a written whole: its validity is the function's; s (not written whole) keeps its own.
      replace(ds, "s.a", id -> false, id -> id % 4 == 0);
      model.forEach((id, n) -> n[1] = id % 4 == 0);
      check(ds, "after replacing s.a whole");
      try (Dataset latest = ds.checkoutLatest()) {
        latest.delete(new long[] {ROWS - 1}); // fragment 0, offset = id: a deletion makes it qualify
        model.remove(ROWS - 1L);
        assertThat(latest.compact(CompactionOptions.defaults()).fragmentsRemoved()).isEqualTo(1);
      }
      check(ds, "after compaction");
    }
  }

  @Test
  void e7_projectionWithoutTheValiditySourceReadsOnlyItsValidityBuffer() throws Exception {
    try (Dataset ds = create()) {
      // One file: q's own struct ancestors are s's and s.a's validity, nothing more is read.
      assertThat(bytesScanning(ds, List.of("s.a.q"))).isLessThanOrEqualTo(bytesScanning(ds, List.of("s.a.p", "s.a.q")));
      replace(ds, "s.a.q", id -> false, id -> false); // s.a.q now in its own file; p's file is the source
      try (Dataset latest = ds.checkoutLatest()) {
        long withP = bytesScanning(latest, List.of("s.a.p", "s.a.q"));
        long withoutP = bytesScanning(latest, List.of("s.a.q"));
        // p's values (4 bytes a row) and its validity are not read; s's and s.a's validity buffers are.
        assertThat(withoutP).isLessThanOrEqualTo(withP - 4L * ROWS);
      }
      check(ds, "after replacing s.a.q");
    }
  }

  @Test
  void e7_wholeStructWriteMakesAConcurrentStagedMemberWriteStaleAndAMemberWriteDoesNot() {
    try (Dataset ds = create(); Dataset worker = ds.checkout(ds.version())) {
      ColumnSchema ySchema = worker.columns().newSchema(List.of(), List.of("s.y"), List.of());
      StagedColumnWrite y = stageOne(worker, ySchema, id -> false);
      replace(ds, "s.a.q", id -> true, id -> true); // a member write: validity unchanged, y's backing too
      worker.columns().commit(List.of(y));
      check(ds, "after a staged s.y committed over a concurrent member write");

      try (Dataset late = ds.checkoutLatest()) {
        StagedColumnWrite y2 = stageOne(late, late.columns().newSchema(List.of(), List.of("s.y"), List.of()), id -> false);
        replace(ds, "s", id -> id % 2 == 0, id -> id % 2 == 0); // the struct written whole: new validity
        model.forEach((id, n) -> {
          n[0] = id % 2 == 0;
          n[1] = id % 2 == 0;
        });
        StaleColumnWriteException e =
            assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> late.columns().commit(List.of(y2))).actual();
        assertThat(e.getMessage()).contains("s.y");
        check(ds, "after the stale staged write was refused");
      }
    }
  }

  // ---------------------------------------------------------------- helpers

  private long bytesScanning(Dataset ds, List<String> columns) throws IOException {
    try (ArrowReader warm = ds.newScan().columns(columns).open()) {
      while (warm.loadNextBatch()) {
        // footers cached; only data ranges count below
      }
    }
    store.reset();
    try (ArrowReader r = ds.newScan().columns(columns).open()) {
      while (r.loadNextBatch()) {
        // read everything
      }
    }
    return store.bytesRead();
  }

  /** replaceColumns of {@code path}; the function's s is null where sNulls, its s.a where aNulls. */
  private void replace(Dataset ds, String path, LongPredicate sNulls, LongPredicate aNulls) {
    try (Dataset latest = ds.checkoutLatest()) {
      io.quiver.schema.Schema table = latest.manifest().schema();
      Schema out = table.project(java.util.Set.of(table.findField(path).orElseThrow().id())).toArrow();
      latest.columns().replace(List.of(path), List.of("id"), (input, alloc) -> {
        BigIntVector id = (BigIntVector) input.getVector("id");
        long[] ids = new long[input.getRowCount()];
        for (int i = 0; i < ids.length; i++) {
          ids[i] = id.get(i);
        }
        return batch(out, ids, sNulls, aNulls, 7);
      });
    }
  }

  private void stage(Dataset ds, String path, LongPredicate sNulls) {
    try (Dataset latest = ds.checkoutLatest()) {
      StagedColumnWrite w = stageOne(latest, latest.columns().newSchema(List.of(), List.of(path), List.of()), sNulls);
      latest.columns().commit(List.of(w));
    }
  }

  private StagedColumnWrite stageOne(Dataset handle, ColumnSchema schema, LongPredicate sNulls) {
    long[] ids = new long[ROWS];
    for (int i = 0; i < ROWS; i++) {
      ids[i] = i; // one fragment, offset = id
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot b = batch(schema.arrowSchema(), ids, sNulls, id -> false, 3);
        ArrowStreamWriter writer = new ArrowStreamWriter(b, null, Channels.newChannel(bytes))) {
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator)) {
      return handle.columns().writeFragment(handle.manifest().fragments().get(0).id(), reader, schema);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A batch of {@code schema} (id and/or a projection of s) for {@code ids}; ints are id * factor. */
  private VectorSchemaRoot batch(Schema schema, long[] ids, LongPredicate sNulls, LongPredicate aNulls, int factor) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    for (int i = 0; i < ids.length; i++) {
      long id = ids[i];
      if (root.getVector("id") instanceof BigIntVector v) {
        v.set(i, id);
      }
      StructVector s = (StructVector) root.getVector("s");
      if (s == null) {
        continue;
      }
      if (sNulls.test(id)) {
        s.setNull(i);
      } else {
        s.setIndexDefined(i);
      }
      if (s.getChild("y") instanceof IntVector y) {
        y.setSafe(i, (int) id * factor);
      }
      if (s.getChild("a") instanceof StructVector a) {
        if (aNulls.test(id)) {
          a.setNull(i);
        } else {
          a.setIndexDefined(i);
        }
        for (String m : List.of("p", "q")) {
          if (a.getChild(m) instanceof IntVector v) {
            v.setSafe(i, (int) id * factor);
          }
        }
      }
    }
    root.getFieldVectors().forEach(v -> v.setValueCount(ids.length));
    root.setRowCount(ids.length);
    return root;
  }

  /** validate() passes, and every projection and take agree with the model at both levels. */
  private void check(Dataset ds, String when) {
    try (Dataset handle = ds.checkoutLatest()) {
      assertThat(handle.validate().isValid()).as(() -> when + ": " + handle.validate()).isTrue();
      Map<Long, Long> addressOf = new HashMap<>();
      Map<Long, Long> idAt = new HashMap<>();
      try (ArrowReader r = handle.newScan().columns("id").withRowAddress(true).open()) {
        while (r.loadNextBatch()) {
          VectorSchemaRoot root = r.getVectorSchemaRoot();
          for (int i = 0; i < root.getRowCount(); i++) {
            long id = ((BigIntVector) root.getVector("id")).get(i);
            long a = ((UInt8Vector) root.getVector("_rowaddr")).get(i);
            addressOf.put(id, a);
            idAt.put(a, id);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      for (List<String> columns : PROJECTIONS) {
        Map<Long, boolean[]> seen = new TreeMap<>();
        try (ArrowReader r = handle.newScan().columns(columns).withRowAddress(true).batchSize(300).open()) {
          while (r.loadNextBatch()) {
            VectorSchemaRoot root = r.getVectorSchemaRoot();
            UInt8Vector addr = (UInt8Vector) root.getVector("_rowaddr");
            for (int i = 0; i < root.getRowCount(); i++) {
              seen.put(idAt.get(addr.get(i)), nulls(root, i));
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        compare(when + ", scan of " + columns, seen);
        List<Long> order = new ArrayList<>(model.keySet());
        java.util.Collections.reverse(order);
        try (VectorSchemaRoot taken = handle.take(order.stream().mapToLong(addressOf::get).toArray(), columns)) {
          Map<Long, boolean[]> rows = new TreeMap<>();
          for (int i = 0; i < order.size(); i++) {
            rows.put(order.get(i), nulls(taken, i));
          }
          compare(when + ", take of " + columns, rows);
        }
      }
    }
  }

  /** {s null, s.a null (or null when s.a is not projected)}. */
  private static boolean[] nulls(VectorSchemaRoot root, int i) {
    StructVector s = (StructVector) root.getVector("s");
    StructVector a = (StructVector) s.getChild("a");
    return a == null ? new boolean[] {s.isNull(i)} : new boolean[] {s.isNull(i), a.isNull(i)};
  }

  private void compare(String what, Map<Long, boolean[]> seen) {
    assertThat(seen.keySet()).as(what).isEqualTo(model.keySet());
    model.forEach((id, want) -> {
      boolean[] got = seen.get(id);
      assertThat(got[0]).as(() -> what + ": s null at id " + id).isEqualTo(want[0]);
      if (got.length > 1) {
        assertThat(got[1]).as(() -> what + ": s.a null at id " + id).isEqualTo(want[1]);
      }
    });
  }
}
