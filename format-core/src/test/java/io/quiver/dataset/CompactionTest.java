package io.quiver.dataset;

import static io.quiver.dataset.OverlayTestSupport.expected;
import static io.quiver.dataset.OverlayTestSupport.scanRows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.dataset.OverlayTestSupport.Row;
import io.quiver.exceptions.NotFoundException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.manifest.Fragment;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Compaction: values survive, deletions and overlays are materialised, concurrent mutations conflict. */
class CompactionTest {
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

  /** Fragments of 10 rows: ids 0..9, 10..19, 20..29 (versions 1-3). */
  private Dataset threeSmallFragments() {
    Dataset ds = OverlayTestSupport.create(allocator, options, 0, 10);
    for (long from = 10; from < 30; from += 10) {
      try (VectorSchemaRoot b = SampleTable.batch(allocator, from, 10)) {
        ds.append(List.of(b));
      }
    }
    return ds;
  }

  @Test
  void compactionRoundTripsEveryValueAndMaterialisesDeletionsAndOverlays() {
    try (Dataset ds = threeSmallFragments()) {
      ds.delete(new long[] {RowAddress.of(0, 3), RowAddress.of(2, 9)});
      ds.update(Predicate.in("id", 4L, 15L, 25L), Map.of("name", "updated", "s.x", 9));
      ds.update(Predicate.eq("id", 15), Map.of("name", "newest"));
      long before = ds.version();
      Map<Long, Row> scanned = scanRows(ds.newScan().open());
      assertEquals(28, scanned.size());
      assertEquals("newest", scanned.get(15L).name());
      long oldAddressOf15 = OverlayTestSupport.addresses(ds).get(15L);

      CompactionResult result = ds.compact(CompactionOptions.defaults());
      assertEquals(new CompactionResult(before + 1, 3, 1, 28), result);
      assertEquals(before + 1, ds.version());
      assertEquals(scanned, scanRows(ds.newScan().open()), "every value survives");
      Fragment compacted = ds.manifest().fragments().get(0);
      assertEquals(1, ds.manifest().fragments().size());
      assertEquals(28, compacted.physicalRows());
      assertTrue(compacted.deletionFile().isEmpty(), "deletions materialised");
      assertTrue(compacted.overlays().isEmpty(), "overlays materialised");
      assertFalse(List.of(0L, 1L, 2L).contains(compacted.id()), "new fragment ids");
      assertThrows(NotFoundException.class, () -> ds.take(new long[] {oldAddressOf15}, List.of("name")).close());
      try (Dataset old = ds.checkout(before)) {
        assertEquals(scanned, scanRows(old.newScan().open()), "old versions still read the old files");
        try (VectorSchemaRoot taken = old.take(new long[] {oldAddressOf15}, List.of("name"))) {
          assertEquals("newest", taken.getVector("name").getObject(0).toString());
        }
      }
      assertEquals(new CompactionResult(before + 1, 0, 0, 0), ds.compact(CompactionOptions.defaults()), "nothing left to compact");
      assertEquals(before + 1, ds.latestVersion());
    }
  }

  @Test
  void targetSizeSplitsAndOptionsChooseWhatQualifies() {
    try (Dataset ds = threeSmallFragments()) {
      CompactionResult split = ds.compact(CompactionOptions.defaults().withTargetRowsPerFragment(12));
      assertEquals(new CompactionResult(4, 3, 3, 30), split);
      assertEquals(List.of(12L, 12L, 6L), ds.manifest().fragments().stream().map(Fragment::physicalRows).toList());
      assertEquals(SampleTable.range(0, 30), OverlayTestSupport.sorted(scanRows(ds.newScan().open()).keySet()));

      // Fragments of at least 6 rows are large enough; only the one with a deletion qualifies, on its own.
      ds.delete(new long[] {RowAddress.of(ds.manifest().fragments().get(1).id(), 0)});
      CompactionOptions sizeOk = CompactionOptions.defaults().withTargetRowsPerFragment(12).withSmallFragmentRows(6);
      assertEquals(new CompactionResult(5, 0, 0, 0), ds.compact(sizeOk.withMaterializeDeletions(false)));
      assertEquals(new CompactionResult(6, 1, 1, 11), ds.compact(sizeOk));
      Map<Long, Row> rows = scanRows(ds.newScan().open());
      assertEquals(29, rows.size());
      for (Map.Entry<Long, Row> e : rows.entrySet()) {
        assertEquals(expected(e.getKey()), e.getValue());
      }
    }
  }

  @Test
  void aDeleteCommittedAfterACompactionOfItsFragmentConflicts() {
    try (Dataset ds = threeSmallFragments(); Dataset stale = ds.checkout(3)) {
      ds.compact(CompactionOptions.defaults());
      assertThrows(RetryableConflictException.class, () -> stale.delete(new long[] {RowAddress.of(1, 0)}));
      try (Dataset latest = ds.checkoutLatest()) {
        assertEquals(4, latest.version());
        assertEquals(30, scanRows(latest.newScan().open()).size());
      }
    }
  }

  @Test
  void aCompactionCommittedAfterADeleteOfItsFragmentConflictsAndResurrectsNothing() {
    try (Dataset ds = threeSmallFragments(); Dataset stale = ds.checkout(3)) {
      ds.delete(new long[] {RowAddress.of(1, 0)});
      assertThrows(RetryableConflictException.class, () -> stale.compact(CompactionOptions.defaults()));
      try (Dataset latest = ds.checkoutLatest()) {
        assertEquals(4, latest.version());
        Map<Long, Row> rows = scanRows(latest.newScan().open());
        assertEquals(29, rows.size());
        assertFalse(rows.containsKey(10L), "the deleted row stays deleted");
        // Retrying from the latest version compacts with the deletion applied.
        assertEquals(new CompactionResult(5, 3, 1, 29), latest.compact(CompactionOptions.defaults()));
        assertFalse(scanRows(latest.newScan().open()).containsKey(10L));
      }
    }
  }

  @Test
  void anUpdateCommittedAfterACompactionOfItsFragmentConflicts() {
    try (Dataset ds = threeSmallFragments(); Dataset stale = ds.checkout(3)) {
      ds.compact(CompactionOptions.defaults());
      assertThrows(RetryableConflictException.class,
          () -> stale.update(new long[] {RowAddress.of(1, 0)}, Map.of("name", "lost")));
      try (Dataset latest = ds.checkoutLatest()) {
        assertEquals(SampleTable.expectedName(10), scanRows(latest.newScan().open()).get(10L).name());
      }
    }
  }

  @Test
  void aCompactionCommittedAfterAnUpdateOfItsFragmentConflicts() {
    try (Dataset ds = threeSmallFragments(); Dataset stale = ds.checkout(3)) {
      ds.update(Predicate.eq("id", 10), Map.of("name", "kept"));
      assertThrows(RetryableConflictException.class, () -> stale.compact(CompactionOptions.defaults()));
      try (Dataset latest = ds.checkoutLatest()) {
        assertEquals(4, latest.version());
        assertEquals("kept", scanRows(latest.newScan().open()).get(10L).name());
        latest.compact(CompactionOptions.defaults());
        assertEquals("kept", scanRows(latest.newScan().open()).get(10L).name());
      }
    }
  }
}
