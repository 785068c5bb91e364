package io.quiver.dataset;

import static io.quiver.dataset.OverlayTestSupport.expected;
import static io.quiver.dataset.OverlayTestSupport.scanRows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.OverlayTestSupport.Row;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Updates by predicate: literal values and values computed from the matched rows. */
class UpdateByPredicateTest {
  private RootAllocator allocator;
  private MemoryObjectStore store;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(OverlayTestSupport.URI_);
    options = OverlayTestSupport.options(allocator, store, 16);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** Two fragments: ids 0..39 and 40..59. */
  private Dataset twoFragments() {
    Dataset ds = OverlayTestSupport.create(allocator, options, 0, 40);
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 40, 20)) {
      ds.append(List.of(b));
    }
    return ds;
  }

  private Map<Long, Row> baseRows(long n) {
    Map<Long, Row> out = new HashMap<>();
    for (long id = 0; id < n; id++) {
      out.put(id, expected(id));
    }
    return out;
  }

  @Test
  void literalUpdateOfMatchedRowsAcrossFragments() {
    try (Dataset ds = twoFragments()) {
      UpdateResult r = ds.update(Predicate.and(Predicate.ge("id", 35), Predicate.lt("id", 45)),
          Map.of("name", "hit", "s.y", "why"));
      assertThat(r).isEqualTo(new UpdateResult(3, 10));
      Map<Long, Row> want = baseRows(60);
      for (long id = 35; id < 45; id++) {
        Row e = expected(id);
        // An update never changes struct validity: where s was null (id 38) it stays null, s.y hidden.
        want.put(id, e.structNull() ? new Row("hit", true, null, null, e.tags()) : new Row("hit", false, e.x(), "why",
            e.tags()));
      }
      assertThat(scanRows(ds.newScan().open())).isEqualTo(want);
      assertThat(ds.manifest().fragments().stream().filter(f -> !f.overlays().isEmpty()).count()).isEqualTo(2);
    }
  }

  @Test
  void predicatesSeeOverlaidValuesAndNestedPaths() {
    try (Dataset ds = twoFragments()) {
      ds.update(Predicate.eq("id", 4), Map.of("s.x", 1000));
      // s.x > 150 matches ids 51..59 (3 * id) and, through the overlay, id 4.
      UpdateResult r = ds.update(Predicate.gt("s.x", 150), Map.of("name", "big"));
      long expectedRows = 0;
      Map<Long, Row> scanned = scanRows(ds.newScan().open());
      for (long id = 0; id < 60; id++) {
        Integer x = id == 4 ? Integer.valueOf(1000) : expected(id).x();
        boolean hit = x != null && x > 150;
        expectedRows += hit ? 1 : 0;
        assertThat(scanned.get(id).name()).as("row " + id).isEqualTo(hit ? "big" : SampleTable.expectedName(id));
      }
      assertThat(r).isEqualTo(new UpdateResult(4, expectedRows));
    }
  }

  @Test
  void computedUpdatesReadCurrentValuesAndWriteNestedOutputs() {
    try (Dataset ds = twoFragments()) {
      ds.update(Predicate.eq("id", 2), Map.of("s.x", 5));
      UpdateResult r = ds.update(Predicate.lt("id", 10), List.of("id", "s.x"), List.of("s.x", "name"), current -> {
        BigIntVector id = (BigIntVector) current.getVector("id");
        IntVector x = (IntVector) ((StructVector) current.getVector("s")).getChild("x");
        VectorSchemaRoot out = VectorSchemaRoot.create(new Schema(List.of(
            new Field("x", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))), allocator);
        out.allocateNew();
        IntVector newX = (IntVector) out.getVector(0);
        VarCharVector newName = (VarCharVector) out.getVector(1);
        for (int i = 0; i < current.getRowCount(); i++) {
          if (x.isNull(i)) {
            newX.setNull(i);
          } else {
            newX.set(i, x.get(i) * 2);
          }
          newName.setSafe(i, ("n" + id.get(i)).getBytes(StandardCharsets.UTF_8));
        }
        out.setRowCount(current.getRowCount());
        return out;
      });
      assertThat(r).isEqualTo(new UpdateResult(4, 10));
      Map<Long, Row> want = baseRows(60);
      for (long id = 0; id < 10; id++) {
        Row e = expected(id);
        Integer x = id == 2 ? Integer.valueOf(5) : e.x();
        want.put(id, new Row("n" + id, e.structNull() && x == null, x == null ? null : x * 2, e.y(), e.tags()));
      }
      assertThat(scanRows(ds.newScan().open())).isEqualTo(want);
      assertThat(want.get(2L).x()).isEqualTo(10);
    }
  }

  @Test
  void badFunctionResultsAreTypedErrorsAndCommitNothing() {
    try (Dataset ds = twoFragments()) {
      int files = store.listAll("data/").size();
      Schema intSchema = new Schema(List.of(new Field("x", FieldType.nullable(new ArrowType.Int(32, true)), null)));
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.update(Predicate.alwaysTrue(), List.of("id"),
          List.of("s.x"), current -> rootOf(intSchema, current.getRowCount() - 1)));
      assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(() -> ds.update(Predicate.alwaysTrue(), List.of("id"),
          List.of("name"), current -> rootOf(intSchema, current.getRowCount())));
      assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(() -> ds.update(Predicate.alwaysTrue(), List.of("id"),
          List.of("s.x", "name"), current -> rootOf(intSchema, current.getRowCount())));
      Schema longSchema = new Schema(List.of(new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null)));
      assertThatExceptionOfType(SchemaMismatchException.class).as("nulls into non-nullable id").isThrownBy(() -> ds.update(Predicate.alwaysTrue(), List.of("id"),
          List.of("id"), current -> rootOf(longSchema, current.getRowCount())));
      Map<String, Object> nullId = new HashMap<>();
      nullId.put("id", null);
      assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(() -> ds.update(Predicate.alwaysTrue(), nullId));
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.update(Predicate.eq("name", 3), Map.of("name", "x")));
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.update(Predicate.eq("nope", 3), Map.of("name", "x")));
      assertThat(ds.latestVersion()).isEqualTo(2);
      assertThat(store.listAll("data/").size()).as("overlay files of failed updates are deleted").isEqualTo(files);
      assertThat(ds.update(Predicate.gt("id", 1000), Map.of("name", "x"))).isEqualTo(new UpdateResult(2, 0));
      assertThat(ds.latestVersion()).as("nothing matched: no commit").isEqualTo(2);
    }
  }

  /** A root of {@code rows} rows, all null. */
  private VectorSchemaRoot rootOf(Schema schema, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    root.setRowCount(rows);
    return root;
  }

  @Test
  void deletedRowsAreNotUpdated() {
    try (Dataset ds = twoFragments()) {
      OverlayTestSupport.delete(store, ds.manifest(), 0, 1, 2);
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(latest.update(Predicate.lt("id", 5), Map.of("name", "u"))).isEqualTo(new UpdateResult(4, 3));
        Map<Long, Row> rows = scanRows(latest.newScan().open());
        assertThat(rows.size()).isEqualTo(58);
        assertThat(rows.get(0L).name()).isEqualTo("u");
        assertThat(rows.get(4L).name()).isEqualTo("u");
      }
    }
  }

  @Test
  void aConcurrentChangeToAColumnThePredicateReadIsARetryableConflict() {
    try (Dataset ds = twoFragments()) {
      try (Dataset a = ds.checkout(2); Dataset b = ds.checkout(2)) {
        a.update(Predicate.eq("id", 1), Map.of("name", "changed"));
        // b's predicate reads name in fragment 0, which a just changed.
        assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> b.update(Predicate.isNull("name"), Map.of("s.x", 0)));
      }
      try (Dataset a = ds.checkoutLatest(); Dataset b = ds.checkoutLatest()) {
        a.update(Predicate.eq("id", 1), Map.of("name", "again"));
        // b reads and writes only s.x and id: no conflict.
        assertThat(b.update(Predicate.eq("id", 3), Map.of("s.x", 0)).version()).isEqualTo(5);
      }
    }
  }
}
