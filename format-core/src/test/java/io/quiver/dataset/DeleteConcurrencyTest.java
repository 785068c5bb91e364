package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static io.quiver.predicate.Predicate.and;
import static io.quiver.predicate.Predicate.eq;
import static io.quiver.predicate.Predicate.ge;
import static io.quiver.predicate.Predicate.gt;
import static io.quiver.predicate.Predicate.lt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.IncompatibleTransactionException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.internal.read.Deletions;
import io.quiver.internal.table.CommitLoop;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.Transaction;
import io.quiver.manifest.Coverage;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import io.quiver.scenario.CommitScenarios;
import io.quiver.scenario.ScenarioTable;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.buffer.MutableRoaringBitmap;

/**
 * Deletes racing other commits (catalogue B5, B6 and the delete rows of the conflict matrix): handles
 * opened at the same version, committed one after the other by the test.
 */
class DeleteConcurrencyTest {
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

  /** ids 0..99 in fragments 0 [0, 40), 1 [40, 80), 2 [80, 100). */
  private Dataset create() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 100)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  private Dataset open() {
    return Dataset.open(URI_, options);
  }

  private static List<Long> without(long from, long to, List<Long> ids) {
    return ids.stream().filter(id -> id < from || id >= to).toList();
  }

  private List<Long> latestIds(Dataset any) {
    try (Dataset latest = any.checkoutLatest()) {
      return scanIds(latest.newScan().open());
    }
  }

  private RoaringBitmap deletedIn(Manifest m, long fragmentId) {
    Fragment f = m.fragments().stream().filter(x -> x.id() == fragmentId).findFirst().orElseThrow();
    return Deletions.of(io, f);
  }

  /** Commits a hand-built transaction read at {@code readVersion} (for operations Dataset does not offer yet). */
  private Manifest commitByHand(long readVersion, Operation op) {
    Transaction txn = new Transaction(UUID.randomUUID().toString(), readVersion, op, java.util.Map.of());
    return new CommitLoop(io, CommitOptions.defaults(), Clock.systemUTC())
        .commit(txn, Optional.of(io.load(readVersion).manifest()));
  }

  /** An update writing field {@code fieldId} of the first rows of a fragment (its file is never read here). */
  private static Operation.Update updateOf(long fragmentId, int fieldId) {
    MutableRoaringBitmap covered = MutableRoaringBitmap.bitmapOf(0, 1, 2);
    Overlay overlay = new Overlay(
        DataFile.of("data/overlay-" + UUID.randomUUID() + ".arrow", List.of(fieldId), 100), new Coverage.Shared(covered), 0);
    return new Operation.Update(
        List.of(new Operation.FragmentOverlays(fragmentId, List.of(overlay))), Set.of(fieldId));
  }

  /** Compaction of one fragment into a new one holding the same rows (the same data file). */
  private Operation.Rewrite compactionOf(Manifest m, long fragmentId) {
    Fragment f = m.fragments().stream().filter(x -> x.id() == fragmentId).findFirst().orElseThrow();
    return new Operation.Rewrite(List.of(new Operation.RewriteGroup(
        List.of(fragmentId), List.of(Fragment.of(0, f.files(), f.physicalRows())))));
  }

  // ------------------------------------------------------------------ B5, B6: delete vs delete

  @Test
  void b5_deletesOfDisjointRowsInOneFragmentAreBothKept() {
    try (ScenarioTable t = ScenarioTable.on(store, allocator)) {
      CommitScenarios.b5_deletesOfDisjointRowsInOneFragmentAreBothKept(t);
      // The rebased entry names a's file as its previous one, and fragment 0 holds both deletions.
      Manifest v2 = io.load(2).manifest();
      Manifest v3 = io.load(3).manifest();
      assertThat(deletedIn(v3, 0)).isEqualTo(RoaringBitmap.bitmapOf(0, 1, 2, 3, 4, 30, 31, 32, 33, 34));
      Operation.Delete d = (Operation.Delete) io.load(3).transaction().operation();
      assertThat(d.deletions().get(0).previous()).isEqualTo(v2.fragments().get(0).deletionFile());
      assertThat(d.deletions().get(0).added().toRoaringBitmap()).isEqualTo(RoaringBitmap.bitmapOf(30, 31, 32, 33, 34));
    }
  }

  @Test
  void b6_deletesOfTheSameRowsNeverResurrectARow() {
    try (ScenarioTable t = ScenarioTable.on(store, allocator)) {
      CommitScenarios.b6_deletesOfTheSameRowsNeverResurrectARow(t);
    }
  }

  @Test
  void b6_deletesOfExactlyTheSameRowsMergeToNoChange() {
    try (Dataset a = create(); Dataset b = open()) {
      a.delete(lt("id", 10));
      DeleteResult r = b.delete(lt("id", 10));
      assertThat(r.version()).isEqualTo(3);
      assertThat(r.deletedRows()).isEqualTo(0);
      assertThat(scanIds(b.newScan().open())).isEqualTo(range(10, 100));
    }
  }

  @Test
  void b6_threeWayDeletesOfOverlappingRowsNeverResurrectARow() throws Exception {
    try (Dataset a = create(); Dataset b = open(); Dataset c = open()) {
      java.util.Map<Long, Long> addressOf = DeleteTest.addresses(c);
      long[] first20 = LongStream.range(0, 20).map(addressOf::get).toArray();
      assertThat(a.delete(lt("id", 10))).isEqualTo(new DeleteResult(2, 10));
      assertThat(b.delete(and(ge("id", 5), lt("id", 15)))).isEqualTo(new DeleteResult(3, 5));
      // c read version 1 and rebases over both: only ids 15..19 are new.
      assertThat(c.delete(first20)).isEqualTo(new DeleteResult(4, 5));
      assertThat(scanIds(c.newScan().open())).isEqualTo(range(20, 100));
      // Every intermediate version reads as it was committed.
      try (Dataset v3 = c.checkout(3)) {
        assertThat(scanIds(v3.newScan().open())).isEqualTo(range(15, 100));
      }
    }
  }

  @Test
  void b6_deleteAfterAConcurrentDeleteOfTheWholeFragmentCommitsNoRowTwice() {
    try (Dataset a = create(); Dataset b = open()) {
      a.delete(lt("id", 40)); // fragment 0 leaves the manifest
      DeleteResult r = b.delete(and(ge("id", 5), lt("id", 15)));
      assertThat(r).isEqualTo(new DeleteResult(3, 0));
      assertThat(scanIds(b.newScan().open())).isEqualTo(range(40, 100));
      assertThat(b.manifest().fragments().stream().map(Fragment::id).toList()).isEqualTo(List.of(1L, 2L));
    }
  }

  @Test
  void deletesOfDifferentFragmentsNeedNoRebase() {
    try (Dataset a = create(); Dataset b = open()) {
      a.delete(lt("id", 5));
      Fragment aFragment0 = a.manifest().fragments().get(0);
      assertThat(b.delete(ge("id", 95))).isEqualTo(new DeleteResult(3, 5));
      assertThat(b.manifest().fragments().get(0)).as("b left a's deletion file alone").isEqualTo(aFragment0);
      assertThat(scanIds(b.newScan().open())).isEqualTo(without(0, 5, range(0, 95)));
    }
  }

  // ------------------------------------------------------------------ delete vs other writes

  @Test
  void rowsAppendedAfterTheDeleteReadItsVersionAreKept() {
    try (Dataset a = create(); Dataset b = open()) {
      try (VectorSchemaRoot again = SampleTable.batch(allocator, 0, 5)) {
        a.append(List.of(again)); // ids 0..4 once more, as version 2
      }
      assertThat(b.delete(lt("id", 5))).as("b saw version 1 only").isEqualTo(new DeleteResult(3, 5));
      List<Long> ids = scanIds(b.newScan().open());
      assertThat(ids.size()).isEqualTo(100);
      assertThat(ids).containsAll(range(0, 5));
    }
  }

  @Test
  void deleteAfterAConcurrentUpdateOfAColumnItReadIsRetryable() {
    try (Dataset a = create(); Dataset b = open()) {
      commitByHand(1, updateOf(0, 4)); // version 2 writes s.x (field 4) in fragment 0
      RetryableConflictException e =
          assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> b.delete(gt("s.x", 10))).actual();
      assertThat(e.getMessage()).contains("update committed as version 2");
      assertThat(b.version()).isEqualTo(1);
      assertThat(a.latestVersion()).isEqualTo(2);
      assertThat(store.listAll("_deletions/")).as("the failed delete's files were removed").isEmpty();
    }
  }

  @Test
  void deleteAfterAConcurrentUpdateOfAnotherColumnOrFragmentLands() throws Exception {
    try (Dataset a = create(); Dataset b = open(); Dataset c = open()) {
      long address = DeleteTest.addresses(c).get(1L);
      commitByHand(1, updateOf(0, 4)); // s.x in fragment 0
      commitByHand(2, updateOf(2, 2)); // name in fragment 2
      assertThat(b.delete(eq("name", "name-5"))).as("reads name; fragment 0 only").isEqualTo(new DeleteResult(4, 1));
      assertThat(c.delete(new long[]{address})).as("by address: reads no column").isEqualTo(new DeleteResult(5, 1));
      Fragment f0 = c.manifest().fragments().get(0);
      assertThat(f0.overlays().size()).as("the update's overlay is kept").isEqualTo(1);
      assertThat(Deletions.of(io, f0)).isEqualTo(RoaringBitmap.bitmapOf(1, 5));
    }
  }

  @Test
  void deleteAfterAConcurrentCompactionOfItsFragmentIsRetryable() {
    try (Dataset a = create(); Dataset b = open()) {
      commitByHand(1, compactionOf(a.manifest(), 0));
      RetryableConflictException e = assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> b.delete(lt("id", 5))).actual();
      assertThat(e.getMessage()).contains("rewrite committed as version 2");
      assertThat(store.listAll("_deletions/")).isEmpty();
      // After re-reading, the delete addresses the compacted fragment.
      try (Dataset latest = b.checkoutLatest()) {
        assertThat(latest.delete(lt("id", 5))).isEqualTo(new DeleteResult(3, 5));
        assertThat(scanIds(latest.newScan().open()).size()).isEqualTo(95);
      }
    }
  }

  @Test
  void deleteAfterAConcurrentCompactionOfAnotherFragmentLands() {
    try (Dataset a = create(); Dataset b = open()) {
      commitByHand(1, compactionOf(a.manifest(), 2));
      assertThat(b.delete(lt("id", 5))).isEqualTo(new DeleteResult(3, 5));
      List<Long> ids = scanIds(b.newScan().open());
      assertThat(ids.size()).isEqualTo(95);
      assertThat(ids).containsExactlyInAnyOrderElementsOf(range(5, 100));
    }
  }

  @Test
  void compactionAfterAConcurrentDeleteIsRetryableSoNoRowIsResurrected() {
    try (Dataset a = create()) {
      Manifest v1 = a.manifest();
      a.delete(lt("id", 5));
      RetryableConflictException e =
          assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> commitByHand(1, compactionOf(v1, 0))).actual();
      assertThat(e.getMessage()).contains("delete committed as version 2");
      assertThat(latestIds(a)).isEqualTo(range(5, 100));
    }
  }

  @Test
  void deleteAfterAConcurrentOverwriteIsIncompatible() {
    try (Dataset a = create(); Dataset b = open()) {
      try (VectorSchemaRoot batch = SampleTable.batch(allocator, 1000, 3)) {
        a.overwrite(SampleTable.SCHEMA, List.of(batch));
      }
      assertThatExceptionOfType(IncompatibleTransactionException.class).isThrownBy(() -> b.delete(lt("id", 5)));
      assertThat(latestIds(b)).isEqualTo(range(1000, 1003));
      assertThat(store.listAll("_deletions/")).isEmpty();
    }
  }

  @Test
  void aDeleteThatMustBothRebaseAndRetryCommitsNothingAndLeavesNoFile() {
    try (Dataset a = create(); Dataset b = open()) {
      a.delete(lt("id", 5)); // version 2: fragment 0 (a rebase for b)
      commitByHand(2, updateOf(1, 4)); // version 3: s.x in fragment 1 (a conflict for b)
      assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> b.delete(gt("s.x", 0)));
      List<String> files = new ArrayList<>();
      store.listAll("_deletions/").forEach(o -> files.add(o.key()));
      assertThat(files).isEqualTo(List.of(a.manifest().fragments().get(0).deletionFile().orElseThrow().path()));
    }
  }
}
