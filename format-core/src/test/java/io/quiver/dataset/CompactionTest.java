package io.quiver.dataset;

import static io.quiver.dataset.OverlayTestSupport.expected;
import static io.quiver.dataset.OverlayTestSupport.scanRows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
      assertThat(scanned.size()).isEqualTo(28);
      assertThat(scanned.get(15L).name()).isEqualTo("newest");
      long oldAddressOf15 = OverlayTestSupport.addresses(ds).get(15L);

      CompactionResult result = ds.compact(CompactionOptions.defaults());
      assertThat(result).isEqualTo(new CompactionResult(before + 1, 3, 1, 28));
      assertThat(ds.version()).isEqualTo(before + 1);
      assertThat(scanRows(ds.newScan().open())).as("every value survives").isEqualTo(scanned);
      Fragment compacted = ds.manifest().fragments().get(0);
      assertThat(ds.manifest().fragments().size()).isEqualTo(1);
      assertThat(compacted.physicalRows()).isEqualTo(28);
      assertThat(compacted.deletionFile().isEmpty()).as("deletions materialised").isTrue();
      assertThat(compacted.overlays().isEmpty()).as("overlays materialised").isTrue();
      assertThat(List.of(0L, 1L, 2L).contains(compacted.id())).as("new fragment ids").isFalse();
      assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> ds.take(new long[]{oldAddressOf15}, List.of("name")).close());
      try (Dataset old = ds.checkout(before)) {
        assertThat(scanRows(old.newScan().open())).as("old versions still read the old files").isEqualTo(scanned);
        try (VectorSchemaRoot taken = old.take(new long[] {oldAddressOf15}, List.of("name"))) {
          assertThat(taken.getVector("name").getObject(0).toString()).isEqualTo("newest");
        }
      }
      assertThat(ds.compact(CompactionOptions.defaults())).as("nothing left to compact").isEqualTo(new CompactionResult(before + 1, 0, 0, 0));
      assertThat(ds.latestVersion()).isEqualTo(before + 1);
    }
  }

  @Test
  void targetSizeSplitsAndOptionsChooseWhatQualifies() {
    try (Dataset ds = threeSmallFragments()) {
      CompactionResult split = ds.compact(CompactionOptions.defaults().withTargetRowsPerFragment(12));
      assertThat(split).isEqualTo(new CompactionResult(4, 3, 3, 30));
      assertThat(ds.manifest().fragments().stream().map(Fragment::physicalRows).toList()).isEqualTo(List.of(12L, 12L, 6L));
      assertThat(OverlayTestSupport.sorted(scanRows(ds.newScan().open()).keySet())).isEqualTo(SampleTable.range(0, 30));

      // Fragments of at least 6 rows are large enough; only the one with a deletion qualifies, on its own.
      ds.delete(new long[] {RowAddress.of(ds.manifest().fragments().get(1).id(), 0)});
      CompactionOptions sizeOk = CompactionOptions.defaults().withTargetRowsPerFragment(12).withSmallFragmentRows(6);
      assertThat(ds.compact(sizeOk.withMaterializeDeletions(false))).isEqualTo(new CompactionResult(5, 0, 0, 0));
      assertThat(ds.compact(sizeOk)).isEqualTo(new CompactionResult(6, 1, 1, 11));
      Map<Long, Row> rows = scanRows(ds.newScan().open());
      assertThat(rows.size()).isEqualTo(29);
      for (Map.Entry<Long, Row> e : rows.entrySet()) {
        assertThat(e.getValue()).isEqualTo(expected(e.getKey()));
      }
    }
  }

  @Test
  void aDeleteCommittedAfterACompactionOfItsFragmentConflicts() {
    try (Dataset ds = threeSmallFragments(); Dataset stale = ds.checkout(3)) {
      ds.compact(CompactionOptions.defaults());
      assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> stale.delete(new long[]{RowAddress.of(1, 0)}));
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(latest.version()).isEqualTo(4);
        assertThat(scanRows(latest.newScan().open()).size()).isEqualTo(30);
      }
    }
  }

  @Test
  void aCompactionCommittedAfterADeleteOfItsFragmentConflictsAndResurrectsNothing() {
    try (Dataset ds = threeSmallFragments(); Dataset stale = ds.checkout(3)) {
      ds.delete(new long[] {RowAddress.of(1, 0)});
      assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> stale.compact(CompactionOptions.defaults()));
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(latest.version()).isEqualTo(4);
        Map<Long, Row> rows = scanRows(latest.newScan().open());
        assertThat(rows.size()).isEqualTo(29);
        assertThat(rows.containsKey(10L)).as("the deleted row stays deleted").isFalse();
        // Retrying from the latest version compacts with the deletion applied.
        assertThat(latest.compact(CompactionOptions.defaults())).isEqualTo(new CompactionResult(5, 3, 1, 29));
        assertThat(scanRows(latest.newScan().open()).containsKey(10L)).isFalse();
      }
    }
  }

  @Test
  void anUpdateCommittedAfterACompactionOfItsFragmentConflicts() {
    try (Dataset ds = threeSmallFragments(); Dataset stale = ds.checkout(3)) {
      ds.compact(CompactionOptions.defaults());
      assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> stale.update(new long[]{RowAddress.of(1, 0)}, Map.of("name", "lost")));
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(scanRows(latest.newScan().open()).get(10L).name()).isEqualTo(SampleTable.expectedName(10));
      }
    }
  }

  @Test
  void aCompactionCommittedAfterAnUpdateOfItsFragmentConflicts() {
    try (Dataset ds = threeSmallFragments(); Dataset stale = ds.checkout(3)) {
      ds.update(Predicate.eq("id", 10), Map.of("name", "kept"));
      assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> stale.compact(CompactionOptions.defaults()));
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(latest.version()).isEqualTo(4);
        assertThat(scanRows(latest.newScan().open()).get(10L).name()).isEqualTo("kept");
        latest.compact(CompactionOptions.defaults());
        assertThat(scanRows(latest.newScan().open()).get(10L).name()).isEqualTo("kept");
      }
    }
  }
}
