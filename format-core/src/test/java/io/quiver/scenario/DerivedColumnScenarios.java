package io.quiver.scenario;

import static io.quiver.dataset.StagedColumnSupport.intField;
import static io.quiver.dataset.StagedColumnSupport.ints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.ColumnSchema;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.RowAddress;
import io.quiver.dataset.StagedColumnWrite;
import io.quiver.exceptions.StaleColumnWriteException;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore.Op;
import io.quiver.store.ObjectStoreCommitStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Catalogue scenario E6 (a staged column computed from input columns whose cells change before the
 * commit), written once against a {@link ScenarioTable}. Every scenario starts from the sample table with
 * ids [0, 4) in fragment 0 and [4, 8) in fragment 1, plus {@code v = id * 10} and {@code w = id * 100}
 * (added from {@code id}). A worker derives {@code d = v + 1} (or a function of another input) from the
 * values it reads through its own handle, and stages it with a column schema declaring its inputs; another
 * handle changes the table; the commit either fails with {@code StaleColumnWriteException} naming the input
 * and the fragment, publishing nothing, or succeeds with every cell of the derived column checked against
 * the inputs it was computed from. Each scenario ends by validating the table and scanning every sample
 * field of the latest version.
 */
public final class DerivedColumnScenarios implements AutoCloseable {
  private final ScenarioTable t;
  private final BufferAllocator allocator;
  private final Dataset ds;

  private DerivedColumnScenarios(ScenarioTable t) {
    this.t = t;
    this.allocator = t.allocator();
    this.ds = t.create(0, 4);
    t.append(ds, 4, 4);
    ds.columns().add(List.of(intField("v", true), intField("w", true)), List.of("id"), StagedColumnScenarios::tens);
  }

  private static void run(ScenarioTable t, Consumer<DerivedColumnScenarios> body) {
    try (DerivedColumnScenarios s = new DerivedColumnScenarios(t)) {
      assertThat(s.ds.manifest().fragments().stream().map(f -> f.id()).toList()).isEqualTo(List.of(0L, 1L));
      body.accept(s);
    }
    List<Long> ids = t.validateAndScanLatest();
    assertThat(ids.stream().allMatch(id -> id >= 0 && id < 8) && ids.size() == Set.copyOf(ids).size()).as(() -> "sample rows after the scenario: " + ids).isTrue();
  }

  @Override
  public void close() {
    ds.close();
  }

  // ------------------------------------------------------------------ helpers

  /** A column schema for the new column {@code d} computed from {@code inputs}. */
  private static ColumnSchema derived(Dataset handle, String... inputs) {
    return handle.columns().newSchema(List.of(intField("d", true)), List.of(), List.of(inputs));
  }

