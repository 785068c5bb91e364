package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.complex.impl.UnionMapWriter;
import org.apache.arrow.vector.complex.writer.BaseWriter.StructWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Computed updates of columns whose values hold structs inside a container: a map (its entries are a struct)
 * and a list of structs. The struct validity of such a value is part of the value; an update replaces it
 * whole. (These failed with a NullPointerException before.)
 */
class NestedContainerUpdateTest {
  private static final Field ID = new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null);
  private static final Field ENTRIES = new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(
      new Field("key", FieldType.notNullable(new ArrowType.Int(32, true)), null),
      new Field("value", FieldType.nullable(new ArrowType.Int(64, true)), null)));
  private static final Field M = new Field("m", FieldType.nullable(new ArrowType.Map(false)), List.of(ENTRIES));
  private static final Field LS = new Field("ls", FieldType.nullable(ArrowType.List.INSTANCE), List.of(
      new Field("item", FieldType.nullable(ArrowType.Struct.INSTANCE),
          List.of(new Field("a", FieldType.nullable(new ArrowType.Int(32, true)), null)))));
  private static final Schema SCHEMA = new Schema(List.of(ID, M, LS));

  private RootAllocator allocator;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    options = OverlayTestSupport.options(allocator, new MemoryObjectStore(OverlayTestSupport.URI_), 4);
  }

  @AfterEach
  void tearDown() {
    allocator.close(); // fails on a leak
  }

  /** Row i: m = {i: i*10}, null when i % 4 == 3; ls = [{a: i}, null-struct], null when i % 5 == 4. */
  private VectorSchemaRoot batch(int from, int n, int scale) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    BigIntVector id = (BigIntVector) root.getVector("id");
    id.allocateNew(n);
    for (int i = 0; i < n; i++) {
      id.set(i, from + i);
    }
    id.setValueCount(n);
    fillMap((MapVector) root.getVector("m"), from, n, scale);
    fillList((ListVector) root.getVector("ls"), from, n, scale);
    root.setRowCount(n);
    return root;
  }

  private static void fillMap(MapVector m, int from, int n, int scale) {
    UnionMapWriter w = m.getWriter();
    for (int i = 0; i < n; i++) {
      int row = from + i;
      w.setPosition(i);
      if (row % 4 == 3) {
        w.writeNull();
        continue;
      }
      w.startMap();
      w.startEntry();
      w.key().integer().writeInt(row);
      w.value().bigInt().writeBigInt((long) row * scale);
      w.endEntry();
      w.endMap();
    }
    m.setValueCount(n);
  }

  private static void fillList(ListVector ls, int from, int n, int scale) {
    UnionListWriter w = ls.getWriter();
    for (int i = 0; i < n; i++) {
      int row = from + i;
      w.setPosition(i);
      if (row % 5 == 4) {
        w.writeNull();
        continue;
      }
      w.startList();
      StructWriter s = w.struct();
      s.start();
      s.integer("a").writeInt(row * scale);
      s.end();
      s.writeNull(); // a null struct inside the list
      w.endList();
    }
    ls.setValueCount(n);
  }

  private Map<Long, List<Object>> read(Dataset ds) throws Exception {
    Map<Long, List<Object>> out = new java.util.TreeMap<>();
    try (ArrowReader r = ds.newScan().open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot b = r.getVectorSchemaRoot();
        for (int i = 0; i < b.getRowCount(); i++) {
          out.put(((BigIntVector) b.getVector("id")).get(i),
              Arrays.asList(b.getVector("m").getObject(i), b.getVector("ls").getObject(i)));
        }
      }
    }
    return out;
  }

  private Map<Long, List<Object>> expected(int n, int scale, java.util.function.LongPredicate updated) throws Exception {
    Map<Long, List<Object>> out = new java.util.TreeMap<>();
    for (int i = 0; i < n; i++) {
      try (VectorSchemaRoot b = batch(i, 1, updated.test(i) ? scale : 10)) {
        out.put((long) i, Arrays.asList(b.getVector("m").getObject(0), b.getVector("ls").getObject(0)));
      }
    }
    return out;
  }

  @Test
  void computedUpdatesOfAMapAndAListOfStructsReplaceTheWholeValue() throws Exception {
    List<VectorSchemaRoot> batches = new ArrayList<>(List.of(batch(0, 12, 10)));
    try (Dataset ds = Dataset.create(OverlayTestSupport.URI_, SCHEMA, batches, options)) {
      batches.forEach(VectorSchemaRoot::close);
      UpdateResult r = ds.update(Predicate.lt("id", 6L), List.of("id"), List.of("m", "ls"), current -> {
        int n = current.getRowCount();
        VectorSchemaRoot out = VectorSchemaRoot.create(new Schema(List.of(M, LS)), allocator);
        BigIntVector ids = (BigIntVector) current.getVector("id");
        MapVector m = (MapVector) out.getVector("m");
        ListVector ls = (ListVector) out.getVector("ls");
        for (int i = 0; i < n; i++) {
          try (VectorSchemaRoot one = batch((int) ids.get(i), 1, 7)) {
            m.copyFromSafe(0, i, one.getVector("m"));
            ls.copyFromSafe(0, i, one.getVector("ls"));
          }
        }
        m.setValueCount(n);
        ls.setValueCount(n);
        out.setRowCount(n);
        return out;
      });
      assertThat(r.updatedRows()).isEqualTo(6);
      assertThat(read(ds)).isEqualTo(expected(12, 7, id -> id < 6));
      assertThat(ds.validate().problems()).isEmpty();
      try (Dataset v1 = ds.checkout(1)) {
        assertThat(read(v1)).isEqualTo(expected(12, 10, id -> false));
      }
    }
  }
}
