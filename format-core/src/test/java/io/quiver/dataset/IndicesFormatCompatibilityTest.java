package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.manifest.ScalarIndex;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.TestStores;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The format 1.3 tables under {@code compat/indices-1.3/} (btree pages {@code QVXP}, as the first 1.3 builds wrote
 * them) and {@code compat/indices-compact-1.3/} (the same history with compact {@code QVXC} btree pages), written once
 * and never regenerated: their indices list, answer filters as unindexed scans do at every version, and the tables
 * take commits (data and index) on top.
 */
class IndicesFormatCompatibilityTest {
  private final RootAllocator allocator = new RootAllocator();

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private Dataset open(String fixture) {
    try {
      MemoryObjectStore store = TestStores.loadDirectory(new MemoryObjectStore("memory://compat-indices/t"),
          Path.of(getClass().getResource("/compat/" + fixture + "/table").toURI()));
      return Dataset.open("memory://compat-indices/t", ScanFixture.options(allocator).toBuilder()
          .registry(TestStores.registry("memory", TestStores.keepOpen(store))).build());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<Long, String> scan(Dataset ds, Predicate p, boolean indices, ScanMetrics m) {
    return ScanFixture.rowsByAddress(ds.newScan().filter(p).withRowAddress(true).useIndices(indices).metrics(m).open());
  }

  private static List<Long> ids(Dataset ds, Predicate p) {
    List<Long> out = new java.util.ArrayList<>();
    try (org.apache.arrow.vector.ipc.ArrowReader r = ds.newScan().filter(p).columns("id").open()) {
      while (r.loadNextBatch()) {
        org.apache.arrow.vector.BigIntVector id = (org.apache.arrow.vector.BigIntVector) r.getVectorSchemaRoot().getVector("id");
        for (int i = 0; i < id.getValueCount(); i++) {
          out.add(id.get(i));
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(strings = {"indices-1.3", "indices-compact-1.3"})
  void readsItsIndicesAtEveryVersionAndAnswersAsAScan(String fixture) {
    try (Dataset ds = open(fixture)) {
      assertThat(ds.version()).isEqualTo(12);
      assertThat(ds.manifest().writerFeatures()).contains("scalar-indices");
      assertThat(ds.indices().list()).extracting(ScalarIndex::name).containsExactly("by_id", "by_name", "by_x");
      assertThat(ds.indices().get("by_id").orElseThrow().segments()).hasSize(2);
      assertThat(ds.indices().get("by_name").orElseThrow().kind()).isEqualTo(ScalarIndex.Kind.BITMAP);
      assertThat(ds.indices().coverage("by_id").uncoveredFragments()).isZero();
      assertThat(ds.indices().coverage("by_name").uncoveredFragments()).isEqualTo(1);
      assertThat(ds.validate().isValid()).isTrue();
      for (long v = 1; v <= 12; v++) {
        try (Dataset at = ds.checkout(v)) {
          assertThat(at.indices().list()).hasSize(v < 8 ? 0 : v == 8 ? 1 : v == 9 ? 2 : 3);
          for (Predicate p : ScalarIndexTest.FILTERS) {
            assertThat(scan(at, p, true, new ScanMetrics())).as(p + " at version " + v)
                .containsExactlyEntriesOf(scan(at, p, false, new ScanMetrics()));
          }
        }
      }
      ScanMetrics m = new ScanMetrics();
      assertThat(scan(ds, Predicate.eq("id", 210L), true, m)).hasSize(1);
      assertThat(m.fragmentsAnsweredByIndex()).isPositive();
      assertThat(ids(ds, Predicate.eq("name", "upd"))).containsExactlyInAnyOrderElementsOf(
          List.of(10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L, 155L, 156L, 157L));
      assertThat(ids(ds, Predicate.eq("s.x", 999))).containsExactlyInAnyOrder(100L, 101L, 102L, 103L);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"indices-1.3", "indices-compact-1.3"})
  void takesDataAndIndexCommitsOnTop(String fixture) {
    try (Dataset ds = open(fixture)) {
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 500, 10)) {
        ds.append(List.of(b));
      }
      ds.update(Predicate.eq("id", 42L), Map.of("name", "changed"));
      assertThat(ids(ds, Predicate.eq("name", "changed"))).containsExactly(42L);
      ds.indices().optimize("by_name");
      assertThat(ds.indices().coverage("by_name").uncoveredFragments()).isZero();
      assertThat(ids(ds, Predicate.eq("name", "changed"))).containsExactly(42L);
      assertThat(ids(ds, Predicate.eq("name", "name-505"))).containsExactly(505L);
      ds.compact(CompactionOptions.defaults());
      for (Predicate p : ScalarIndexTest.FILTERS) {
        assertThat(scan(ds, p, true, new ScanMetrics())).as(p.toString())
            .containsExactlyEntriesOf(scan(ds, p, false, new ScanMetrics()));
      }
    }
  }

  /** Each fixture keeps covering the page encoding it was written for: QVXP btree pages, or QVXC ones. */
  @ParameterizedTest
  @ValueSource(strings = {"indices-1.3", "indices-compact-1.3"})
  void btreeSegmentsHoldThePageEncodingOfTheirBuild(String fixture) throws Exception {
    Path table = Path.of(getClass().getResource("/compat/" + fixture + "/table").toURI());
    try (Dataset ds = open(fixture)) {
      for (ScalarIndex index : ds.indices().list()) {
        for (io.quiver.manifest.IndexSegment segment : index.segments()) {
          byte[] bytes = Files.readAllBytes(table.resolve(segment.path()));
          String magic = new String(bytes, 0, 4, StandardCharsets.US_ASCII);
          assertThat(magic).as(index.name() + " " + segment.path()).isEqualTo(
              index.kind() == ScalarIndex.Kind.BTREE && fixture.equals("indices-compact-1.3") ? "QVXC" : "QVXP");
        }
      }
    }
  }
}
