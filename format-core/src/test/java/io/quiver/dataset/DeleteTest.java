package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static io.quiver.predicate.Predicate.and;
import static io.quiver.predicate.Predicate.eq;
import static io.quiver.predicate.Predicate.ge;
import static io.quiver.predicate.Predicate.gt;
import static io.quiver.predicate.Predicate.in;
import static io.quiver.predicate.Predicate.isNull;
import static io.quiver.predicate.Predicate.lt;
import static io.quiver.predicate.Predicate.ne;
import static io.quiver.predicate.Predicate.not;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.NotFoundException;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.Operation;
import io.quiver.manifest.DeletionFile;
import io.quiver.manifest.Fragment;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongPredicate;
import java.util.stream.LongStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/** Deletes by predicate and by row address on one handle; reads honour them. */
class DeleteTest {
  static final String URI_ = "test://table";
  private RootAllocator allocator;
  private MemoryObjectStore store;
  private DatasetOptions options;
  private TableIo io;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(URI_);
    options = options(store, allocator);
    io = new TableIo(store, new ObjectStoreCommitStore(store), new Session(1 << 20));
  }

  static DatasetOptions options(ObjectStore store, RootAllocator allocator) {
    ObjectStoreProvider provider =
        TestStores.provider("test", () -> store);
    return DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(1 << 20))
        .registry(ObjectStores.empty().register(provider))
        .rowsPerBatch(16)
        .maxRowsPerFragment(40)
        .build();
  }

  @AfterEach
  void tearDown() {
    allocator.close(); // fails the test if any Arrow buffer leaked
  }

  /** ids 0..99 in fragments 0 [0, 40), 1 [40, 80), 2 [80, 100). */
  private Dataset create() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 100)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  private static List<Long> idsWhere(LongPredicate keep) {
    return LongStream.range(0, 100).filter(keep).boxed().toList();
  }

  private Operation.Delete committedDelete(long version) {
    return (Operation.Delete) io.load(version).transaction().operation();
  }

  @Test
  void aPredicateDeletesMatchingRowsInEveryFragment() {
    try (Dataset ds = create()) {
      DeleteResult r = ds.delete(in("id", 3, 45, 46, 99));
      assertThat(r).isEqualTo(new DeleteResult(2, 4));
      assertThat(ds.version()).isEqualTo(2);
      assertThat(ds.countRows()).isEqualTo(96);
      assertThat(scanIds(ds.newScan().open())).isEqualTo(idsWhere(id -> id != 3 && id != 45 && id != 46 && id != 99));
      try (Dataset v1 = ds.checkout(1)) {
        assertThat(scanIds(v1.newScan().open())).as("the old version still holds every row").isEqualTo(range(0, 100));
      }
      assertThat(ds.versions().get(0).operation()).isEqualTo("delete");
    }
  }

  @Test
  void theTransactionRecordsTheFilesOffsetsFieldsAndReadablePredicate() {
    try (Dataset ds = create()) {
      Predicate p = and(gt("s.x", 100), lt("id", 50));
      ds.delete(p);
      Operation.Delete d = committedDelete(2);
      assertThat(d.predicate()).isEqualTo(p.toString());
      assertThat(d.predicate()).isEqualTo("s.x > 100 AND id < 50");
      assertThat(d.readFieldIds()).isEqualTo(p.fieldIds(ds.schema()));
      assertThat(d.readFieldIds()).isEqualTo(Set.of(1, 4));
      // x = 3 * id (null when id % 5 == 1, struct null when id % 11 == 5): ids 34..49 with x > 100.
      List<Long> expected = idsWhere(id -> id > 33 && id < 50 && id % 5 != 1 && id % 11 != 5);
      List<Long> deleted = new ArrayList<>();
      for (Operation.FragmentDeletion fd : d.deletions()) {
        assertThat(fd.previous().isEmpty()).isTrue();
        assertThat(fd.deletionFile().path())
            .matches("_deletions/" + fd.fragmentId() + "-1-[0-9a-f-]{36}\\.bin");
        fd.added().forEach((int offset) -> deleted.add(fd.fragmentId() * 40 + offset));
        assertThat(fd.deletionFile().deletedRows()).isEqualTo(fd.added().getLongCardinality());
      }
      assertThat(deleted.stream().sorted().toList()).isEqualTo(expected);
      assertThat(ds.manifest().fragments().stream()
          .mapToLong(f -> f.physicalRows() - f.liveRows()).sum()).isEqualTo(expected.size());
    }
  }

  @Test
  void aDeletionFileIsAPortableBitmapOfPreviousAndNewOffsets() throws Exception {
    try (Dataset ds = create()) {
      ds.delete(lt("id", 3));
      DeletionFile first = ds.manifest().fragments().get(0).deletionFile().orElseThrow();
      ds.delete(eq("id", 10));
      Operation.Delete second = committedDelete(3);
      Operation.FragmentDeletion fd = second.deletions().get(0);
      assertThat(fd.previous().orElseThrow()).isEqualTo(first);
      assertThat(fd.added().toRoaringBitmap()).isEqualTo(RoaringBitmap.bitmapOf(10));
      assertThat(fd.deletionFile().path()).startsWith("_deletions/0-2-");
      RoaringBitmap onDisk = new RoaringBitmap();
      onDisk.deserialize(ByteBuffer.wrap(store.read(fd.deletionFile().path())));
      assertThat(onDisk).isEqualTo(RoaringBitmap.bitmapOf(0, 1, 2, 10));
      assertThat(fd.deletionFile().sizeBytes()).isEqualTo(store.read(fd.deletionFile().path()).length);
      // The first file is untouched: version 2 still reads as it did.
      try (Dataset v2 = ds.checkout(2)) {
        assertThat(scanIds(v2.newScan().open())).isEqualTo(range(3, 100));
      }
    }
  }

  @Test
  void rowsAlreadyDeletedAreNotCountedAgain() {
    try (Dataset ds = create()) {
      assertThat(ds.delete(lt("id", 10)).deletedRows()).isEqualTo(10);
      assertThat(ds.delete(lt("id", 20))).isEqualTo(new DeleteResult(3, 10));
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(20, 100));
    }
  }

  @Test
  void nothingToDeleteCommitsNothing() {
    try (Dataset ds = create()) {
      assertThat(ds.delete(gt("id", 1000))).isEqualTo(new DeleteResult(1, 0));
      assertThat(ds.delete(Predicate.FALSE)).isEqualTo(new DeleteResult(1, 0));
      ds.delete(lt("id", 5));
      assertThat(ds.delete(lt("id", 5))).as("only deleted rows match").isEqualTo(new DeleteResult(2, 0));
      assertThat(ds.delete(new long[0])).isEqualTo(new DeleteResult(2, 0));
      assertThat(ds.latestVersion()).isEqualTo(2);
      assertThat(store.listAll("_deletions/")).hasSize(1);
    }
  }

  @Test
  void nullsAreNeverMatchedByAComparison() {
    try (Dataset ds = create()) {
      // name is null when id % 7 == 3: neither name = ... nor NOT (name = ...) matches those rows.
      long deleted = ds.delete(not(eq("name", "name-1"))).deletedRows();
      assertThat(deleted).isEqualTo(idsWhere(id -> id % 7 != 3 && id != 1).size());
      assertThat(scanIds(ds.newScan().open())).isEqualTo(idsWhere(id -> id % 7 == 3 || id == 1));
      assertThat(ds.delete(isNull("name")).deletedRows()).isEqualTo(idsWhere(id -> id % 7 == 3).size());
      assertThat(scanIds(ds.newScan().open())).isEqualTo(List.of(1L));
    }
  }

  @Test
  void nestedFieldsCanBeDeletedOnAndReadAfterADelete() throws Exception {
    try (Dataset ds = create()) {
      // s.x is null when the struct is null (id % 11 == 5) or x is (id % 5 == 1).
      DeleteResult r = ds.delete(isNull("s.x"));
      List<Long> kept = idsWhere(id -> id % 11 != 5 && id % 5 != 1);
      assertThat(r.deletedRows()).isEqualTo(100 - kept.size());
      assertThat(committedDelete(2).readFieldIds()).as("s.x has field id 4").isEqualTo(Set.of(4));
      assertThat(scanIds(ds.newScan().open())).isEqualTo(kept);
      // A nested-only projection and take see the same rows.
      List<String> ys = new ArrayList<>();
      try (ArrowReader reader = ds.newScan().columns("s.y").withRowAddress(true).open()) {
        while (reader.loadNextBatch()) {
          StructVector s = (StructVector) reader.getVectorSchemaRoot().getVector("s");
          VarCharVector y = (VarCharVector) s.getChild("y");
          for (int i = 0; i < reader.getVectorSchemaRoot().getRowCount(); i++) {
            ys.add(y.getObject(i).toString());
          }
        }
      }
      assertThat(ys).isEqualTo(kept.stream().map(id -> "y" + id).toList());
      assertThat(ds.delete(gt("s.x", 0)).deletedRows()).as("id 0 has x = 0").isEqualTo(kept.size() - 1);
      assertThat(scanIds(ds.newScan().open())).isEqualTo(List.of(0L));
    }
  }

  @Test
  void aFragmentWithEveryRowDeletedLeavesTheManifest() {
    try (Dataset ds = create()) {
      ds.delete(and(ge("id", 40), lt("id", 80)));
      assertThat(ds.manifest().fragments().stream().map(Fragment::id).toList()).isEqualTo(List.of(0L, 2L));
      assertThat(ds.countRows()).isEqualTo(60);
      ds.delete(Predicate.TRUE);
      assertThat(ds.manifest().fragments()).isEqualTo(List.of());
      assertThat(ds.countRows()).isEqualTo(0);
      assertThat(scanIds(ds.newScan().open())).isEqualTo(List.of());
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 500, 3)) {
        ds.append(List.of(b));
      }
      assertThat(ds.manifest().fragments().stream().map(Fragment::id).toList()).as("fragment ids are never reused").isEqualTo(List.of(3L));
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(500, 503));
    }
  }

  @Test
  void deletingEverythingReadsNoColumn() {
    try (Dataset ds = create()) {
      ds.delete(lt("id", 5));
      DeleteResult r = ds.delete(Predicate.TRUE);
      assertThat(r.deletedRows()).isEqualTo(95);
      Operation.Delete d = committedDelete(3);
      assertThat(d.readFieldIds()).isEqualTo(Set.of());
      assertThat(d.predicate()).isEqualTo("TRUE");
    }
  }

  @Test
  void rowAddressesFromAScanDeleteThoseRows() throws Exception {
    try (Dataset ds = create()) {
      Map<Long, Long> addressOf = addresses(ds);
      long[] doomed = {addressOf.get(5L), addressOf.get(41L), addressOf.get(99L), addressOf.get(41L)};
      assertThat(ds.delete(doomed)).isEqualTo(new DeleteResult(2, 3));
      assertThat(scanIds(ds.newScan().open())).isEqualTo(idsWhere(id -> id != 5 && id != 41 && id != 99));
      Operation.Delete d = committedDelete(2);
      assertThat(d.readFieldIds()).isEqualTo(Set.of());
      assertThat(d.predicate()).isEqualTo("");
      // Already-deleted addresses are fine, and not counted.
      assertThat(ds.delete(new long[]{addressOf.get(5L), addressOf.get(6L)})).isEqualTo(new DeleteResult(3, 1));
      assertThat(ds.delete(new long[]{addressOf.get(5L)})).isEqualTo(new DeleteResult(3, 0));
      // take and countRows agree.
      assertThat(ds.countRows()).isEqualTo(96);
      assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> ds.take(new long[]{addressOf.get(6L)}, List.of()).close());
      try (VectorSchemaRoot rows = ds.take(new long[] {addressOf.get(7L), addressOf.get(42L)}, List.of("id"))) {
        BigIntVector id = (BigIntVector) rows.getVector("id");
        assertThat(List.of(id.get(0), id.get(1))).isEqualTo(List.of(7L, 42L));
      }
    }
  }

  @Test
  void unknownAddressesAreNotFoundAndDeleteNothing() {
    try (Dataset ds = create()) {
      NotFoundException e = assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> ds.delete(new long[]{RowAddress.of(0, 1), RowAddress.of(7, 0)})).actual();
      assertThat(e.getMessage()).contains("fragment 7").contains("[0, 1, 2]");
      e = assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> ds.delete(new long[]{RowAddress.of(2, 20)})).actual();
      assertThat(e.getMessage()).contains("offset 20").contains("20 rows");
      assertThat(ds.latestVersion()).isEqualTo(1);
      assertThat(store.listAll("_deletions/")).isEmpty();
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(0, 100));
    }
  }

  @Test
  void badPredicatesAreTypedErrorsAndCommitNothing() {
    try (Dataset ds = create()) {
      InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.delete(eq("name", 5))).actual();
      assertThat(e.getMessage()).contains("'name'").contains("Utf8").contains("String");
      e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.delete(eq("nope", 5))).actual();
      assertThat(e.getMessage()).contains("'nope'").contains("[id, name, s, s.x, s.y, tags]");
      e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.delete(eq("tags", 5))).actual();
      assertThat(e.getMessage()).contains("List");
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.delete((Predicate) null));
      assertThat(ds.latestVersion()).isEqualTo(1);
    }
    // A type mismatch is reported even when there is no row to evaluate.
    try (Dataset empty = Dataset.create("test://empty", SampleTable.SCHEMA, List.of(),
        options(new MemoryObjectStore("test://empty"), allocator))) {
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> empty.delete(eq("name", 5)));
    }
  }

  @Test
  void aDeleteThenAReopenReadsTheSame() {
    try (Dataset ds = create()) {
      ds.delete(ne("s.y", "y50"));
    }
    try (Dataset ds = Dataset.open(URI_, options)) {
      assertThat(scanIds(ds.newScan().open())).isEqualTo(idsWhere(id -> id == 50 || id % 11 == 5));
      assertThat(scanIds(ds.newScan().open()).size()).isEqualTo(ds.manifest().liveRows());
      assertThat(ds.manifest().fragments().isEmpty()).isFalse();
    }
  }

  /** id → row address, from a scan. */
  static Map<Long, Long> addresses(Dataset ds) throws Exception {
    Map<Long, Long> out = new java.util.HashMap<>();
    try (ArrowReader reader = ds.newScan().columns("id").withRowAddress(true).open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        UInt8Vector addr = (UInt8Vector) root.getVector(RowAddress.COLUMN);
        for (int i = 0; i < root.getRowCount(); i++) {
          out.put(id.get(i), addr.get(i));
        }
      }
    }
    return out;
  }
}
