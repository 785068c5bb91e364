package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.manifest.ScalarIndex;
import io.quiver.predicate.Predicate;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Lookups by key are scans filtered by {@code key = v} or {@code key IN (...)} (docs/scan-planning.md, "Key
 * lookups"): with a scalar index on the key the scan reads only the rows the index selects in the fragments it
 * covers, and its metrics say so. Same rows as without the index; fewer data files read.
 */
class KeyLookupTest {
  private RootAllocator allocator;
  private Dataset table;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    table = ScanFixture.create(ScanFixture.newUri(), allocator, ScanFixture.options(allocator));
  }

  @AfterEach
  void tearDown() {
    table.close();
    allocator.close(); // fails on a leak
  }

  private Map<Long, String> lookup(Predicate filter, boolean indices, ScanMetrics metrics) {
    return ScanFixture.rowsByAddress(table.newScan().filter(filter).withRowAddress(true).useIndices(indices)
        .metrics(metrics).open());
  }

  @Test
  void aPointLookupIsAnsweredByTheIndex() {
    // Fragments are id ranges, so the statistics already narrow a point lookup to one fragment; an index on
    // name (unclustered) is what narrows a lookup by name.
    table.indices().create("by_name", ScalarIndex.Kind.BITMAP, "name");
    for (Predicate filter : List.of(Predicate.eq("name", "name-130"), Predicate.in("name", "name-1", "name-130",
        "name-171", "missing"), Predicate.eq("name", "upd"))) {
      ScanMetrics with = new ScanMetrics();
      ScanMetrics without = new ScanMetrics();
      Map<Long, String> expected = lookup(filter, false, without);
      assertThat(lookup(filter, true, with)).as(filter.toString()).containsExactlyEntriesOf(expected);
      assertThat(expected).as(filter.toString()).isNotEmpty();
      assertThat(with.fragmentsAnsweredByIndex()).as(filter.toString()).isPositive();
      assertThat(with.fragmentsScannedWithoutIndex()).isZero();
      assertThat(without.fragmentsAnsweredByIndex()).isZero();
      // (Bytes are no measure on a table this small: the index's footer and page outweigh the rows skipped.)
      assertThat(with.dataFilesOpened()).as(filter + ": data files with the index")
          .isLessThanOrEqualTo(without.dataFilesOpened());
    }
    ScanMetrics one = new ScanMetrics();
    assertThat(lookup(Predicate.eq("name", "name-130"), true, one)).hasSize(1);
    assertThat(one.dataFilesOpened()).as("only the fragment holding the key").isEqualTo(1);
    ScanMetrics scanned = new ScanMetrics();
    lookup(Predicate.eq("name", "name-130"), false, scanned);
    assertThat(scanned.dataFilesOpened()).as("without the index: the fragments the statistics do not prune")
        .isGreaterThan(1);
    assertThat(one.rowsReturned()).isEqualTo(1);
  }

  @Test
  void aLookupAfterAnUpdateOfTheKeyIsNotAnsweredFromTheOldState() {
    table.indices().create("by_name", ScalarIndex.Kind.BITMAP, "name");
    table.update(Predicate.eq("id", 130L), Map.of("name", "renamed"));
    ScanMetrics metrics = new ScanMetrics();
    assertThat(lookup(Predicate.eq("name", "renamed"), true, metrics)).hasSize(1);
    assertThat(lookup(Predicate.eq("name", "name-130"), true, new ScanMetrics())).isEmpty();
    // the updated fragment is answered by the index with its overlay cells checked (format.md §13.1)
    assertThat(metrics.fragmentsScannedWithoutIndex()).isZero();
    assertThat(metrics.fragmentsAnsweredByIndex()).as("fragment 0 and the updated one; the others' name bounds end"
        + " before 'renamed'").isEqualTo(2);
  }
}
