package io.quiver.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/** The fault-schedule property ({@link FaultScheduleProperty}, jqwik) on the suite's store. */
public abstract class FaultScheduleSuite extends StoreSuite {
  @Test
  void committedDataIsNeverLostOrDuplicatedAndCleanupLeavesExactlyTheReferencedFiles(TestReporter reporter) {
    PropertyCheck.run(FaultScheduleProperty.class,
        "committedDataIsNeverLostOrDuplicatedAndCleanupLeavesExactlyTheReferencedFiles", fixture(), reporter);
  }
}
