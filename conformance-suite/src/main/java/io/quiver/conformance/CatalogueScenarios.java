package io.quiver.conformance;

import io.quiver.scenario.CheckpointScenarios;
import io.quiver.scenario.CommitScenarios;
import io.quiver.scenario.DataLossScenarios;
import io.quiver.scenario.DerivedColumnScenarios;
import io.quiver.scenario.ExactlyOnceScenarios;
import io.quiver.scenario.RowIdScenarios;
import io.quiver.scenario.ScenarioTable;
import io.quiver.scenario.StagedColumnScenarios;
import io.quiver.scenario.StructValidityScenarios;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/**
 * Every scenario of the race catalogue (design/RACE-CATALOGUE.md) on one store. The scenario bodies live
 * in format-core's test-jar ({@code io.quiver.scenario}), shared with format-core's own tests; each runs on
 * a fresh table of {@link #fixture()} with a leak-checking allocator, and ends by validating the table
 * and scanning every field of its latest version. The test names start with the scenario id, which the
 * {@link ConformanceReportListener} turns into docs/conformance.md.
 *
 * <p>A store gets the suite through {@link OnStores} on a subclass (or {@link StoreConformance}).
 */
public abstract class CatalogueScenarios extends StoreSuite {
  private void run(Consumer<ScenarioTable> scenario) {
    run(fixture().storeOptions(), scenario);
  }

  private void run(Map<String, String> storeOptions, Consumer<ScenarioTable> scenario) {
    StoreFixture fixture = fixture();
    try (RootAllocator allocator = new RootAllocator()) { // close fails the test on a leaked buffer
      try (ScenarioTable table = ScenarioTable.on(fixture.newTableUri(), storeOptions, allocator)) {
        scenario.accept(table);
      }
    }
  }

  // E7: struct validity (StructValidityScenarios)

  @Test
  void e7_stagedWriteOfEachMemberKeepsStructNulls() {
    run(StructValidityScenarios::e7_stagedWriteOfEachMemberKeepsStructNulls);
  }

  @Test
  void e7_replaceColumnsOfEachMemberKeepsStructNulls() {
    run(StructValidityScenarios::e7_replaceColumnsOfEachMemberKeepsStructNulls);
  }

  @Test
  void e7_membersRewrittenWithOverlaysOnMembersAgreeBeforeAndAfterCompaction() {
    run(StructValidityScenarios::e7_membersRewrittenWithOverlaysOnMembersAgreeBeforeAndAfterCompaction);
  }

  @Test
  void e7_workerBatchWithoutStructNullsDoesNotUnNull() {
    run(StructValidityScenarios::e7_workerBatchWithoutStructNullsDoesNotUnNull);
  }

  @Test
  void e7_wholeStructWriteChangesValidity() {
    run(StructValidityScenarios::e7_wholeStructWriteChangesValidity);
  }

  @Test
  void e7_validateReportsStructValidityThatDisagreesBetweenFiles() {
    run(StructValidityScenarios::e7_validateReportsStructValidityThatDisagreesBetweenFiles);
  }

  @Test
  void a1_shortStreamIsRejectedAtWriteTimeAndItsFileDeleted() {
    run(StagedColumnScenarios::a1_shortStreamIsRejectedAtWriteTimeAndItsFileDeleted);
  }

  @Test
  void a2_longStreamIsRejectedAtWriteTimeAndItsFileDeleted() {
    run(StagedColumnScenarios::a2_longStreamIsRejectedAtWriteTimeAndItsFileDeleted);
  }

  @Test
  void a3_twoStaleHandlesAllocateTheSameIdForDifferentFields() {
    run(StagedColumnScenarios::a3_twoStaleHandlesAllocateTheSameIdForDifferentFields);
  }

  @Test
  void a4_twoResultsForOneFragmentWithDifferentColumnsAreBothApplied() {
    run(StagedColumnScenarios::a4_twoResultsForOneFragmentWithDifferentColumnsAreBothApplied);
  }

  @Test
  void a5_declaredFieldIdsNotInTheStagedFileAreRejectedBeforeCommit() {
    run(StagedColumnScenarios::a5_declaredFieldIdsNotInTheStagedFileAreRejectedBeforeCommit);
  }

  @Test
  void a6_sameIdDeclaredWithAnotherPhysicalTypeIsRejected() {
    run(StagedColumnScenarios::a6_sameIdDeclaredWithAnotherPhysicalTypeIsRejected);
  }

  @Test
  void a7_nestedStructStagedByItsWriterCommitsAndRoundTrips() {
    run(StagedColumnScenarios::a7_nestedStructStagedByItsWriterCommitsAndRoundTrips);
  }

