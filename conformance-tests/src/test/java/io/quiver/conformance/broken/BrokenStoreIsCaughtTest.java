package io.quiver.conformance.broken;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The suite has teeth: run against a deliberately broken store, it reports failures. Runs the store
 * contract programmatically (JUnit Platform launcher) on {@link NonAtomicPutIfAbsentStore} and expects the
 * putIfAbsent race test to fail, while the rest of the contract (which a lone caller cannot tell apart
 * from a correct store) still passes.
 */
class BrokenStoreIsCaughtTest {

  @Test
  void nonAtomicPutIfAbsentFailsTheStoreContract() {
    TestExecutionSummary summary = BrokenSuites.run(List.of(selectClass(NonAtomicPutIfAbsentContract.class)));
    List<String> failed = summary.getFailures().stream()
        .map(f -> f.getTestIdentifier().getDisplayName())
        .toList();
    assertThat(failed)
        .as("the contract must catch a check-then-write putIfAbsent")
        .anyMatch(name -> name.startsWith("putIfAbsentHasExactlyOneWinnerAmongRacingThreads"));
    assertThat(summary.getFailures().stream()
            .filter(f -> f.getTestIdentifier().getDisplayName().startsWith("putIfAbsentHasExactlyOne"))
            .map(f -> String.valueOf(f.getException().getMessage())))
        .as("it fails because two racers were both told CREATED")
        .anyMatch(message -> message.contains("winners"));
    assertThat(summary.getTestsSucceededCount())
        .as("the rest of the contract still ran and passed: the failure is specific, not a broken fixture")
        .isGreaterThan(10);
  }
}
