package io.quiver.dataset;

import io.quiver.scenario.ExactlyOnceScenarios;
import io.quiver.scenario.ScenarioTable;
import io.quiver.store.MemoryObjectStore;
import java.util.function.Consumer;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/** Catalogue E1-E5 on the memory store; conformance-tests runs the same bodies on every store fixture. */
class ExactlyOnceTest {
  private static void run(Consumer<ScenarioTable> scenario) {
    try (RootAllocator allocator = new RootAllocator();
        ScenarioTable t = ScenarioTable.on(new MemoryObjectStore("memory://e"), allocator)) {
      scenario.accept(t);
    }
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
}