  /**
   * The worker: reads {@code input} (an int column or struct member) of every live row of the fragment
   * through {@code handle}, and stages {@code input + 1} for every physical row (null where the input is
   * null or the row is deleted).
   */
  private StagedColumnWrite derive(Dataset handle, ColumnSchema schema, long fragmentId, String input) {
    long rows = handle.manifest().fragments().stream().filter(f -> f.id() == fragmentId).findFirst()
        .orElseThrow().physicalRows();
    Map<Long, Integer> read = cells(handle, input, fragmentId);
    Integer[] values = new Integer[(int) rows];
    read.forEach((offset, value) -> values[offset.intValue()] = value == null ? null : value + 1);
    try (ArrowReader reader = ints(allocator, schema.arrowSchema(), values)) {
      return handle.columns().writeFragment(fragmentId, reader, schema);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private StagedColumnWrite derive(Dataset handle, ColumnSchema schema, long fragmentId) {
    return derive(handle, schema, fragmentId, "v");
  }

  /** Offset → value of an int column (or dotted struct member) for the live rows of one fragment. */
  private static Map<Long, Integer> cells(Dataset handle, String path, long fragmentId) {
    Map<Long, Integer> out = new TreeMap<>();
    String[] parts = path.split("\\.");
    try (ArrowReader r = handle.newScan().columns(parts[0]).withRowAddress(true).open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        UInt8Vector addr = (UInt8Vector) root.getVector(RowAddress.COLUMN);
        FieldVector v = root.getVector(parts[0]);
        for (int p = 1; p < parts.length; p++) {
          v = (FieldVector) ((StructVector) v).getChild(parts[p]);
        }
        for (int i = 0; i < root.getRowCount(); i++) {
          if (RowAddress.fragmentId(addr.get(i)) == fragmentId) {
            out.put(RowAddress.offset(addr.get(i)), v.isNull(i) ? null : ((IntVector) v).get(i));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** id → (input, d) for every live row of the latest version. */
  private Map<Long, List<Integer>> latestPairs(String input) {
    Map<Long, List<Integer>> out = new TreeMap<>();
    try (Dataset latest = ds.checkoutLatest();
        ArrowReader r = latest.newScan().columns("id", input, "d").open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        IntVector in = (IntVector) root.getVector(input);
        IntVector d = (IntVector) root.getVector("d");
        for (int i = 0; i < root.getRowCount(); i++) {
          out.put(id.get(i), Arrays.asList(in.isNull(i) ? null : in.get(i), d.isNull(i) ? null : d.get(i)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** Every live row's {@code d} is exactly its {@code input} + 1 at the latest version, and the ids are {@code ids}. */
  private void assertDerivedEverywhere(String input, List<Long> ids) {
    Map<Long, List<Integer>> pairs = latestPairs(input);
    assertThat(List.copyOf(pairs.keySet())).isEqualTo(ids);
    pairs.forEach((id, p) -> assertThat(p.get(1)).as(() -> "row id " + id).isEqualTo(p.get(0) == null ? null : p.get(0) + 1));
  }

  /** Nothing was published: the latest version is {@code version} and has no column {@code d}. */
  private void assertNothingPublished(long version) {
    try (Dataset latest = ds.checkoutLatest()) {
      assertThat(latest.version()).isEqualTo(version);
      assertThat(latest.schema().findTopLevel("d").isEmpty()).as(() -> "d published: " + latest.schema()).isTrue();
    }
  }

  private int fieldId(String path) {
    return ds.schema().findField(path).orElseThrow().id();
  }

  private static List<Long> ids(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      out.add(i);
    }
    return out;
  }

  // ------------------------------------------------------------------ scenarios

  public static void e6_concurrentUpdateOfAnInputCellMakesTheDerivedColumnStale(ScenarioTable t) {
    run(t, s -> s.e6_concurrentUpdateOfAnInputCellMakesTheDerivedColumnStaleBody());
  }

  private void e6_concurrentUpdateOfAnInputCellMakesTheDerivedColumnStaleBody() {
    int v = fieldId("v");
    try (Dataset updater = ds.checkout(ds.version())) {
      ColumnSchema schema = derived(ds, "v");
      assertThat(schema.inputFieldIds()).isEqualTo(Set.of(v));
      StagedColumnWrite w0 = derive(ds, schema, 0);
      StagedColumnWrite w1 = derive(ds, schema, 1);
      assertThat(w1.inputFieldIds()).isEqualTo(Set.of(v));
      long updated = updater.update(new long[] {RowAddress.of(1, 2)}, Map.of("v", 555)).version();
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> ds.columns().commit(List.of(w0, w1))).actual();
      assertThat(e.fragmentId()).isEqualTo(1);
      assertThat(e.field()).isEqualTo("v");
      assertThat(e.getMessage()).contains("input field 'v' (id " + v + ")").contains("fragment 1")
          .contains("overlays changed").contains("nothing was committed");
      assertNothingPublished(updated);
      assertThat(latest("v")).isEqualTo(List.of(0, 10, 20, 30, 40, 50, 555, 70));
    }
  }

  public static void e6_concurrentUpdateOfAnUnrelatedColumnLetsTheDerivedColumnCommit(ScenarioTable t) {
    run(t, s -> s.e6_concurrentUpdateOfAnUnrelatedColumnLetsTheDerivedColumnCommitBody());
  }

  private void e6_concurrentUpdateOfAnUnrelatedColumnLetsTheDerivedColumnCommitBody() {
    try (Dataset updater = ds.checkout(ds.version())) {
      ColumnSchema schema = derived(ds, "v");
      StagedColumnWrite w0 = derive(ds, schema, 0);
      StagedColumnWrite w1 = derive(ds, schema, 1);
      long updated = updater.update(new long[] {RowAddress.of(0, 1), RowAddress.of(1, 2)}, Map.of("w", -1)).version();
      long committed = ds.columns().commit(List.of(w0, w1));
      assertThat(committed).isEqualTo(updated + 1);
      assertThat(latest("d")).isEqualTo(List.of(1, 11, 21, 31, 41, 51, 61, 71));
      assertThat(latest("w")).isEqualTo(List.of(0, -1, 200, 300, 400, 500, -1, 700));
      assertDerivedEverywhere("v", ids(0, 8));
    }
  }

  public static void e6_concurrentReplacementOfAnInputMakesTheDerivedColumnStale(ScenarioTable t) {
    run(t, s -> s.e6_concurrentReplacementOfAnInputMakesTheDerivedColumnStaleBody());
  }

  private void e6_concurrentReplacementOfAnInputMakesTheDerivedColumnStaleBody() {
    try (Dataset replacer = ds.checkout(ds.version())) {
      StagedColumnWrite w0 = derive(ds, derived(ds, "v"), 0);
      // The same values in a new file: the witness compares states, not values, so this is stale too.
      long replaced = replacer.columns().replace(List.of("v"), List.of("id"), DerivedColumnScenarios::vFromId);
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> ds.columns().commit(List.of(w0))).actual();
      assertThat(e.fragmentId()).isEqualTo(0);
      assertThat(e.getMessage()).contains("input field 'v'").contains("fragment 0").contains("base data file changed");
      assertNothingPublished(replaced);
    }
  }

  /** {@code v = id * 10} for the rows of {@code input}. */
  static VectorSchemaRoot vFromId(VectorSchemaRoot input, BufferAllocator allocator) {
    BigIntVector id = (BigIntVector) input.getVector("id");
    VectorSchemaRoot out = VectorSchemaRoot.create(
        new org.apache.arrow.vector.types.pojo.Schema(List.of(intField("v", true))), allocator);
    IntVector v = (IntVector) out.getVector(0);
    v.allocateNew(input.getRowCount());
    for (int i = 0; i < input.getRowCount(); i++) {
      v.set(i, (int) id.get(i) * 10);
    }
    v.setValueCount(input.getRowCount());
    out.setRowCount(input.getRowCount());
    return out;
  }

  public static void e6_concurrentStagedRewriteOfAnInputMakesTheDerivedColumnStale(ScenarioTable t) {
    run(t, s -> s.e6_concurrentStagedRewriteOfAnInputMakesTheDerivedColumnStaleBody());
  }

  private void e6_concurrentStagedRewriteOfAnInputMakesTheDerivedColumnStaleBody() {
    try (Dataset rewriter = ds.checkout(ds.version())) {
      StagedColumnWrite d1 = derive(ds, derived(ds, "v"), 1);
      ColumnSchema rewriteV = rewriter.columns().newSchema(List.of(), List.of("v"), List.of());
      StagedColumnWrite v1;
      try (ArrowReader r = ints(allocator, rewriteV.arrowSchema(), 7, 7, 7, 7)) {
        v1 = rewriter.columns().writeFragment(1, r, rewriteV);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      long rewritten = rewriter.columns().commit(List.of(v1));
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> ds.columns().commit(List.of(d1))).actual();
      assertThat(e.fragmentId()).isEqualTo(1);
      assertThat(e.getMessage()).contains("input field 'v'").contains("fragment 1").contains("base data file changed");
      assertNothingPublished(rewritten);
      assertThat(latest("v")).isEqualTo(List.of(0, 10, 20, 30, 7, 7, 7, 7));
    }
  }

  public static void e6_concurrentDeleteOfRowsLetsTheDerivedColumnCommit(ScenarioTable t) {
    run(t, s -> s.e6_concurrentDeleteOfRowsLetsTheDerivedColumnCommitBody());
  }

  /** Deleted rows' values are never read again, and the live rows' inputs did not change: accepted. */
  private void e6_concurrentDeleteOfRowsLetsTheDerivedColumnCommitBody() {
    try (Dataset deleter = ds.checkout(ds.version())) {
      ColumnSchema schema = derived(ds, "v");
      StagedColumnWrite w0 = derive(ds, schema, 0);
      StagedColumnWrite w1 = derive(ds, schema, 1);
      deleter.delete(new long[] {RowAddress.of(0, 1), RowAddress.of(1, 3)});
      ds.columns().commit(List.of(w0, w1));
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(latest.countRows()).isEqualTo(6);
      }
      assertThat(latest("d")).isEqualTo(List.of(1, 21, 31, 41, 51, 61));
      assertDerivedEverywhere("v", List.of(0L, 2L, 3L, 4L, 5L, 6L));
    }
  }

  public static void e6_inputDroppedConcurrentlyMakesTheDerivedColumnStale(ScenarioTable t) {
    run(t, s -> s.e6_inputDroppedConcurrentlyMakesTheDerivedColumnStaleBody());
  }

  private void e6_inputDroppedConcurrentlyMakesTheDerivedColumnStaleBody() {
    int v = fieldId("v");
    try (Dataset dropper = ds.checkout(ds.version())) {
      StagedColumnWrite w0 = derive(ds, derived(ds, "v"), 0);
      long dropped = dropper.columns().drop("v");
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> ds.columns().commit(List.of(w0))).actual();
      assertThat(e.fragmentId()).isEqualTo(0);
      assertThat(e.field()).isEqualTo("v");
      assertThat(e.getMessage()).contains("input field 'v' (id " + v + ")").contains("fragment 0").contains("dropped");
      assertNothingPublished(dropped);
    }
  }

  public static void e6_inputRenamedConcurrentlyLetsTheDerivedColumnCommit(ScenarioTable t) {
    run(t, s -> s.e6_inputRenamedConcurrentlyLetsTheDerivedColumnCommitBody());
  }

  /** A rename keeps the field id and every value: the values were computed from the same cells. */
  private void e6_inputRenamedConcurrentlyLetsTheDerivedColumnCommitBody() {
    try (Dataset renamer = ds.checkout(ds.version())) {
      ColumnSchema schema = derived(ds, "v");
      StagedColumnWrite w0 = derive(ds, schema, 0);
      StagedColumnWrite w1 = derive(ds, schema, 1);
      renamer.columns().rename("v", "tens");
      ds.columns().commit(List.of(w0, w1));
      assertDerivedEverywhere("tens", ids(0, 8));
      assertThat(latest("d")).isEqualTo(List.of(1, 11, 21, 31, 41, 51, 61, 71));
    }
  }

  public static void e6_structInputBindsEveryMemberAndAChangedMemberIsNamed(ScenarioTable t) {
    run(t, s -> s.e6_structInputBindsEveryMemberAndAChangedMemberIsNamedBody());
  }

  private void e6_structInputBindsEveryMemberAndAChangedMemberIsNamedBody() {
    int x = fieldId("s.x");
    int y = fieldId("s.y");
    try (Dataset updater = ds.checkout(ds.version())) {
      ColumnSchema schema = derived(ds, "s");
      assertThat(schema.inputFieldIds()).isEqualTo(Set.of(x, y));
      StagedColumnWrite w0 = derive(ds, schema, 0, "s.x");
      assertThat(w0.inputFieldIds()).isEqualTo(Set.of(x, y));
      // s.x of id 2 is 6; the update sets it to 99 and a later update back to 6: the cells changed twice.
      updater.update(new long[] {RowAddress.of(0, 2)}, Map.of("s.x", 99));
      long restored = updater.update(new long[] {RowAddress.of(0, 2)}, Map.of("s.x", 6)).version();
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> ds.columns().commit(List.of(w0))).actual();
      assertThat(e.fragmentId()).isEqualTo(0);
      assertThat(e.field()).isEqualTo("s.x");
      assertThat(e.getMessage()).contains("input field 's.x' (id " + x + ")").contains("fragment 0");
      assertNothingPublished(restored);
    }
  }

  public static void e6_manyWorkersOneCommitNamesTheStaleFragmentAndARecomputeCommits(ScenarioTable t) {
    run(t, s -> s.e6_manyWorkersOneCommitNamesTheStaleFragmentAndARecomputeCommitsBody());
  }

  /** Workers in their own handles, results as bytes; the coordinator commits once, then recomputes one fragment. */
  private void e6_manyWorkersOneCommitNamesTheStaleFragmentAndARecomputeCommitsBody() {
    long version = ds.version();
    List<byte[]> received = new ArrayList<>();
    for (long fragment : List.of(0L, 1L)) {
      try (Dataset opened = t.open(); Dataset worker = opened.checkout(version)) {
        received.add(derive(worker, derived(worker, "v"), fragment).encode());
      }
    }
    try (Dataset updater = t.open()) {
      updater.update(new long[] {RowAddress.of(1, 0)}, Map.of("v", 1000));
    }
    try (Dataset coordinator = t.open()) {
      List<StagedColumnWrite> staged = received.stream().map(StagedColumnWrite::decode).toList();
      long before = coordinator.version();
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> coordinator.columns().commit(staged)).actual();
      assertThat(e.fragmentId()).isEqualTo(1);
      assertThat(e.getMessage()).contains("input field 'v'").contains("fragment 1");
      assertNothingPublished(before);
      // The worker of fragment 1 recomputes at the latest version; fragment 0's result still holds.
      StagedColumnWrite again;
      try (Dataset worker = t.open()) {
        again = StagedColumnWrite.decode(derive(worker, derived(worker, "v"), 1).encode());
      }
      assertThat(again.readVersion()).isGreaterThan(version);
      coordinator.columns().commit(List.of(staged.get(0), again));
    }
    assertThat(latest("d")).isEqualTo(List.of(1, 11, 21, 31, 1001, 51, 61, 71));
    assertDerivedEverywhere("v", ids(0, 8));
  }

  public static void e6_inputThatIsAlsoATargetIsBoundOnceAndCommits(ScenarioTable t) {
    run(t, s -> s.e6_inputThatIsAlsoATargetIsBoundOnceAndCommitsBody());
  }

  /** v := v + 1 declares v as target and input; a concurrent update of w does not matter, one of v does. */
  private void e6_inputThatIsAlsoATargetIsBoundOnceAndCommitsBody() {
    int v = fieldId("v");
    try (Dataset other = ds.checkout(ds.version())) {
      ColumnSchema schema = ds.columns().newSchema(List.of(), List.of("v"), List.of("v"));
      assertThat(schema.inputFieldIds()).isEqualTo(Set.of(v));
      StagedColumnWrite w0 = derive(ds, schema, 0);
      StagedColumnWrite w1 = derive(ds, schema, 1);
      ColumnSchema again = other.columns().newSchema(List.of(), List.of("v"), List.of("v"));
      StagedColumnWrite stale = derive(other, again, 0);
      other.update(new long[] {RowAddress.of(1, 1)}, Map.of("w", 1));
      ds.columns().commit(List.of(w0, w1));
      assertThat(latest("v")).isEqualTo(List.of(1, 11, 21, 31, 41, 51, 61, 71));
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> other.columns().commit(List.of(stale))).actual();
      assertThat(e.getMessage()).contains("'v'").contains("fragment 0");
      assertThat(latest("v")).isEqualTo(List.of(1, 11, 21, 31, 41, 51, 61, 71));
    }
  }

  public static void e6_inputChangedWhileTheCommitRetriesIsCaughtOnTheRetry(ScenarioTable t) {
    run(t, s -> s.e6_inputChangedWhileTheCommitRetriesIsCaughtOnTheRetryBody());
  }

  /**
   * The update lands between our read of the latest version and our claim of the next one: the first
   * attempt loses the race, the conflict resolver lets write-columns through (it compares states, not
   * kinds), and the manifest builder's witness check on the retry refuses it.
   */
  private void e6_inputChangedWhileTheCommitRetriesIsCaughtOnTheRetryBody() {
    StagedColumnWrite w1 = derive(ds, derived(ds, "v"), 1);
    long next = ds.version() + 1;
    String claim = ObjectStoreCommitStore.manifestKey(next);
    boolean[] interleaved = new boolean[1];
    try (Dataset updater = ds.checkout(ds.version())) {
      t.faults().schedule((i, op, key) -> null, () -> {
        interleaved[0] = true;
        updater.update(new long[] {RowAddress.of(1, 3)}, Map.of("v", -5));
      });
      t.faults().armOnce(Op.PUT_IF_ABSENT, claim, Fault.INTERLEAVE);
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> ds.columns().commit(List.of(w1))).actual();
      assertThat(interleaved[0]).as("the concurrent update ran inside our first claim").isTrue();
      assertThat(t.faults().calls(Op.PUT_IF_ABSENT)).contains(claim);
      assertThat(e.fragmentId()).isEqualTo(1);
      assertThat(e.getMessage()).contains("input field 'v'").contains("fragment 1");
      assertNothingPublished(next);
    } finally {
      t.faults().schedule((i, op, key) -> null, () -> { });
    }
  }

  public static void e6_inputChangedBetweenTheSchemaVersionAndTheStagingHandleIsRefusedAtStaging(ScenarioTable t) {
    run(t, s -> s.e6_inputChangedBetweenTheSchemaVersionAndTheStagingHandleIsRefusedAtStagingBody());
  }

  /** The worker may have read either version: when the input differs between them, nothing is staged. */
  private void e6_inputChangedBetweenTheSchemaVersionAndTheStagingHandleIsRefusedAtStagingBody() {
    ColumnSchema old = derived(ds, "v");
    try (Dataset updater = ds.checkout(ds.version())) {
      updater.update(new long[] {RowAddress.of(0, 0)}, Map.of("v", 3));
      updater.update(new long[] {RowAddress.of(1, 0)}, Map.of("w", 3));
    }
    try (Dataset worker = t.open()) {
      long files = t.store().listAll("data/").size();
      StaleColumnWriteException e =
          assertThatExceptionOfType(StaleColumnWriteException.class).isThrownBy(() -> derive(worker, old, 0)).actual();
      assertThat(e.getMessage()).contains("input field 'v'").contains("fragment 0")
          .contains("version " + old.readVersion()).contains("version " + worker.version());
      assertThat(t.store().listAll("data/").size()).isEqualTo(files);
      // Fragment 1's v did not change between the two versions: staging it with the old schema is fine.
      StagedColumnWrite w1 = derive(worker, old, 1);
      StagedColumnWrite w0 = derive(worker, derived(worker, "v"), 0);
      worker.columns().commit(List.of(w0, w1));
    }
    assertThat(latest("d")).isEqualTo(List.of(4, 11, 21, 31, 41, 51, 61, 71));
    assertDerivedEverywhere("v", ids(0, 8));
  }

  public static void e6_encodedWriteKeepsItsInputsAcrossDatasetInstances(ScenarioTable t) {
    run(t, s -> s.e6_encodedWriteKeepsItsInputsAcrossDatasetInstancesBody());
  }

  private void e6_encodedWriteKeepsItsInputsAcrossDatasetInstancesBody() {
    ds.update(new long[] {RowAddress.of(0, 3)}, Map.of("v", 33)); // an overlay in the input witness
    byte[] bytes;
    StagedColumnWrite staged;
    try (Dataset worker = t.open()) {
      staged = derive(worker, derived(worker, "v", "s"), 0);
      bytes = staged.encode();
    }
    try (Dataset coordinator = t.open()) {
      StagedColumnWrite decoded = StagedColumnWrite.decode(bytes);
      assertThat(decoded).isEqualTo(staged);
      assertThat(Arrays.equals(bytes, decoded.encode())).as("decode then encode gives the same bytes").isTrue();
      assertThat(decoded.inputFieldIds()).isEqualTo(Set.of(fieldId("v"), fieldId("s.x"), fieldId("s.y")));
      assertThat(inputWitness(decoded)).isEqualTo(inputWitness(staged));
      int v = fieldId("v");
      assertThat(inputWitness(decoded).stream().filter(b -> b.fieldId() == v).findFirst().orElseThrow()
          .overlays().size()).as("the input witness holds v's overlay").isEqualTo(1);
      coordinator.columns().commit(List.of(decoded));
    }
    assertThat(latest("d")).isEqualTo(Arrays.asList(1, 11, 21, 34, null, null, null, null));
  }

  // ------------------------------------------------------------------ reading back

  /** An int column (or dotted struct member) of the latest version, every live row in scan order. */
  private List<Integer> latest(String path) {
    try (Dataset latest = ds.checkoutLatest()) {
      return io.quiver.dataset.StagedColumnSupport.column(latest, path);
    }
  }

  private static List<io.quiver.internal.txn.FieldBacking> inputWitness(StagedColumnWrite w) {
    return io.quiver.internal.codec.StagedWriteCodec.decode(w.encode()).write().inputs().stream()
        .map(io.quiver.internal.txn.Operation.ColumnInput::backing).toList();
  }
}
