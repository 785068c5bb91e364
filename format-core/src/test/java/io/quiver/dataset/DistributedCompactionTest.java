package io.quiver.dataset;

import static io.quiver.dataset.OverlayTestSupport.scanRows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.OverlayTestSupport.Row;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.NotFoundException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Distributed compaction: plan on a driver, execute tasks on workers, commit the groups as one version. */
class DistributedCompactionTest {
  /** Fragments under 20 live rows qualify: 0 and 1 form one group, 3 and 4 another; 2 (30 rows) stays. */
  private static final CompactionOptions OPTIONS = CompactionOptions.defaults().withSmallFragmentRows(20);

  private RootAllocator allocator;
  private MemoryObjectStore store;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(OverlayTestSupport.URI_);
    options = OverlayTestSupport.options(allocator, store, 4);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** Fragments 0 (ids 0..9), 1 (10..19), 2 (20..49), 3 (50..59), 4 (60..69). */
  private Dataset fiveFragments() {
    Dataset ds = OverlayTestSupport.create(allocator, options, 0, 10);
    append(ds, 10, 10);
    append(ds, 20, 30);
    append(ds, 50, 10);
    append(ds, 60, 10);
    return ds;
  }

  private void append(Dataset ds, long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      ds.append(List.of(b));
    }
  }

  @Test
  void tasksExecutedOnWorkersCommitAsOneVersionWithTheSameRowsInFewerFragments() {
    try (Dataset ds = fiveFragments()) {
      ds.delete(new long[] {RowAddress.of(0, 3), RowAddress.of(4, 9)});
      ds.update(Predicate.in("id", 4L, 15L, 55L), Map.of("name", "updated", "s.x", 9));
      Map<Long, Row> before = scanRows(ds.newScan().open());
      long planned = ds.version();

      CompactionPlan plan = ds.compaction().plan(OPTIONS);
      assertThat(plan.version()).isEqualTo(planned);
      assertThat(plan.tasks()).extracting(CompactionTask::fragmentIds).containsExactly(List.of(0L, 1L), List.of(3L, 4L));
      assertThat(plan.tasks()).extracting(CompactionTask::taskIndex).containsExactly(0, 1);
      assertThat(plan.tasks()).allSatisfy(t -> {
        assertThat(t.version()).isEqualTo(planned);
        assertThat(t.planId()).isEqualTo(plan.planId());
        assertThat(t.tableUri()).isEqualTo(OverlayTestSupport.URI_);
        assertThat(t.options()).isEqualTo(OPTIONS);
      });
      assertThat(plan.fragmentsToRewrite()).isEqualTo(4);

      // The driver ships bytes; each worker decodes and executes its task, and ships bytes back.
      List<byte[]> returned = new ArrayList<>();
      CompactionTask first = CompactionTask.decode(plan.tasks().get(0).encode());
      returned.add(first.execute(options).encode()); // opens the table itself
      try (Dataset worker = Dataset.open(OverlayTestSupport.URI_, options)) {
        CompactionTask second = CompactionTask.decode(plan.tasks().get(1).encode());
        returned.add(second.execute(worker).encode()); // through an open handle
      }
      List<CompactedGroup> groups = returned.stream().map(CompactedGroup::decode).toList();
      assertThat(groups.get(0).removedFragmentIds()).containsExactly(0L, 1L);
      assertThat(groups.get(0).rowsWritten()).isEqualTo(19);
      assertThat(groups.get(1).rowsWritten()).isEqualTo(19);
      assertThat(groups).allSatisfy(g -> assertThat(g.filesWritten()).isNotEmpty()
          .allSatisfy(path -> assertThat(store.head(path)).isPresent()));
      assertThat(ds.latestVersion()).as("executing commits nothing").isEqualTo(planned);

      CompactionResult result = ds.compaction().commit(plan, List.of(groups.get(1), groups.get(0)));
      assertThat(result).isEqualTo(new CompactionResult(planned + 1, 4, 2, 38));
      assertThat(ds.version()).isEqualTo(planned + 1);
      assertThat(ds.latestVersion()).isEqualTo(planned + 1);
      assertThat(ds.manifest().fragments()).hasSize(3);
      assertThat(ds.manifest().fragments()).allSatisfy(f -> {
        assertThat(f.deletionFile()).isEmpty();
        assertThat(f.overlays()).isEmpty();
      });
      assertThat(ds.manifest().fragments()).extracting(Fragment::id).as("the untouched fragment keeps its id").contains(2L)
          .doesNotContain(0L, 1L, 3L, 4L);
      assertThat(scanRows(ds.newScan().open())).as("every value survives").isEqualTo(before);
      assertThat(ds.validate().problems()).isEmpty();
      assertThat(ds.compaction().plan(OPTIONS.withSmallFragmentRows(19)).isEmpty()).as("nothing left to compact").isTrue();
    }
  }

  @Test
  void dataSetCompactIsTheSamePathInOneProcess() {
    try (Dataset ds = fiveFragments(); Dataset twin = ds.checkoutLatest()) {
      CompactionResult local = ds.compact(OPTIONS);
      CompactionPlan plan = twin.compaction().plan(OPTIONS);
      assertThat(local).isEqualTo(new CompactionResult(6, 4, 2, 40));
      assertThat(plan.tasks()).hasSize(2);
      CompactionPlan empty = ds.compaction().plan(OPTIONS);
      assertThat(empty.isEmpty()).isTrue();
      assertThat(empty.tasks()).isEmpty();
      assertThat(ds.compaction().commit(empty, List.of())).isEqualTo(new CompactionResult(6, 0, 0, 0));
      assertThat(ds.latestVersion()).isEqualTo(6);
    }
  }

  @Test
  void tasksAndGroupsSurviveEncodingAndJavaSerialization() throws Exception {
    try (Dataset ds = fiveFragments()) {
      CompactionPlan plan = ds.compaction().plan(OPTIONS);
      CompactionTask task = plan.tasks().get(1);
      byte[] bytes = task.encode();
      assertThat(new String(bytes, 0, 4, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("QVA1");
      CompactionTask decoded = CompactionTask.decode(bytes);
      assertThat(decoded).isEqualTo(task);
      assertThat(decoded.encode()).as("deterministic").containsExactly(bytes);
      CompactionTask deserialized = roundTrip(task);
      assertThat(deserialized).isEqualTo(task);
      assertThat(deserialized.fragmentIds()).containsExactly(3L, 4L);
      assertThat(deserialized.tableLocation()).isEqualTo(OverlayTestSupport.URI_);

      CompactedGroup group = deserialized.execute(options);
      CompactedGroup back = roundTrip(group);
      assertThat(back).isEqualTo(group);
      assertThat(CompactedGroup.decode(group.encode())).isEqualTo(group);
      assertThat(back.newFragments()).isEqualTo(group.newFragments());
      assertThat(ds.compaction().commit(plan, List.of(back))).isEqualTo(new CompactionResult(6, 2, 1, 20));

      assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> CompactionTask.decode(group.encode()))
          .withMessageContaining("expected magic QVA1");
      assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> CompactedGroup.decode(bytes))
          .withMessageContaining("expected magic QVW1");
      assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> CompactionTask.decode(null))
          .withMessageContaining("CompactionTask.encode()");
      byte[] damaged = bytes.clone();
      damaged[damaged.length - 1] ^= 1;
      assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> CompactionTask.decode(damaged))
          .withMessageContaining("checksum");
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> T roundTrip(T value) throws IOException, ClassNotFoundException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ObjectOutputStream o = new ObjectOutputStream(out)) {
      o.writeObject(value);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(out.toByteArray()))) {
      return (T) in.readObject();
    }
  }

  @Test
  void aDeleteInAPlannedFragmentBetweenPlanAndCommitConflictsAndChangesNothing() {
    try (Dataset ds = fiveFragments()) {
      CompactionPlan plan = ds.compaction().plan(OPTIONS);
      List<CompactedGroup> groups = plan.tasks().stream().map(t -> t.execute(options)).toList();
      long deleted;
      try (Dataset other = ds.checkoutLatest()) {
        deleted = other.delete(new long[] {RowAddress.of(1, 5)}).version();
      }
      Map<Long, Row> afterDelete;
      try (Dataset latest = ds.checkoutLatest()) {
        afterDelete = scanRows(latest.newScan().open());
      }
      assertThat(afterDelete).hasSize(69).doesNotContainKey(15L);

      assertThatExceptionOfType(RetryableConflictException.class)
          .isThrownBy(() -> ds.compaction().commit(plan, groups));
      assertThat(ds.latestVersion()).as("nothing committed").isEqualTo(deleted);
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(scanRows(latest.newScan().open())).as("the deleted row stays deleted").isEqualTo(afterDelete);
        assertThat(latest.manifest().fragments()).extracting(Fragment::id).containsExactly(0L, 1L, 2L, 3L, 4L);
        // The groups' files are never published: left in place, unreferenced, for cleanup's safety window.
        List<String> referenced = latest.manifest().fragments().stream()
            .flatMap(f -> f.files().stream()).map(DataFile::path).toList();
        for (CompactedGroup g : groups) {
          assertThat(g.filesWritten()).allSatisfy(p -> {
            assertThat(store.head(p)).isPresent();
            assertThat(referenced).doesNotContain(p);
          });
        }
        // Planning again at the latest version compacts with the deletion applied.
        CompactionPlan again = latest.compaction().plan(OPTIONS);
        List<CompactedGroup> fresh = again.tasks().stream().map(t -> t.execute(latest)).toList();
        assertThat(latest.compaction().commit(again, fresh)).isEqualTo(new CompactionResult(deleted + 1, 4, 2, 39));
        assertThat(scanRows(latest.newScan().open())).isEqualTo(afterDelete);
      }
    }
  }

  @Test
  void aCommitOfTheOtherGroupsMergesAConcurrentAppend() {
    try (Dataset ds = fiveFragments()) {
      CompactionPlan plan = ds.compaction().plan(OPTIONS);
      CompactedGroup only = plan.tasks().get(0).execute(options);
      try (Dataset other = ds.checkoutLatest()) {
        append(other, 70, 5);
      }
      CompactionResult r = ds.compaction().commit(plan, List.of(only));
      assertThat(r).isEqualTo(new CompactionResult(7, 2, 1, 20));
      assertThat(ds.manifest().fragments()).hasSize(5);
      assertThat(ds.countRows()).isEqualTo(75);
    }
  }

  @Test
  void groupsOfAnotherPlanOrTableAreTypedErrors() {
    MemoryObjectStore otherStore = new MemoryObjectStore("test://other");
    DatasetOptions otherOptions = DatasetOptions.builder().allocator(allocator).session(new Session(1 << 20))
        .registry(io.quiver.store.ObjectStores.empty().register(io.quiver.store.TestStores.provider("test", () -> otherStore)))
        .rowsPerBatch(4).build();
    try (Dataset ds = fiveFragments(); Dataset other = fiveFragmentsOn(otherOptions)) {
      CompactionPlan plan = ds.compaction().plan(OPTIONS);
      CompactionPlan second = ds.compaction().plan(OPTIONS);
      assertThat(second.planId()).isNotEqualTo(plan.planId());
      CompactedGroup ofSecond = second.tasks().get(0).execute(ds);
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.compaction().commit(plan, List.of(ofSecond)))
          .withMessageContaining("belongs to compaction plan " + second.planId());

      CompactionPlan foreignPlan = other.compaction().plan(OPTIONS);
      CompactedGroup foreign = foreignPlan.tasks().get(0).execute(other);
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.compaction().commit(plan, List.of(foreign)))
          .withMessageContaining("written for table test://other");
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.compaction().commit(foreignPlan, List.of(foreign)))
          .withMessageContaining("was made on table test://other");
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> plan.tasks().get(0).execute(other))
          .withMessageContaining("execute it on the task's table");

      CompactedGroup mine = plan.tasks().get(0).execute(ds);
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.compaction().commit(plan, List.of(mine, mine)))
          .withMessageContaining("two compacted groups for task 0");
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.compaction().commit(plan, List.of()))
          .withMessageContaining("execute the plan's tasks");
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.compaction().plan(null));

      store.delete(mine.filesWritten().get(0));
      assertThatExceptionOfType(NotFoundException.class)
          .isThrownBy(() -> ds.compaction().commit(plan, List.of(mine)))
          .withMessageContaining("missing").withMessageContaining("Execute the task again");
      assertThat(ds.latestVersion()).as("none of these committed").isEqualTo(5);
    }
  }

  private Dataset fiveFragmentsOn(DatasetOptions o) {
    Dataset ds;
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 10)) {
      ds = Dataset.create("test://other", SampleTable.SCHEMA, List.of(b), o);
    }
    append(ds, 10, 10);
    return ds;
  }
}
