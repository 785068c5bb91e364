package io.quiver.dataset;

import static io.quiver.dataset.OverlayTestSupport.expected;
import static io.quiver.dataset.OverlayTestSupport.rows;
import static io.quiver.dataset.OverlayTestSupport.scanRows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
      assertThat(result).as("duplicate addresses count once").isEqualTo(new UpdateResult(3, 3));
      assertThat(ds.version()).isEqualTo(3);
      // One overlay per touched fragment, holding only the updated fields, shared coverage.
      for (Fragment f : ds.manifest().fragments()) {
        assertThat(f.overlays().size()).isEqualTo(1);
        Overlay o = f.overlays().get(0);
        assertThat(o.dataFile().fieldIds()).isEqualTo(List.of(2, 4));
        assertThat(o.committedVersion()).isEqualTo(3);
        assertThat(o.coverage()).isInstanceOf(Coverage.Shared.class);
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
      assertThat(scanRows(ds.newScan().open())).isEqualTo(want);
      assertThat(scanRows(ds.newScan().batchSize(3).open())).isEqualTo(want);
      try (VectorSchemaRoot taken = ds.take(new long[] {RowAddress.of(1, 2), 5, 3, 4}, List.of())) {
        Map<Long, Row> got = rows(taken);
        for (long id : new long[] {42, 5, 3, 4}) {
          assertThat(got.get(id)).as("row " + id).isEqualTo(want.get(id));
        }
      }
      try (Dataset before = ds.checkout(2)) {
        assertThat(scanRows(before.newScan().open()).get(3L)).as("older versions keep base values").isEqualTo(expected(3));
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
      assertThat(ds.version()).isEqualTo(5);
      Map<Long, Row> rows = scanRows(ds.newScan().open());
      assertThat(rows.get(1L)).isEqualTo(new Row("first", false, SampleTable.expectedX(1), "why", null));
      assertThat(rows.get(2L).name()).isNull();
      assertThat(rows.get(2L).x()).isEqualTo(expected(2).x());
    }
  }

  @Test
  void invalidUpdatesAreTypedErrorsAndCommitNothing() {
    try (Dataset ds = twoFragments()) {
      Map<String, Object> nullId = new HashMap<>();
      nullId.put("id", null);
      assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(() -> ds.update(new long[]{1}, nullId));
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.update(new long[]{1}, values("s.x", "seven")));
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.update(new long[]{1}, values("s.x", 1L << 40)));
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.update(new long[]{1}, values("s.x", 2.5)));
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.update(new long[]{1}, values("nope", 1)));
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.update(new long[]{1}, values("s", 1)));
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.update(new long[]{1}, values("tags.item", 1)));
      assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> ds.update(new long[]{RowAddress.of(7, 0)}, values("name", "x")));
      assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> ds.update(new long[]{40}, values("name", "x")));
      assertThat(ds.version()).isEqualTo(2);
      assertThat(ds.latestVersion()).isEqualTo(2);
      assertThat(ds.update(new long[0], values("name", "x"))).as("nothing to update").isEqualTo(new UpdateResult(2, 0));
      assertThat(ds.latestVersion()).isEqualTo(2);
      // A value of the column's type, converted exactly: Integer into int64.
      assertThat(ds.update(new long[]{0}, values("id", 1000)).version()).isEqualTo(3);
      try (VectorSchemaRoot taken = ds.take(new long[] {0}, List.of("id"))) {
        assertThat(((org.apache.arrow.vector.BigIntVector) taken.getVector("id")).get(0)).isEqualTo(1000L);
      }
    }
  }

  @Test
  void updatesOfDeletedRowsAreNotFound() {
    try (Dataset ds = twoFragments()) {
      OverlayTestSupport.delete(store, ds.manifest(), 0, 6);
      try (Dataset latest = ds.checkoutLatest()) {
        assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> latest.update(new long[]{5, 6}, values("name", "x")));
        assertThat(latest.latestVersion()).isEqualTo(3);
      }
    }
  }

  @Test
  void concurrentUpdatesOfDifferentFragmentsOrFieldsBothLand() {
    try (Dataset ds = twoFragments()) {
      try (Dataset a = ds.checkout(2); Dataset b = ds.checkout(2)) {
        assertThat(a.update(new long[]{1}, values("name", "a")).version()).isEqualTo(3);
        assertThat(b.update(new long[]{RowAddress.of(1, 1)}, values("name", "b")).version()).isEqualTo(4);
      }
      try (Dataset a = ds.checkout(4); Dataset b = ds.checkout(4)) {
        assertThat(a.update(new long[]{1}, values("name", "a2")).version()).isEqualTo(5);
        assertThat(b.update(new long[]{1}, values("s.x", -1)).version()).isEqualTo(6);
      }
      try (Dataset latest = ds.checkoutLatest()) {
        Map<Long, Row> rows = scanRows(latest.newScan().open());
        assertThat(rows.get(1L).name()).isEqualTo("a2");
        assertThat(rows.get(1L).x()).isEqualTo(-1);
        assertThat(rows.get(41L).name()).isEqualTo("b");
      }
    }
  }

  @Test
  void concurrentUpdatesOfTheSameFieldInOneFragmentConflict() {
    try (Dataset ds = twoFragments()) {
      try (Dataset a = ds.checkout(2); Dataset b = ds.checkout(2)) {
        assertThat(a.update(new long[]{1}, values("name", "a")).version()).isEqualTo(3);
        int filesBefore = store.listAll("data/").size();
        assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> b.update(new long[]{2}, values("name", "b")));
        assertThat(store.listAll("data/").size()).as("the loser's overlay file is deleted").isEqualTo(filesBefore);
        assertThat(b.version()).isEqualTo(2);
      }
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(latest.version()).isEqualTo(3);
        Map<Long, Row> rows = scanRows(latest.newScan().open());
        assertThat(rows.get(1L).name()).isEqualTo("a");
        assertThat(rows.get(2L).name()).isEqualTo(SampleTable.expectedName(2));
      }
    }
  }
}
