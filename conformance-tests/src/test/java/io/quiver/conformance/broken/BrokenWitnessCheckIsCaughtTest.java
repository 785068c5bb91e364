package io.quiver.conformance.broken;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import io.quiver.conformance.CatalogueScenarios;
import io.quiver.internal.txn.BrokenWitnessCheck;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.discovery.MethodSelector;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The catalogue has teeth against a broken commit path: with the witness check of staged column writes
 * skipped ({@link BrokenWitnessCheck}, on this thread only and only while the launched run lasts), the
 * A-scenarios whose stale write would otherwise commit over a newer value fail, because the stale write
 * committed where they expect a {@code StaleColumnWriteException}; every other A-scenario (their stale
 * writes are caught by the contract, fragment and id checks that still run) passes. The same scenarios
 * all pass with the check in place, run after the broken run (so the switch is back).
 */
class BrokenWitnessCheckIsCaughtTest {
  /**
   * The scenarios only the witness can catch: a replacement staged before a concurrent overlay on the field
   * (A9), two rewrites of one field from one snapshot (A11), a field absent when staged and written since
   * (A12), an overlay's coverage (A13) or a base column mapping (A14) changed under the same path.
   */
  private static final List<String> CAUGHT_ONLY_BY_THE_WITNESS = List.of(
      "a9_staleReplacementFailsAfterAConcurrentOverlayOnTheField",
      "a11_twoRewritesOfAPresentFieldFromOneSnapshot",
      "a12_absenceIsPartOfTheWitness",
      "a13_overlayCoverageChangedUnderTheSamePathMakesTheReplacementStale",
      "a14_baseColumnMappingChangedUnderTheSamePathMakesTheReplacementStale");

  @Test
  void staleColumnWritesCommitWithoutTheWitnessCheckAndTheAScenariosCatchThem() {
    List<MethodSelector> aScenarios = aScenarios();
    TestExecutionSummary[] broken = new TestExecutionSummary[1];
    BrokenWitnessCheck.run(() -> broken[0] = BrokenSuites.run(aScenarios));
    assertThat(BrokenWitnessCheck.active()).as("the witness check is back after the broken run").isFalse();
    Map<String, String> failed = failures(broken[0]);
    assertThat(failed.keySet()).as("A-scenarios failing without the witness check")
        .containsExactlyInAnyOrderElementsOf(CAUGHT_ONLY_BY_THE_WITNESS);
    assertThat(failed.values()).as("each fails because the stale write was committed")
        .allMatch(why -> why.contains("Expecting code to raise a throwable"));
    assertThat(broken[0].getTestsSucceededCount()).isEqualTo(aScenarios.size() - CAUGHT_ONLY_BY_THE_WITNESS.size());

    TestExecutionSummary intact = BrokenSuites.run(aScenarios);
    assertThat(failures(intact)).as("the same scenarios with the witness check").isEmpty();
    assertThat(intact.getTestsSucceededCount()).isEqualTo(aScenarios.size());
  }

  @Test
  void theSwitchHoldsOnlyOnItsThreadAndOnlyUntilItsRunEndsEvenByAnException() throws Exception {
    assertThat(BrokenWitnessCheck.active()).isFalse();
    boolean[] inside = new boolean[2];
    RuntimeException boom = new IllegalStateException("boom");
    assertThatThrownBy(() -> BrokenWitnessCheck.run(() -> {
      inside[0] = BrokenWitnessCheck.active();
      Thread other = new Thread(() -> inside[1] = BrokenWitnessCheck.active());
      other.start();
      try {
        other.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw boom;
    })).isSameAs(boom);
    assertThat(inside[0]).as("skipped on the running thread").isTrue();
    assertThat(inside[1]).as("checked on any other thread").isFalse();
    assertThat(BrokenWitnessCheck.active()).as("reset after the run threw").isFalse();
  }

  /** Every A-scenario of the catalogue, on the memory fixture. */
  private static List<MethodSelector> aScenarios() {
    List<MethodSelector> selectors = Arrays.stream(CatalogueScenarios.class.getDeclaredMethods())
        .map(Method::getName)
        .filter(name -> name.matches("a\\d+_\\w+"))
        .sorted()
        .map(name -> selectMethod(WitnessCheckSkippedScenarios.class, name))
        .toList();
    assertThat(selectors).as("A1-A18").hasSizeGreaterThanOrEqualTo(18);
    return selectors;
  }

  /** Failed test name to its failure. */
  private static Map<String, String> failures(TestExecutionSummary summary) {
    Map<String, String> out = new TreeMap<>();
    summary.getFailures().forEach(f ->
        out.put(f.getTestIdentifier().getDisplayName().replace("()", ""), String.valueOf(f.getException())));
    return out;
  }
}
