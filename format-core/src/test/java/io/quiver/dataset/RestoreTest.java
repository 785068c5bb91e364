package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static io.quiver.predicate.Predicate.lt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.IncompatibleTransactionException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.Operation;
import io.quiver.manifest.Fragment;
import io.quiver.scenario.CommitScenarios;
import io.quiver.scenario.ScenarioTable;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Restoring an old version, alone and racing other writers (catalogue B8). */
class RestoreTest {
  private static final String URI_ = DeleteTest.URI_;
  private RootAllocator allocator;
  private MemoryObjectStore store;
  private DatasetOptions options;
  private TableIo io;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(URI_);
    options = DeleteTest.options(store, allocator);
    io = new TableIo(store, new ObjectStoreCommitStore(store), new Session(1 << 20));
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private Dataset create() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 50)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  private long append(Dataset ds, long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return ds.append(List.of(b));
    }
  }

  private List<Long> latestIds(Dataset any) {
    try (Dataset latest = any.checkoutLatest()) {
      return scanIds(latest.newScan().open());
    }
  }

  @Test
  void aRestoredVersionScansExactlyAsTheOldVersionDid() {
    try (Dataset ds = create()) {
      ds.updateConfig(Map.of("owner", "ana"), Set.of()); // v2
      List<Long> v2Rows = scanIds(ds.newScan().open());
      append(ds, 50, 30); // v3
      ds.delete(lt("id", 10)); // v4
      ds.updateConfig(Map.of("owner", "bo", "extra", "1"), Set.of()); // v5
      assertThat(ds.restore(2)).isEqualTo(6);
      assertThat(ds.version()).isEqualTo(6);
      assertThat(scanIds(ds.newScan().open())).isEqualTo(v2Rows);
      assertThat(scanIds(ds.newScan().open())).as("rows deleted later are back").isEqualTo(range(0, 50));
      assertThat(ds.countRows()).isEqualTo(50);
      assertThat(ds.config()).isEqualTo(Map.of("owner", "ana"));
      try (Dataset v2 = ds.checkout(2)) {
        assertThat(v2.schema().sameStructure(ds.schema())).isTrue();
        assertThat(ds.manifest().fragments()).isEqualTo(v2.manifest().fragments());
      }
      Operation.Restore op = (Operation.Restore) io.load(6).transaction().operation();
      assertThat(op.version()).isEqualTo(2);
      assertThat(ds.versions().get(0).operation()).isEqualTo("restore");
      // Versions in between are still there.
      try (Dataset v4 = ds.checkout(4)) {
        assertThat(scanIds(v4.newScan().open())).isEqualTo(range(10, 80));
      }
    }
  }

  @Test
  void writesAfterARestoreNeverReuseAFragmentId() {
    try (Dataset ds = create()) {
      append(ds, 50, 10); // fragment 1
      ds.restore(1);
      append(ds, 100, 5);
      assertThat(ds.manifest().fragments().stream().map(Fragment::id).toList()).isEqualTo(List.of(0L, 1L, 3L));
      assertThat(scanIds(ds.newScan().open())).isEqualTo(concat(range(0, 50), range(100, 105)));
    }
  }

  @Test
  void restoringAVersionWithAnotherSchemaBringsThatSchemaBack() {
    try (Dataset ds = create()) {
      Schema other = new Schema(List.of(new Field("k", FieldType.notNullable(new ArrowType.Int(32, true)), null)));
      ds.overwrite(other, List.of()); // v2: another schema, no rows
      assertThat(ds.schema().fields().stream().map(f -> f.name()).toList()).isEqualTo(List.of("k"));
      ds.restore(1);
      assertThat(ds.schema().sameStructure(io.load(1).manifest().schema())).isTrue();
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(0, 50));
    }
  }

  @Test
  void aMissingVersionIsATypedErrorAndCommitsNothing() {
    try (Dataset ds = create()) {
      VersionNotFoundException e = assertThatExceptionOfType(VersionNotFoundException.class).isThrownBy(() -> ds.restore(7)).actual();
      assertThat(e.version()).isEqualTo(7);
      assertThat(e.getMessage()).contains("latest version is 1");
      assertThatExceptionOfType(VersionNotFoundException.class).isThrownBy(() -> ds.restore(0));
      assertThat(ds.latestVersion()).isEqualTo(1);
    }
  }

  @Test
  void b8_restoreAfterAConcurrentAppendIsRetryableAndLosesNothing() {
    // Restore racing an append in both orders (the scenario body is shared with conformance-tests).
    try (ScenarioTable t = ScenarioTable.on(new MemoryObjectStore(URI_), allocator)) {
      CommitScenarios.b8_restoreRacingAnAppendNeverSilentlyLosesAWrite(t);
    }
  }

  @Test
  void b8_deleteAfterAConcurrentRestoreIsIncompatibleAndRestoreAfterADeleteRetries() {
    try (Dataset a = create(); Dataset b = Dataset.open(URI_, options); Dataset c = Dataset.open(URI_, options)) {
      append(a, 50, 10); // v2
      assertThat(a.restore(1)).isEqualTo(3);
      assertThatExceptionOfType(IncompatibleTransactionException.class).isThrownBy(() -> b.delete(lt("id", 5)));
      assertThat(store.listAll("_deletions/")).isEmpty();
      // c (at v1) restoring while others committed: retryable, nothing discarded.
      assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> c.restore(1));
      assertThat(c.latestVersion()).isEqualTo(3);
    }
  }

  @Test
  void configUpdateAfterAConcurrentRestoreCollidesOnlyOnTheRestoredKeys() {
    try (Dataset a = create()) {
      a.updateConfig(Map.of("owner", "ana"), Set.of()); // v2
      try (Dataset b = Dataset.open(URI_, options); Dataset c = Dataset.open(URI_, options)) {
        assertThat(a.restore(2)).isEqualTo(3);
        assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> b.updateConfig(Map.of("owner", "bo"), Set.of()));
        assertThat(c.updateConfig(Map.of("ttl", "7d"), Set.of())).isEqualTo(4);
        assertThat(c.config()).isEqualTo(Map.of("owner", "ana", "ttl", "7d"));
      }
    }
  }

  @SafeVarargs
  private static List<Long> concat(List<Long>... lists) {
    List<Long> out = new ArrayList<>();
    for (List<Long> l : lists) {
      out.addAll(l);
    }
    return out;
  }
}
