package io.quiver.dataset;

import static io.quiver.dataset.OverlayTestSupport.expected;
import static io.quiver.dataset.OverlayTestSupport.rows;
import static io.quiver.dataset.OverlayTestSupport.scanRows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.dataset.OverlayTestSupport.Row;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.NotFoundException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.manifest.Coverage;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Overlay;
import io.quiver.store.MemoryObjectStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Updates by row address with literal values, read back through scan and take. */
class UpdateByAddressTest {
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

  /** Two fragments: ids 0..39 (fragment 0) and 40..59 (fragment 1). */
  private Dataset twoFragments() {
    Dataset ds = OverlayTestSupport.create(allocator, options, 0, 40);
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 40, 20)) {
      ds.append(List.of(b));
    }
    return ds;
  }

  private static Map<String, Object> values(Object... kv) {
    Map<String, Object> out = new java.util.LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      out.put((String) kv[i], kv[i + 1]);
    }
    return out;
  }

  @Test
  void literalUpdatesRoundTripThroughScanAndTakeIncludingNestedMembers() {
    try (Dataset ds = twoFragments()) {
      long[] addresses = {RowAddress.of(0, 3), RowAddress.of(0, 5), RowAddress.of(1, 2), RowAddress.of(0, 3)};
      UpdateResult result = ds.update(addresses, values("name", "updated", "s.x", 77));
      assertEquals(new UpdateResult(3, 3), result, "duplicate addresses count once");
      assertEquals(3, ds.version());
      // One overlay per touched fragment, holding only the updated fields, shared coverage.
      for (Fragment f : ds.manifest().fragments()) {
        assertEquals(1, f.overlays().size());
        Overlay o = f.overlays().get(0);
        assertEquals(List.of(2, 4), o.dataFile().fieldIds());
        assertEquals(3, o.committedVersion());
        assertTrue(o.coverage() instanceof Coverage.Shared);
      }

      Map<Long, Row> want = new HashMap<>();
      for (long id = 0; id < 60; id++) {
        want.put(id, expected(id));
      }
      for (long id : new long[] {3, 42}) {
        Row r = expected(id);
        want.put(id, new Row("updated", false, 77, r.y(), r.tags()));
      }
      // Row 5's struct was null, and an update never changes struct validity: s stays null (s.x = 77 is
      // stored under it, hidden).
      want.put(5L, new Row("updated", true, null, null, expected(5).tags()));
      assertEquals(want, scanRows(ds.newScan().open()));
      assertEquals(want, scanRows(ds.newScan().batchSize(3).open()));
      try (VectorSchemaRoot taken = ds.take(new long[] {RowAddress.of(1, 2), 5, 3, 4}, List.of())) {
        Map<Long, Row> got = rows(taken);
        for (long id : new long[] {42, 5, 3, 4}) {
          assertEquals(want.get(id), got.get(id), "row " + id);
        }
      }
      try (Dataset before = ds.checkout(2)) {
        assertEquals(expected(3), scanRows(before.newScan().open()).get(3L), "older versions keep base values");
      }
    }
  }

  @Test
  void newerUpdatesWinAndNullsCanBeSet() {
    try (Dataset ds = twoFragments()) {
      ds.update(new long[] {1, 2}, values("name", "first"));
      Map<String, Object> nullName = new HashMap<>();
      nullName.put("name", null);
      ds.update(new long[] {2}, nullName);
      ds.update(new long[] {1}, values("tags", null, "s.y", "why"));
      assertEquals(5, ds.version());
      Map<Long, Row> rows = scanRows(ds.newScan().open());
      assertEquals(new Row("first", false, SampleTable.expectedX(1), "why", null), rows.get(1L));
      assertEquals(null, rows.get(2L).name());
      assertEquals(expected(2).x(), rows.get(2L).x());
    }
  }

  @Test
  void invalidUpdatesAreTypedErrorsAndCommitNothing() {
    try (Dataset ds = twoFragments()) {
      Map<String, Object> nullId = new HashMap<>();
      nullId.put("id", null);
      assertThrows(SchemaMismatchException.class, () -> ds.update(new long[] {1}, nullId));
      assertThrows(InvalidArgumentException.class, () -> ds.update(new long[] {1}, values("s.x", "seven")));
      assertThrows(InvalidArgumentException.class, () -> ds.update(new long[] {1}, values("s.x", 1L << 40)));
      assertThrows(InvalidArgumentException.class, () -> ds.update(new long[] {1}, values("s.x", 2.5)));
      assertThrows(InvalidArgumentException.class, () -> ds.update(new long[] {1}, values("nope", 1)));
      assertThrows(InvalidArgumentException.class, () -> ds.update(new long[] {1}, values("s", 1)));
      assertThrows(InvalidArgumentException.class, () -> ds.update(new long[] {1}, values("tags.item", 1)));
      assertThrows(NotFoundException.class, () -> ds.update(new long[] {RowAddress.of(7, 0)}, values("name", "x")));
      assertThrows(NotFoundException.class, () -> ds.update(new long[] {40}, values("name", "x")));
      assertEquals(2, ds.version());
      assertEquals(2, ds.latestVersion());
      assertEquals(new UpdateResult(2, 0), ds.update(new long[0], values("name", "x")), "nothing to update");
      assertEquals(2, ds.latestVersion());
      // A value of the column's type, converted exactly: Integer into int64.
      assertEquals(3, ds.update(new long[] {0}, values("id", 1000)).version());
      try (VectorSchemaRoot taken = ds.take(new long[] {0}, List.of("id"))) {
        assertEquals(1000L, ((org.apache.arrow.vector.BigIntVector) taken.getVector("id")).get(0));
      }
    }
  }

  @Test
  void updatesOfDeletedRowsAreNotFound() {
    try (Dataset ds = twoFragments()) {
      OverlayTestSupport.delete(store, ds.manifest(), 0, 6);
      try (Dataset latest = ds.checkoutLatest()) {
        assertThrows(NotFoundException.class, () -> latest.update(new long[] {5, 6}, values("name", "x")));
        assertEquals(3, latest.latestVersion());
      }
    }
  }

  @Test
  void concurrentUpdatesOfDifferentFragmentsOrFieldsBothLand() {
    try (Dataset ds = twoFragments()) {
      try (Dataset a = ds.checkout(2); Dataset b = ds.checkout(2)) {
        assertEquals(3, a.update(new long[] {1}, values("name", "a")).version());
        assertEquals(4, b.update(new long[] {RowAddress.of(1, 1)}, values("name", "b")).version());
      }
      try (Dataset a = ds.checkout(4); Dataset b = ds.checkout(4)) {
        assertEquals(5, a.update(new long[] {1}, values("name", "a2")).version());
        assertEquals(6, b.update(new long[] {1}, values("s.x", -1)).version());
      }
      try (Dataset latest = ds.checkoutLatest()) {
        Map<Long, Row> rows = scanRows(latest.newScan().open());
        assertEquals("a2", rows.get(1L).name());
        assertEquals(-1, rows.get(1L).x());
        assertEquals("b", rows.get(41L).name());
      }
    }
  }

  @Test
  void concurrentUpdatesOfTheSameFieldInOneFragmentConflict() {
    try (Dataset ds = twoFragments()) {
      try (Dataset a = ds.checkout(2); Dataset b = ds.checkout(2)) {
        assertEquals(3, a.update(new long[] {1}, values("name", "a")).version());
        int filesBefore = store.listAll("data/").size();
        assertThrows(RetryableConflictException.class, () -> b.update(new long[] {2}, values("name", "b")));
        assertEquals(filesBefore, store.listAll("data/").size(), "the loser's overlay file is deleted");
        assertEquals(2, b.version());
      }
      try (Dataset latest = ds.checkoutLatest()) {
        assertEquals(3, latest.version());
        Map<Long, Row> rows = scanRows(latest.newScan().open());
        assertEquals("a", rows.get(1L).name());
        assertEquals(SampleTable.expectedName(2), rows.get(2L).name());
      }
    }
  }
}
