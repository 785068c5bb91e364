package io.quiver.conformance.broken;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.internal.codec.BrokenCodec;
import io.quiver.scenario.DataLossScenarios;
import io.quiver.scenario.ScenarioTable;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStore;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * Catalogue section F has teeth: each F scenario, run with a broken step (a rewrite, upsert, retry, cleanup or
 * delete shaped like a bug another format shipped) or on a broken store, fails where the bug loses or invents
 * data. The same scenarios with Quiver's own steps on the intact stores pass in the matrix
 * ({@code CatalogueScenariosTest}, {@code CatalogueScenariosIT}) and in format-core ({@code DataLossScenariosTest}).
 */
class BrokenDataLossIsCaughtTest {
  /** Runs {@code scenario} on a fresh memory store seen through {@code broken}, with a leak-checking allocator. */
  private static void onMemory(UnaryOperator<ObjectStore> broken, Consumer<ScenarioTable> scenario) {
    try (RootAllocator allocator = new RootAllocator();
        ScenarioTable t = ScenarioTable.on(broken.apply(new MemoryObjectStore("memory://broken-f")), allocator)) {
      scenario.accept(t);
    }
  }

  private static void onMemory(Consumer<ScenarioTable> scenario) {
    onMemory(UnaryOperator.identity(), scenario);
  }

  @Test
  void f1_aCompactionCommittedAsAnOverwriteFromTheLatestBringsDeletedRowsBack() {
    assertThatThrownBy(() -> onMemory(t -> DataLossScenarios.f1(t, BrokenDataLossSteps.OVERWRITE_FROM_LATEST)))
        .isInstanceOf(AssertionError.class).hasMessageContaining("deleted rows stay deleted");
  }

  @Test
  void f2_aRewriteThatWritesNullsAsEmptyIsCaught() {
    assertThatThrownBy(() -> onMemory(t -> DataLossScenarios.f2(t, BrokenDataLossSteps.NULLS_WRITTEN_AS_EMPTY)))
        .isInstanceOf(AssertionError.class).hasMessageContaining("expected: null").hasMessageContaining("but was: []");
  }

  @Test
  void f3_checkThenAppendUpsertsDuplicateANewKey() {
    assertThatThrownBy(() -> onMemory(t -> DataLossScenarios.f3(t, BrokenDataLossSteps.CHECK_THEN_APPEND)))
        .isInstanceOf(AssertionError.class).hasMessageContaining("every key once");
  }

  @Test
  void f4_aRetryWithTheHalfConsumedInputCommitsFewerRows() {
    assertThatThrownBy(() -> onMemory(t -> DataLossScenarios.f4(t, BrokenDataLossSteps.RETRY_WITH_THE_SAME_INPUT)))
        .isInstanceOf(AssertionError.class).hasMessageContaining("all 120 rows or none");
  }

  @Test
  void f5_anOrphanSweepRootedAtItsHandleDeletesTheTaggedVersionsFiles() {
    assertThatThrownBy(() -> onMemory(t -> DataLossScenarios.f5(t, BrokenDataLossSteps.rootedAtTheHandle(t.store()))))
        .hasMessageContaining("tagged version");
  }

  @Test
  void f6_aSweepAfterAFailedChangeDeletesAnotherWritersFiles() {
    assertThatThrownBy(() -> onMemory(t -> DataLossScenarios.f6(t, BrokenDataLossSteps.SWEEP_UNREFERENCED_FILES)))
        .isInstanceOf(AssertionError.class).hasMessageContaining("the other writer's are all there");
  }

  @Test
  void f7_aTwoCommitRewriteThatDiesBetweenThemDoublesRows() {
    assertThatThrownBy(() -> onMemory(t -> DataLossScenarios.f7(t, BrokenDataLossSteps.TWO_COMMIT_REWRITE)))
        .isInstanceOf(AssertionError.class).hasMessageContaining("each live row once");
  }

  @Test
  void f8_replacingRowsDeletedByKeyAfterTheirAppendAreLost() {
    assertThatThrownBy(() -> onMemory(t -> DataLossScenarios.f8(t, BrokenDataLossSteps.APPEND_THEN_DELETE_BY_KEY)))
        .isInstanceOf(AssertionError.class).hasMessageContaining("each replaced row once");
  }

  @Test
  void f9_anUnconditionalClaimBehindALaggingListingLosesACommit() {
    assertThatThrownBy(() -> onMemory(s -> new BrokenDataLossStores.UnconditionalAbove(s, -1),
        DataLossScenarios::f9_laggingListingsAndMetadataCleanupNeverLoseAVersion))
        .isInstanceOf(AssertionError.class).hasMessageContaining("expected: 8");
  }

  @Test
  void f10_anUntypedErrorForAShortReadIsCaught() {
    assertThatThrownBy(() -> onMemory(t -> DataLossScenarios.f10(t, BrokenDataLossStores.UntypedShortReads::new)))
        .isInstanceOf(AssertionError.class).hasMessageContaining("IllegalStateException");
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.FieldSource("io.quiver.scenario.DataLossScenarios#PARTIAL_READS")
  void f10_aReaderThatTrustsAWellFormedButPartialManifestPublishesItAndLosesRows(String partial) {
    // Quiver's reader for every other read of the scenario; the one that trusts any payload for this one.
    assertThatThrownBy(() -> onMemory(t -> DataLossScenarios.partialManifestReadsOfF10(t, (what, commit) -> {
      if (what.equals(partial)) {
        BrokenCodec.withoutIntegrityChecks(commit);
      } else {
        commit.run();
      }
    }))).isInstanceOf(AssertionError.class)
        .hasMessageContaining(partial.startsWith("a segment ")
            // A fragment list is indexed by what the root says of its segments, so a short segment trusted as
            // whole breaks it (an untyped ConcurrentModificationException in the delete's scan) before any commit.
            ? "a commit on " + partial + " fails typed"
            : "every row of every acknowledged commit is still there after a writer read " + partial);
  }

  @Test
  void f11_aClaimThatIsUnconditionalAboveTheSinglePutThresholdLosesTheWinnersVersion() {
    assertThatThrownBy(() -> onMemory(s -> new BrokenDataLossStores.UnconditionalAbove(s, 16 * 1024),
        t -> DataLossScenarios.f11_largeVersionFilesKeepTheirClaimConditional(t, 16 * 1024)))
        .isInstanceOf(AssertionError.class).hasMessageContaining("expected: 3");
  }

  @Test
  void f12_anAdapterThatAssumesItWonATimedOutClaimLosesTheCommit() {
    // Version 5 is the claim the writer repeats after its ambiguous claim of case 3 was read back as absent.
    assertThatThrownBy(() -> onMemory(s -> new BrokenDataLossStores.AssumesWonOnTimeout(s, 5),
        DataLossScenarios::f12_anAmbiguousClaimIsSettledByReadBackNeverAssumed))
        .isInstanceOf(AssertionError.class).hasMessageContaining("expected: 7");
  }

  @Test
  void f13_aDeleteOfTheFirstMatchLeavesDuplicatesOfTheKey() {
    assertThatThrownBy(() -> onMemory(t -> DataLossScenarios.f13(t, BrokenDataLossSteps.FIRST_MATCH_ONLY)))
        .isInstanceOf(AssertionError.class).hasMessageContaining("every row with the key is deleted");
  }
}
