package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.internal.table.LineageFiles;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectInfo;
import io.quiver.store.TestStores;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * What lineage files save: a history of scattered updates and deletes, then a compaction, on a table with row ids;
 * the latest version's manifest bytes (version file and root, what every open and commit reads) with the default
 * threshold and with every lineage inline. {@code QUIVER_LINEAGE_ROWS=1000000} (environment) for the figures in
 * benchmarks/RESULTS.md; the default size keeps the test quick.
 */
class LineageFilesSizeTest {
  private static final int ROWS = Integer.parseInt(
      System.getenv().getOrDefault("QUIVER_LINEAGE_ROWS", System.getProperty("quiver.lineage.rows", "100000")));
  private static final int UPDATES = Integer.getInteger("quiver.lineage.updates", 20);

  /** {manifest bytes of the latest version, of the compaction's version, lineage file bytes}. */
  private static long[] history(String threshold) {
    MemoryObjectStore store = new MemoryObjectStore("memory://size-" + threshold);
    try (RootAllocator allocator = new RootAllocator()) {
      DatasetOptions options = DatasetOptions.builder().allocator(allocator)
          .registry(TestStores.registry("size", store)).maxRowsPerFragment(1 << 22).build();
      long compactedAt;
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, ROWS);
          Dataset ds = Dataset.create("size://t", SampleTable.SCHEMA, List.of(b), options,
              Map.of("row-ids", "true", LineageFiles.CONFIG_KEY, threshold))) {
        int spread = Math.max(1, ROWS / 1000);
        for (int u = 0; u < UPDATES; u++) {
          List<Long> ids = new ArrayList<>();
          for (long id = (u * 7L) % spread; id < ROWS; id += spread) {
            ids.add(id);
          }
          ds.update(Predicate.in("id", ids), Map.of("name", "u" + u)); // 1,000 spread rows per update
        }
        List<Long> gone = new ArrayList<>();
        for (long id = 3; id < ROWS; id += spread + 1) {
          gone.add(id);
        }
        ds.delete(Predicate.in("id", gone));
        ds.compact(CompactionOptions.defaults());
        compactedAt = ds.version();
        try (VectorSchemaRoot more = SampleTable.batch(allocator, ROWS, 10)) {
          ds.append(List.of(more)); // a commit after the compaction carries its fragments forward
        }
      }
      return new long[] {manifestBytes(store, compactedAt + 1), manifestBytes(store, compactedAt),
          store.listAll("_lineage/").stream().mapToLong(ObjectInfo::size).sum()};
    }
  }

  private static long manifestBytes(MemoryObjectStore store, long version) {
    long n = store.listAll("_versions/").stream()
        .filter(i -> i.key().endsWith(String.format("%019d.manifest", Long.MAX_VALUE - version)))
        .mapToLong(ObjectInfo::size).sum();
    return n + store.listAll("_manifests/").stream().filter(i -> i.key().startsWith("_manifests/" + version + "-"))
        .mapToLong(ObjectInfo::size).sum();
  }

  @Test
  void scatteredCompactionKeepsTheManifestSmallWithLineageFiles() {
    long[] spilled = history(String.valueOf(LineageFiles.DEFAULT_SPILL_BYTES));
    long[] inline = history("0");
    System.out.printf("lineage files, %d rows, %d updates: latest manifest %d B spilled vs %d B inline;"
        + " compaction's version %d B vs %d B; lineage files %d B%n", ROWS, UPDATES, spilled[0], inline[0],
        spilled[1], inline[1], spilled[2]);
    assertThat(inline[2]).isZero();
    assertThat(spilled[2]).isPositive();
    assertThat(spilled[0]).isLessThan(inline[0] / 4);
  }
}