  @Test
  void a8_staleNonNullableColumnIsRejectedAfterAConcurrentAppend() {
    run(StagedColumnScenarios::a8_staleNonNullableColumnIsRejectedAfterAConcurrentAppend);
  }

  @Test
  void a9_staleReplacementFailsAfterAConcurrentOverlayOnTheField() {
    run(StagedColumnScenarios::a9_staleReplacementFailsAfterAConcurrentOverlayOnTheField);
  }

  @Test
  void a10_replacementAfterAnOlderOverlayIsAuthoritative() {
    run(StagedColumnScenarios::a10_replacementAfterAnOlderOverlayIsAuthoritative);
  }

  @Test
  void a11_twoRewritesOfAPresentFieldFromOneSnapshot() {
    run(StagedColumnScenarios::a11_twoRewritesOfAPresentFieldFromOneSnapshot);
  }

  @Test
  void a12_absenceIsPartOfTheWitness() {
    run(StagedColumnScenarios::a12_absenceIsPartOfTheWitness);
  }

  @Test
  void a13_overlayCoverageChangedUnderTheSamePathMakesTheReplacementStale() {
    run(StagedColumnScenarios::a13_overlayCoverageChangedUnderTheSamePathMakesTheReplacementStale);
  }

  @Test
  void a14_baseColumnMappingChangedUnderTheSamePathMakesTheReplacementStale() {
    run(StagedColumnScenarios::a14_baseColumnMappingChangedUnderTheSamePathMakesTheReplacementStale);
  }

  @Test
  void a15_compactionOfTheTargetFragmentMakesTheReplacementStale() {
    run(StagedColumnScenarios::a15_compactionOfTheTargetFragmentMakesTheReplacementStale);
  }

  @Test
  void a16_sameFreshFieldStagedByTwoStaleHandlesWithDifferentValuesOrNullability() {
    run(StagedColumnScenarios::a16_sameFreshFieldStagedByTwoStaleHandlesWithDifferentValuesOrNullability);
  }

  @Test
  void a17_reservedSystemNamesAreRejectedAtSchemaCreationAndAtCommit() {
    run(StagedColumnScenarios::a17_reservedSystemNamesAreRejectedAtSchemaCreationAndAtCommit);
  }

  @Test
  void a18_fragmentWithDeletedRowsNeedsEveryPhysicalRowAndDeletedRowsStayDeleted() {
    run(StagedColumnScenarios::a18_fragmentWithDeletedRowsNeedsEveryPhysicalRowAndDeletedRowsStayDeleted);
  }

  @Test
  void b1_concurrentAppendsAllLandAtDistinctVersions() {
    run(CommitScenarios::b1_concurrentAppendsAllLandAtDistinctVersions);
  }

  @Test
  void b2_ambiguousAcknowledgementIsRecognisedAsOurOwnCommit() {
    run(CommitScenarios::b2_ambiguousAcknowledgementIsRecognisedAsOurOwnCommit);
  }

  @Test
  void b3_crashBeforeCommitLeavesOrphansThatOnlyCleanupAfterTheSafetyWindowRemoves() {
    run(CommitScenarios::b3_crashBeforeCommitLeavesOrphansThatOnlyCleanupAfterTheSafetyWindowRemoves);
  }

  @Test
  void b4_crashAfterCommittingThenRetryWithTheSameKeyDoesNotCommitTwice() {
    run(CommitScenarios::b4_crashAfterCommittingThenRetryWithTheSameKeyDoesNotCommitTwice);
  }

  @Test
  void b5_deletesOfDisjointRowsInOneFragmentAreBothKept() {
    run(CommitScenarios::b5_deletesOfDisjointRowsInOneFragmentAreBothKept);
  }

  @Test
  void b6_deletesOfTheSameRowsNeverResurrectARow() {
    run(CommitScenarios::b6_deletesOfTheSameRowsNeverResurrectARow);
  }

  @Test
  void b7_appendAfterAConcurrentOverwriteIsIncompatibleAndCommitsNothing() {
    run(CommitScenarios::b7_appendAfterAConcurrentOverwriteIsIncompatibleAndCommitsNothing);
  }

  @Test
  void b7_overwriteAfterAConcurrentAppendIsRetryableAndDiscardsNothing() {
    run(CommitScenarios::b7_overwriteAfterAConcurrentAppendIsRetryableAndDiscardsNothing);
  }

  @Test
  void b8_restoreRacingAnAppendNeverSilentlyLosesAWrite() {
    run(CommitScenarios::b8_restoreRacingAnAppendNeverSilentlyLosesAWrite);
  }

  @Test
  void b9_commitWithAReadVersionOlderThanTheOldestRetainedVersionFailsClearly() {
    run(CommitScenarios::b9_commitWithAReadVersionOlderThanTheOldestRetainedVersionFailsClearly);
  }

