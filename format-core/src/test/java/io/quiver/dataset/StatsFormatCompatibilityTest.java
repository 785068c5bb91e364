package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.internal.read.FragmentBounds;
import io.quiver.manifest.FieldBounds;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.StatValue;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.TestStores;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The table with statistics under {@code compat/stats-1.1/} (written once, never regenerated) keeps its
 * statistics readable and prunes by them; the older fixtures, which have none, scan with filters exactly as
 * before (nothing pruned). Expected rows come from the fixtures' README formulas.
 */
class StatsFormatCompatibilityTest {
  private final RootAllocator allocator = new RootAllocator();

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private Dataset open(String uri, String resource) {
    try {
      MemoryObjectStore store = TestStores.loadDirectory(new MemoryObjectStore(uri),
          Path.of(getClass().getResource(resource).toURI()));
      return Dataset.open(uri, DatasetOptions.builder().allocator(allocator).session(new Session(4 << 20))
          .registry(TestStores.registry("memory", TestStores.keepOpen(store))).build());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static TreeSet<Long> ids(ArrowReader reader) throws IOException {
    TreeSet<Long> out = new TreeSet<>();
    try (reader) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        for (int i = 0; i < root.getRowCount(); i++) {
          out.add(id.get(i));
        }
      }
    }
    return out;
  }

  private static TreeSet<Long> evaluated(Dataset ds, Predicate p) throws IOException {
    TreeSet<Long> out = new TreeSet<>();
    try (ArrowReader r = ds.newScan().open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        p.evaluate(root).stream().forEach(i -> out.add(id.get(i)));
      }
    }
    return out;
  }

  @Test
  void theStatisticsTableReadsItsBoundsAndPrunesByThem() throws IOException {
    try (Dataset ds = open("memory://quiver-compat-stats/table", "/compat/stats-1.1/table")) {
      assertThat(ds.version()).isEqualTo(4);
      List<Fragment> fragments = ds.manifest().fragments();
      assertThat(fragments).hasSize(4);
      int id = ds.schema().findField("id").orElseThrow().id();
      int val = ds.schema().findField("val").orElseThrow().id();
      FieldBounds ids0 = FragmentBounds.of(fragments.get(0), ds.manifest().schema(), id);
      assertThat(ids0.tight()).isTrue();
      assertThat(ids0.lower()).contains(new StatValue.Int(0));
      assertThat(ids0.upper()).contains(new StatValue.Int(39));
      FieldBounds val1 = FragmentBounds.of(fragments.get(1), ds.manifest().schema(), val);
      assertThat(val1.tight()).as("widened by the overlay of id 65").isFalse();
      assertThat(val1.upper()).contains(new StatValue.Int(1000));

      ScanMetrics m = new ScanMetrics();
      TreeSet<Long> got = ids(ds.newScan().filter(Predicate.ge("id", 135L)).metrics(m).open());
      assertThat(got).containsExactlyElementsOf(range(135, 160));
      assertThat(m.fragmentsPruned()).isEqualTo(3);
      assertThat(m.batchesPruned()).as("the batch of ids 120..129").isEqualTo(1);

      List<Predicate> filters = List.of(Predicate.eq("val", 1000), Predicate.gt("f", 70.0), Predicate.eq("f", Double.NaN),
          Predicate.lt("s.x", 0), Predicate.isNull("name"), Predicate.not(Predicate.le("id", 150L)),
          Predicate.in("name", "name-1005", "name-1155"), Predicate.eq("s.y", "y3"));
      for (Predicate p : filters) {
        assertThat(ids(ds.newScan().filter(p).open())).as(p.toString()).isEqualTo(evaluated(ds, p));
      }
      assertThat(ids(ds.newScan().filter(Predicate.eq("val", 1000)).open())).containsExactly(5L, 65L);
      assertThat(ids(ds.newScan().filter(Predicate.lt("s.x", 0)).open())).containsExactly(5L, 65L);
    }
  }

  @Test
  void olderFixturesHaveNoStatisticsAndScanWithFiltersAsBefore() throws IOException {
    try (Dataset ds = open("memory://quiver-compat-compressed/table", "/compat/compressed-1.1/table")) {
      for (Predicate p : List.of(Predicate.gt("val", 5), Predicate.eq("name", "name-3"), Predicate.isNull("s.x"),
          Predicate.not(Predicate.ge("id", 50L)), Predicate.in("id", 5L, 65L, 99L))) {
        ScanMetrics m = new ScanMetrics();
        assertThat(ids(ds.newScan().filter(p).metrics(m).open())).as(p.toString()).isEqualTo(evaluated(ds, p));
        assertThat(m.batchesPruned()).isZero();
        assertThat(ds.newScan().filter(p).planTasks()).hasSize(
            (int) ds.manifest().fragments().stream().filter(f -> f.liveRows() > 0).count());
      }
    }
  }

  private static List<Long> range(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      if (i != 7 && i != 70) {
        out.add(i);
      }
    }
    return out;
  }
}
