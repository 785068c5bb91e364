package io.quiver.dataset;

import static io.quiver.dataset.StagedColumnSupport.intField;
import static io.quiver.dataset.StagedColumnSupport.ints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.StaleColumnWriteException;
import io.quiver.predicate.Predicate;
import io.quiver.scenario.StagedColumnScenarios;
import io.quiver.store.MemoryObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DatasetColumns.check: which staged writes a commit on the latest version would refuse, so a distributed
 * backfill recomputes exactly those (plus fragments no write covers) and commits the mix.
 */
class StagedWriteCheckTest {
  private BufferAllocator allocator;
  private MemoryObjectStore store;
  private DatasetOptions options;
  private Dataset ds;

  /** Fragments 0 (ids 0..9), 1 (10..19), 2 (20..23), 3 (24..27); column v = id * 10 (and w). */
  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(OverlayTestSupport.URI_);
    options = OverlayTestSupport.options(allocator, store, 4);
    ds = OverlayTestSupport.create(allocator, options, 0, 10);
    append(10, 10);
    append(20, 4);
    append(24, 4);
    ds.columns().add(List.of(intField("v", true), intField("w", true)), List.of("id"), StagedColumnScenarios::tens);
  }

  @AfterEach
  void tearDown() {
    ds.close();
    allocator.close();
  }

  private void append(long from, int rows) {
    try (var b = SampleTable.batch(allocator, from, rows)) {
      ds.append(List.of(b));
    }
  }

  /** The backfill's schema at {@code at}: new column d = v + 1, computed from input v. */
  private static ColumnSchema schema(Dataset at) {
    return at.columns().newSchema(List.of(intField("d", true)), List.of(), List.of("v"));
  }

  /** A worker's job: d = v + 1 for each fragment of {@code fragments}, read and staged at {@code at}'s version. */
  private List<StagedColumnWrite> stage(Dataset at, ColumnSchema schema, Collection<Long> fragments) {
    List<StagedColumnWrite> out = new ArrayList<>();
    for (ScanTask task : at.newScan().columns("v").planTasks()) {
      if (!fragments.contains(task.fragmentId())) {
        continue;
      }
      List<Integer> d = new ArrayList<>();
      try (ArrowReader r = task.open(at)) {
        while (r.loadNextBatch()) {
          IntVector v = (IntVector) r.getVectorSchemaRoot().getVector("v");
          for (int i = 0; i < v.getValueCount(); i++) {
            d.add(v.get(i) + 1);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      try (ArrowReader batches = ints(allocator, schema.arrowSchema(), d.toArray(Integer[]::new))) {
        out.add(StagedColumnWrite.decode(at.columns().writeFragment(task.fragmentId(), batches, schema).encode()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }

  private static Set<Long> fragmentIds(Dataset at) {
    Set<Long> ids = new TreeSet<>();
    at.manifest().fragments().forEach(f -> ids.add(f.id()));
    return ids;
  }

  private static List<Long> reported(List<StaleColumnWriteException> problems) {
    return problems.stream().map(StaleColumnWriteException::fragmentId).toList();
  }

  @Test
  void aFreshSetHasNoProblemAndCommits() {
    List<StagedColumnWrite> writes = stage(ds, schema(ds), fragmentIds(ds));
    assertThat(ds.columns().check(writes)).isEmpty();
    assertThat(ds.columns().check(List.of())).isEmpty();
    ds.columns().commit(writes);
    assertThat(StagedColumnSupport.column(ds, "d")).isEqualTo(StagedColumnSupport.column(ds, "v").stream().map(v -> v + 1).toList());
  }

  @Test
  void aConcurrentUpdateOfAnInputInOneFragmentReportsExactlyThatWrite() {
    List<StagedColumnWrite> writes = stage(ds, schema(ds), fragmentIds(ds));
    try (Dataset other = ds.checkoutLatest()) {
      other.update(Predicate.eq("id", 15L), Map.of("v", 999));
    }
    long handleVersion = ds.version();
    List<StaleColumnWriteException> problems = ds.columns().check(writes);
    assertThat(reported(problems)).as("checked against the latest version, not the handle's").containsExactly(1L);
    assertThat(problems.get(0).field()).isEqualTo("v");
    assertThat(problems.get(0).getMessage()).contains("input field 'v'").contains("fragment 1").contains("Recompute");
    assertThat(ds.version()).as("check does not move the handle").isEqualTo(handleVersion);
    StaleColumnWriteException refused = assertThatExceptionOfType(StaleColumnWriteException.class)
        .isThrownBy(() -> ds.columns().commit(writes)).actual();
    assertThat(refused.fragmentId()).as("commit refuses the same write").isEqualTo(1L);
    assertThat(refused.getMessage()).isEqualTo(problems.get(0).getMessage());
  }

  @Test
  void aCompactionOfTwoFragmentsReportsExactlyTheirWrites() {
    List<StagedColumnWrite> writes = stage(ds, schema(ds), fragmentIds(ds));
    try (Dataset other = ds.checkoutLatest()) {
      CompactionResult r = other.compact(CompactionOptions.defaults().withSmallFragmentRows(5));
      assertThat(r.fragmentsRemoved()).isEqualTo(2);
    }
    List<StaleColumnWriteException> problems = ds.columns().check(writes);
    assertThat(reported(problems)).containsExactly(2L, 3L);
    assertThat(problems).allSatisfy(p -> assertThat(p.getMessage()).contains("is gone (compacted"));
  }

  @Test
  void recomputingOnlyTheReportedAndUncoveredFragmentsCommitsTheMix() {
    ColumnSchema first = schema(ds);
    List<StagedColumnWrite> writes = stage(ds, first, fragmentIds(ds));
    try (Dataset other = ds.checkoutLatest()) {
      other.update(Predicate.eq("id", 15L), Map.of("v", 999));
      other.compact(CompactionOptions.defaults().withSmallFragmentRows(5).withMaterializeOverlays(false));
    }
    StaleColumnWriteException refused = assertThatExceptionOfType(StaleColumnWriteException.class)
        .isThrownBy(() -> ds.columns().commit(writes)).actual();
    assertThat(refused.fragmentId()).isEqualTo(1L);

    List<StaleColumnWriteException> problems = ds.columns().check(writes);
    assertThat(reported(problems)).containsExactly(1L, 2L, 3L);

    try (Dataset latest = ds.checkoutLatest()) {
      Set<Long> stale = new TreeSet<>(reported(problems));
      List<StagedColumnWrite> fresh = writes.stream().filter(w -> !stale.contains(w.fragmentId())).toList();
      Set<Long> todo = fragmentIds(latest);
      fresh.forEach(w -> todo.remove(w.fragmentId()));
      assertThat(todo).as("the stale fragment, and the compaction's new one").hasSize(2).contains(1L);
      ColumnSchema second = schema(latest);
      assertThat(second.contract()).as("no id allocated since: same field").isEqualTo(first.contract());
      List<StagedColumnWrite> recomputed = stage(latest, second, todo);
      List<StagedColumnWrite> mix = new ArrayList<>(fresh);
      mix.addAll(recomputed);
      assertThat(ds.columns().check(mix)).isEmpty();

      long committed = latest.columns().commit(mix);
      assertThat(committed).isEqualTo(ds.latestVersion());
      List<Integer> v = StagedColumnSupport.column(latest, "v");
      assertThat(v).contains(999);
      assertThat(StagedColumnSupport.column(latest, "d")).isEqualTo(v.stream().map(x -> x + 1).toList());
      assertThat(latest.manifest().fragments()).allSatisfy(
          f -> assertThat(f.fileOf(latest.schema().findTopLevel("d").orElseThrow().id())).isPresent());
      assertThat(latest.countRows()).isEqualTo(28);
    }
  }

  @Test
  void idsAllocatedSinceAreAProblemOfTheWholeSchema() {
    List<StagedColumnWrite> writes = stage(ds, schema(ds), fragmentIds(ds));
    try (Dataset other = ds.checkoutLatest()) {
      other.columns().add(List.of(intField("other", true)));
    }
    List<StaleColumnWriteException> problems = ds.columns().check(writes);
    assertThat(reported(problems)).containsExactly(-1L);
    assertThat(problems.get(0).field()).isEqualTo("d");
    assertThat(problems.get(0).getMessage()).contains("Create a new ColumnSchema on the latest version");
  }

  @Test
  void aNameTakenSinceIsAProblemOfTheWholeSchemaToo() {
    List<StagedColumnWrite> writes = stage(ds, schema(ds).select("d"), List.of(0L));
    try (Dataset other = ds.checkoutLatest()) {
      other.columns().drop("w"); // keeps the high-water mark: ids are not reused
      assertThat(ds.columns().check(writes)).isEmpty();
      other.columns().rename("v", "d");
    }
    List<StaleColumnWriteException> problems = ds.columns().check(writes);
    assertThat(reported(problems)).containsExactly(-1L);
    assertThat(problems.get(0).getMessage()).contains("collides with column 'd'");
  }

  @Test
  void writesOfAnotherTableOrNullAreTypedErrors() {
    List<StagedColumnWrite> writes = stage(ds, schema(ds), List.of(0L));
    StagedColumnWrite foreign = new StagedColumnWrite("test://elsewhere", writes.get(0).readVersion(),
        writes.get(0).write());
    assertThat(assertThatExceptionOfType(InvalidArgumentException.class)
        .isThrownBy(() -> ds.columns().check(List.of(foreign))).actual().getMessage())
        .contains("belongs to table test://elsewhere");
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.columns().check(null));
    List<StagedColumnWrite> withNull = new ArrayList<>();
    withNull.add(null);
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.columns().check(withNull));
  }
}