  @Test
  void c1_tableCommitFailed_jobRetries_stagedResultsCommittedOnceWithoutRerunningWorkers() {
    run(CheckpointScenarios::c1_tableCommitFailed_jobRetries_stagedResultsCommittedOnceWithoutRerunningWorkers);
  }

  @Test
  void c2_commitSucceeded_markingFailed_retryFindsTheKeyAndOnlyMarks() {
    run(CheckpointScenarios::c2_commitSucceeded_markingFailed_retryFindsTheKeyAndOnlyMarks);
  }

  @Test
  void c3_aReusedKeyWithDifferentContentIsATypedErrorNotASilentSkip() {
    run(CheckpointScenarios::c3_aReusedKeyWithDifferentContentIsATypedErrorNotASilentSkip);
  }

  @Test
  void c4_checkpointedOverwriteIsRejectedUpFront() {
    run(CheckpointScenarios::c4_checkpointedOverwriteIsRejectedUpFront);
  }

  @Test
  void e1_aKeyedAppendRetriedByARestartedProcessIsRecognisedAsCommitted() {
    run(ExactlyOnceScenarios::e1_aKeyedAppendRetriedByARestartedProcessIsRecognisedAsCommitted);
  }

  @Test
  void e2_aKeyedRetryAfterTwentyCommitsAndACleanupToTheLatestIsRecognised() {
    run(ExactlyOnceScenarios::e2_aKeyedRetryAfterTwentyCommitsAndACleanupToTheLatestIsRecognised);
  }

  @Test
  void e3_aReusedKeyWithDifferentRowsFailsFromAnyVersion() {
    run(ExactlyOnceScenarios::e3_aReusedKeyWithDifferentRowsFailsFromAnyVersion);
  }

  @Test
  void e4_checkpointCommittedButNotMarkedThenCleanupRecoversThroughTheLedger() {
    run(ExactlyOnceScenarios::e4_checkpointCommittedButNotMarkedThenCleanupRecoversThroughTheLedger);
  }

  @Test
  void e5_applicationSequencesAtOrBelowTheWatermarkAreSkipped() {
    run(ExactlyOnceScenarios::e5_applicationSequencesAtOrBelowTheWatermarkAreSkipped);
  }

  // ---- E6: staged columns computed from inputs that change before the commit (DerivedColumnScenarios)

  @Test
  void e6_concurrentUpdateOfAnInputCellMakesTheDerivedColumnStale() {
    run(DerivedColumnScenarios::e6_concurrentUpdateOfAnInputCellMakesTheDerivedColumnStale);
  }

  @Test
  void e6_concurrentUpdateOfAnUnrelatedColumnLetsTheDerivedColumnCommit() {
    run(DerivedColumnScenarios::e6_concurrentUpdateOfAnUnrelatedColumnLetsTheDerivedColumnCommit);
  }

  @Test
  void e6_concurrentReplacementOfAnInputMakesTheDerivedColumnStale() {
    run(DerivedColumnScenarios::e6_concurrentReplacementOfAnInputMakesTheDerivedColumnStale);
  }

  @Test
  void e6_concurrentStagedRewriteOfAnInputMakesTheDerivedColumnStale() {
    run(DerivedColumnScenarios::e6_concurrentStagedRewriteOfAnInputMakesTheDerivedColumnStale);
  }

  @Test
  void e6_concurrentDeleteOfRowsLetsTheDerivedColumnCommit() {
    run(DerivedColumnScenarios::e6_concurrentDeleteOfRowsLetsTheDerivedColumnCommit);
  }

  @Test
  void e6_inputDroppedConcurrentlyMakesTheDerivedColumnStale() {
    run(DerivedColumnScenarios::e6_inputDroppedConcurrentlyMakesTheDerivedColumnStale);
  }

  @Test
  void e6_inputRenamedConcurrentlyLetsTheDerivedColumnCommit() {
    run(DerivedColumnScenarios::e6_inputRenamedConcurrentlyLetsTheDerivedColumnCommit);
  }

  @Test
  void e6_structInputBindsEveryMemberAndAChangedMemberIsNamed() {
    run(DerivedColumnScenarios::e6_structInputBindsEveryMemberAndAChangedMemberIsNamed);
  }

  @Test
  void e6_manyWorkersOneCommitNamesTheStaleFragmentAndARecomputeCommits() {
    run(DerivedColumnScenarios::e6_manyWorkersOneCommitNamesTheStaleFragmentAndARecomputeCommits);
  }

  @Test
  void e6_inputThatIsAlsoATargetIsBoundOnceAndCommits() {
    run(DerivedColumnScenarios::e6_inputThatIsAlsoATargetIsBoundOnceAndCommits);
  }

