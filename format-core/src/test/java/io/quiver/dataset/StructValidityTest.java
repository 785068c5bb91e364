package io.quiver.dataset;

import io.quiver.scenario.ScenarioTable;
import io.quiver.scenario.StructValidityScenarios;
import io.quiver.store.MemoryObjectStore;
import java.util.function.Consumer;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/**
 * Scenario E7 (struct validity that every projection, take, overlay merge and compaction agree on) on the
 * memory store; conformance-tests runs the same bodies on every store fixture.
 */
class StructValidityTest {
  private static void run(Consumer<ScenarioTable> scenario) {
    try (RootAllocator allocator = new RootAllocator(); // close fails the test on a leaked buffer
        ScenarioTable table = ScenarioTable.on(new MemoryObjectStore("mem://e7"), allocator)) {
      scenario.accept(table);
    }
  }

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
}
