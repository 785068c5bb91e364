package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.IdempotenceKeyConflictException;
import io.quiver.manifest.CommitLedger;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.TestStores;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The format 1.0 table under {@code compat/format-1.0/table} (written by the released code; see the README
 * there) reads cell by cell, its keys are found, and a commit upgrades it to the ledger with the keys of its
 * history carried in.
 */
class Format10CompatibilityTest {
  private static final String URI_ = "memory://compat";

  private RootAllocator allocator;
  private MemoryObjectStore store;
  private DatasetOptions options;

  @BeforeEach
  void setUp() throws IOException, URISyntaxException {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(URI_);
    TestStores.loadDirectory(store, Path.of(getClass().getResource("/compat/format-1.0/table").toURI()));
    options = DatasetOptions.builder().allocator(allocator)
        .registry(TestStores.registry("memory", TestStores.keepOpen(store))).build();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** Row i as the fixture's generator wrote it, after v3 (delete id 3) and v4 (name of id 5 = 'five'). */
  private static List<Object> expected(long i) {
    String name = i == 5 ? "five" : i % 7 == 6 ? null : "n" + i;
    boolean sNull = i % 5 == 4;
    Integer x = sNull || i % 3 == 2 ? null : (int) (i * 10);
    String y = sNull ? null : "y" + i;
    return java.util.Arrays.asList(i, name, sNull, x, y);
  }

  private static List<List<Object>> read(Dataset ds) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    try (ArrowReader r = ds.newScan().open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        StructVector s = (StructVector) root.getVector("s");
        IntVector x = (IntVector) s.getChild("x");
        VarCharVector y = (VarCharVector) s.getChild("y");
        for (int i = 0; i < root.getRowCount(); i++) {
          boolean sNull = s.isNull(i);
          rows.add(java.util.Arrays.asList(id.get(i), name.isNull(i) ? null : new String(name.get(i)), sNull,
              sNull || x.isNull(i) ? null : x.get(i), sNull || y.isNull(i) ? null : new String(y.get(i))));
        }
      }
    }
    rows.sort(java.util.Comparator.comparingLong(r -> (Long) r.get(0)));
    return rows;
  }

  private static List<List<Object>> expectedRows(long to) {
    List<List<Object>> rows = new ArrayList<>();
    for (long i = 0; i < to; i++) {
      if (i != 3) {
        rows.add(expected(i));
      }
    }
    return rows;
  }

  @Test
  void aFormat10TableReadsCellByCellAndItsKeysAreFound() throws Exception {
    try (Dataset ds = Dataset.open(URI_, options)) {
      assertThat(ds.version()).isEqualTo(5);
      assertThat(ds.manifest().ledger().isEmpty()).as("format 1.0 manifests carry no ledger").isTrue();
      assertThat(read(ds)).isEqualTo(expectedRows(45));
      assertThat(ds.validate().isValid()).as(() -> ds.validate().toString()).isTrue();
      // Without a ledger, the history answers: every version is present, so absence is certain.
      assertThat(ds.distributed().findCommit("job-1/cp-1", 0).version()).isEqualTo(2);
      assertThat(ds.distributed().findCommit("job-2", 0).version()).isEqualTo(5);
      assertThat(ds.distributed().findCommit("job-3", 0).status()).isEqualTo(CommitLookup.Status.NOT_COMMITTED);
      try (Dataset v2 = ds.checkout(2)) {
        assertThat(v2.countRows()).isEqualTo(40);
      }
    }
  }

  /** Rows [from, to) of the fixture's schema, as its generator writes them. */
  private VectorSchemaRoot rows(Dataset ds, int from, int to) {
    VectorSchemaRoot root = VectorSchemaRoot.create(ds.schema().toArrow(), allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    StructVector s = (StructVector) root.getVector("s");
    IntVector x = (IntVector) s.getChild("x");
    VarCharVector y = (VarCharVector) s.getChild("y");
    int n = 0;
    for (int i = from; i < to; i++, n++) {
      id.setSafe(n, i);
      if (i % 7 == 6) {
        name.setNull(n);
      } else {
        name.setSafe(n, ("n" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      if (i % 5 == 4) {
        s.setNull(n);
        x.setNull(n);
        y.setNull(n);
        continue;
      }
      s.setIndexDefined(n);
      if (i % 3 == 2) {
        x.setNull(n);
      } else {
        x.setSafe(n, i * 10);
      }
      y.setSafe(n, ("y" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    root.setRowCount(n);
    return root;
  }

  @Test
  void theFirstCommitUpgradesTheTableAndSeedsTheLedgerFromItsHistory() throws Exception {
    try (Dataset ds = Dataset.open(URI_, options)) {
      // job-2 (v5) appended rows 40..44 with a plain keyed append; a 1.0 digest names its files, so the same
      // rows rewritten now are another digest: refused rather than committed twice.
      try (VectorSchemaRoot again = rows(ds, 40, 45)) {
        assertThatExceptionOfType(IdempotenceKeyConflictException.class).isThrownBy(() -> ds.append(List.of(again), CommitOptions.defaults().withIdempotenceKey("job-2")));
      }
      assertThat(ds.latestVersion()).isEqualTo(5);
      try (VectorSchemaRoot more = rows(ds, 45, 50)) {
        assertThat(ds.append(List.of(more), CommitOptions.defaults().withIdempotenceKey("job-3"))).isEqualTo(6);
      }
      CommitLedger ledger = ds.manifest().ledger().orElseThrow();
      assertThat(ds.manifest().writerFeatures()).contains(CommitLedger.WRITER_FEATURE);
      assertThat(ledger.completeFromVersion()).as("the whole history was present when the ledger was seeded").isEqualTo(1);
      assertThat(ledger.find("job-1/cp-1").orElseThrow().version()).isEqualTo(2);
      assertThat(ledger.find("job-2").orElseThrow().version()).isEqualTo(5);
      assertThat(ledger.find("job-3").orElseThrow().version()).isEqualTo(6);
      assertThat(ledger.lastReplaceVersion()).as("the creation (an overwrite at read version 0) is the last replacement").isEqualTo(1);
      List<List<Object>> expected = expectedRows(50);
      assertThat(read(ds.checkoutLatest())).isEqualTo(expected);
      // From now on the ledger answers, and a retry of job-3 with the same rows is recognised.
      try (Dataset restarted = Dataset.open(URI_, options); VectorSchemaRoot same = rows(restarted, 45, 50)) {
        assertThat(restarted.append(List.of(same), CommitOptions.defaults().withIdempotenceKey("job-3"))).isEqualTo(6);
        assertThat(restarted.latestVersion()).isEqualTo(6);
        assertThat(restarted.distributed().findCommit("job-1/cp-1", 0).version()).isEqualTo(2);
      }
      assertThat(ds.checkoutLatest().validate().isValid()).isTrue();
    }
  }
}
