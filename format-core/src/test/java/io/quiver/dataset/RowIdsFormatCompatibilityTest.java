package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.manifest.Manifest;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.TestStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The format 1.4 table under {@code compat/rowids-1.4/} (written once, never regenerated): its row lineage at every
 * version is what its history says, its change feed replays between any two versions, and it takes commits on top.
 * A format 1.3 table (the indices fixture) gets row ids when it turns them on.
 */
class RowIdsFormatCompatibilityTest {
  private final RootAllocator allocator = new RootAllocator();

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private Dataset open(String fixture) {
    try {
      MemoryObjectStore store = TestStores.loadDirectory(new MemoryObjectStore("memory://compat-" + fixture + "/t"),
          Path.of(getClass().getResource("/compat/" + fixture + "/table").toURI()));
      return Dataset.open("memory://compat-" + fixture + "/t", ScanFixture.options(allocator).toBuilder()
          .registry(TestStores.registry("memory", TestStores.keepOpen(store))).build());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Each live row's lineage by its {@code id}: {row id, created at, last updated at}. */
  private static Map<Long, List<Long>> lineage(Dataset ds) {
    Map<Long, List<Long>> out = new TreeMap<>();
    try (ArrowReader r = ds.newScan().columns("id").withRowLineage(true).open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          out.put(((BigIntVector) root.getVector(0)).get(i), List.of(((UInt8Vector) root.getVector(1)).get(i),
              ((UInt8Vector) root.getVector(2)).get(i), ((UInt8Vector) root.getVector(3)).get(i)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** The lineage the fixture's history gives version {@code v}. */
  private static Map<Long, List<Long>> expected(long v) {
    Map<Long, List<Long>> m = new TreeMap<>();
    for (long id = v >= 3 ? 5 : 0; id < 30; id++) {
      m.put(id, List.of(id, 1L, 1L));
    }
    for (long id = 30; v >= 2 && id < 40; id++) {
      m.put(id, List.of(id, 2L, 2L));
    }
    if (v >= 4) {
      m.put(10L, List.of(10L, 1L, 4L));
      m.put(35L, List.of(35L, 2L, 4L));
    }
    if (v >= 5) {
      m.put(20L, List.of(20L, 1L, 5L));
      m.put(21L, List.of(21L, 1L, 5L));
      for (long k = 0; k < 3; k++) {
        if (!(v >= 7 && k == 1)) {
          m.put(100 + k, List.of(40 + k, 5L, 5L));
        }
      }
    }
    return m;
  }

  /** {@code lineage-files-1.4} is the same history with every changed fragment's lineage in a lineage file. */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"rowids-1.4", "lineage-files-1.4"})
  void readsItsLineageAtEveryVersionAndItsChangeFeedBetweenAnyTwo(String fixture) {
    try (Dataset ds = open(fixture)) {
      assertThat(ds.version()).isEqualTo(7);
      assertThat(ds.manifest().readerFeatures().contains(Manifest.LINEAGE_FILES_FEATURE))
          .isEqualTo(fixture.startsWith("lineage-files"));
      assertThat(ds.manifest().writerFeatures()).contains(Manifest.ROW_IDS_FEATURE);
      assertThat(ds.manifest().nextRowId()).hasValue(43);
      assertThat(ds.manifest().fragments()).hasSize(1);
      assertThat(ds.validate().isValid()).isTrue();
      for (long v = 1; v <= 7; v++) {
        try (Dataset at = ds.checkout(v)) {
          assertThat(lineage(at)).as("version %d", v).isEqualTo(expected(v));
        }
      }
      assertThat(ds.changes(1, 7).changeCounts()).containsExactly(Map.entry(2L, 10), Map.entry(3L, 5),
          Map.entry(4L, 4), Map.entry(5L, 7), Map.entry(6L, 0), Map.entry(7L, 1));
      try (VectorSchemaRoot rows = ds.takeByRowIds(new long[] {42, 10}, List.of("id", "name"))) {
        assertThat(((BigIntVector) rows.getVector("id")).get(0)).isEqualTo(102L);
        assertThat(rows.getVector("name").getObject(1).toString()).isEqualTo("upd");
      }
    }
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"rowids-1.4", "lineage-files-1.4"})
  void takesCommitsOnTopWithIdsAboveEveryAssignedOne(String fixture) {
    try (Dataset ds = open(fixture)) {
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 500, 2)) {
        ds.append(List.of(b));
      }
      ds.update(Predicate.eq("id", 6L), Map.of("name", "again"));
      Map<Long, List<Long>> l = lineage(ds);
      assertThat(l.get(500L)).isEqualTo(List.of(43L, 8L, 8L));
      assertThat(l.get(501L)).isEqualTo(List.of(44L, 8L, 8L));
      assertThat(l.get(6L)).isEqualTo(List.of(6L, 1L, 9L));
      assertThat(ds.changes(7, 9).changeCounts()).containsExactly(Map.entry(8L, 2), Map.entry(9L, 2));
    }
  }

  @Test
  void aFormat13TableTurnsRowIdsOnAndItsIndicesStillAnswer() {
    try (Dataset ds = open("indices-1.3")) {
      long rows = ds.countRows();
      long physical = ds.manifest().fragments().stream().mapToLong(io.quiver.manifest.Fragment::physicalRows).sum();
      long on = ds.updateConfig(Map.of("row-ids", "true"), Set.of());
      assertThat(ds.manifest().nextRowId()).as("deleted rows get an id too, never seen").hasValue(physical);
      Map<Long, List<Long>> l = lineage(ds);
      assertThat(l).hasSize((int) rows);
      assertThat(l.values()).allSatisfy(x -> assertThat(x.subList(1, 3)).containsExactly(on, on));
      assertThat(l.values().stream().map(x -> x.get(0)).distinct().count()).isEqualTo(rows);
      ds.update(Predicate.eq("id", 42L), Map.of("name", "changed"));
      assertThat(ds.changes(on, ds.version()).changeCounts()).containsExactly(Map.entry(on + 1, 2));
      ds.compact(CompactionOptions.defaults());
      assertThat(lineage(ds)).as("compaction keeps the assigned ids").containsAllEntriesOf(
          Map.of(42L, List.of(l.get(42L).get(0), on, on + 1)));
      for (Predicate p : ScalarIndexTest.FILTERS) {
        assertThat(ScanFixture.rowsByAddress(ds.newScan().filter(p).withRowAddress(true).useIndices(true).open()))
            .as(p.toString())
            .containsExactlyEntriesOf(
                ScanFixture.rowsByAddress(ds.newScan().filter(p).withRowAddress(true).useIndices(false).open()));
      }
    }
  }
}