  @Test
  void e6_inputChangedWhileTheCommitRetriesIsCaughtOnTheRetry() {
    run(DerivedColumnScenarios::e6_inputChangedWhileTheCommitRetriesIsCaughtOnTheRetry);
  }

  @Test
  void e6_inputChangedBetweenTheSchemaVersionAndTheStagingHandleIsRefusedAtStaging() {
    run(DerivedColumnScenarios::e6_inputChangedBetweenTheSchemaVersionAndTheStagingHandleIsRefusedAtStaging);
  }

  @Test
  void e6_encodedWriteKeepsItsInputsAcrossDatasetInstances() {
    run(DerivedColumnScenarios::e6_encodedWriteKeepsItsInputsAcrossDatasetInstances);
  }

  // ---- F: data-loss classes other formats shipped in 2025-26 (DataLossScenarios)

  @Test
  void f1_compactionPlannedBeforeAConcurrentDeleteNeverBringsDeletedRowsBack() {
    run(DataLossScenarios::f1_compactionPlannedBeforeAConcurrentDeleteNeverBringsDeletedRowsBack);
  }

  @Test
  void f2_compactionKeepsNullAndEmptyStringsAndBinariesApart() {
    run(DataLossScenarios::f2_compactionKeepsNullAndEmptyStringsAndBinariesApart);
  }

  @Test
  void f3_concurrentMergeInsertsOfTheSameNewKeyNeverDuplicateIt() {
    run(DataLossScenarios::f3_concurrentMergeInsertsOfTheSameNewKeyNeverDuplicateIt);
  }

  @Test
  void f4_aRetryNeverCommitsTheRestOfAHalfConsumedInput() {
    run(DataLossScenarios::f4_aRetryNeverCommitsTheRestOfAHalfConsumedInput);
  }

  @Test
  void f5_cleanupKeepsTaggedVersionsAndNeverRootsAtAStaleLatest() {
    run(DataLossScenarios::f5_cleanupKeepsTaggedVersionsAndNeverRootsAtAStaleLatest);
  }

  @Test
  void f6_anAbortedWriteDeletesOnlyTheFilesItWrote() {
    run(DataLossScenarios::f6_anAbortedWriteDeletesOnlyTheFilesItWrote);
  }

  @Test
  void f7_aRewriteKeepsDeletionIdentityRowsNeitherReappearNorDouble() {
    run(DataLossScenarios::f7_aRewriteKeepsDeletionIdentityRowsNeitherReappearNorDouble);
  }

  @Test
  void f8_deletesCommittedWithTheRowsTheyReplaceApplyToTheOldRowsOnly() {
    run(DataLossScenarios::f8_deletesCommittedWithTheRowsTheyReplaceApplyToTheOldRowsOnly);
  }

  @Test
  void f9_laggingListingsAndMetadataCleanupNeverLoseAVersion() {
    run(DataLossScenarios::f9_laggingListingsAndMetadataCleanupNeverLoseAVersion);
  }

  @Test
  void f10_truncatedManifestOrDataReadsFailTypedAndCommitNothing() {
    run(DataLossScenarios::f10_truncatedManifestOrDataReadsFailTypedAndCommitNothing);
  }

  /**
   * With the store options that send large objects in parts (a block list on Azure, a resumable upload on
   * GCS, a multipart upload on S3), so that version files above the threshold take that path if any does.
   */
  @Test
  void f11_largeVersionFilesKeepTheirClaimConditional() {
    Map<String, String> options = new HashMap<>(fixture().storeOptions());
    int threshold = fixture().largeObjects().map(large -> {
      options.putAll(large.options());
      return large.threshold();
    }).orElse(0);
    run(options, t -> DataLossScenarios.f11_largeVersionFilesKeepTheirClaimConditional(t, threshold));
  }

  @Test
  void f12_anAmbiguousClaimIsSettledByReadBackNeverAssumed() {
    run(DataLossScenarios::f12_anAmbiguousClaimIsSettledByReadBackNeverAssumed);
  }

  @Test
  void f13_deleteByKeyRemovesEveryDuplicateAcrossFragments() {
    run(DataLossScenarios::f13_deleteByKeyRemovesEveryDuplicateAcrossFragments);
  }

  // H: history as data, stable row ids and the change feed (RowIdScenarios)

  @Test
  void h1_rowIdsSurviveEveryKindOfCommit() {
    run(RowIdScenarios::h1_rowIdsSurviveEveryKindOfCommit);
  }

  @Test
  void h2_concurrentWritersNeverShareARowId() {
    run(RowIdScenarios::h2_concurrentWritersNeverShareARowId);
  }

  @Test
  void h3_theChangeFeedReplaysBetweenEveryTwoVersions() {
    run(RowIdScenarios::h3_theChangeFeedReplaysBetweenEveryTwoVersions);
  }
}
