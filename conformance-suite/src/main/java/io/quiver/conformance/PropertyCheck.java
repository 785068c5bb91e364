package io.quiver.conformance;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.TestReporter;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.reporting.ReportEntry;
import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs one jqwik property of a suite on one store, from a JUnit Jupiter test: the suites are parameterised
 * over stores by JUnit ({@link OnStores}), which jqwik properties cannot be, so the Jupiter test of each
 * property hands its fixture over and runs the property here, through the JUnit Platform launcher with the
 * jqwik engine only, on the calling thread. The property reads the store with {@link #fixture()}; its tries,
 * seed, shrinking and report are jqwik's own, exactly as if jqwik had found it. A failure is rethrown as the
 * failure of the calling test, with the property's message (the shrunk sample and the seed's rerun flags).
 *
 * <p>One check at a time per JVM (the handover is a static field, set only while a check runs).
 */
public final class PropertyCheck {
  private static volatile StoreFixture current;

  private PropertyCheck() {}

  /** The store of the property being checked; only valid inside {@link #run}. */
  public static StoreFixture fixture() {
    StoreFixture fixture = current;
    if (fixture == null) {
      throw new IllegalStateException("no store fixture: this property runs through PropertyCheck.run, from its"
          + " suite's JUnit test on a store");
    }
    return fixture;
  }

  /**
   * Runs the jqwik property {@code property} of {@code container} on {@code fixture}, and fails the calling
   * test if it fails or does not run; jqwik's report entries (tries, checks, seed) go to {@code reporter}.
   */
  public static synchronized void run(Class<?> container, String property, StoreFixture fixture, TestReporter reporter) {
    Method method = Arrays.stream(container.getDeclaredMethods())
        .filter(m -> m.getName().equals(property))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException(container.getName() + " has no property " + property));
    Outcome outcome = new Outcome(reporter);
    current = fixture;
    try {
      LauncherFactory.create(LauncherConfig.builder().enableTestExecutionListenerAutoRegistration(false).build())
          .execute(
              LauncherDiscoveryRequestBuilder.request()
                  .selectors(selectMethod(container, method))
                  .filters(EngineFilter.includeEngines("jqwik"))
                  .build(),
              outcome);
    } finally {
      current = null;
    }
    outcome.rethrow(container.getSimpleName() + "#" + property + " on " + fixture.name(), fixture.name());
  }

  /** The result of the one property the launcher ran. */
  private static final class Outcome implements TestExecutionListener {
    private final TestReporter reporter;
    private final List<TestExecutionResult> results = new ArrayList<>();
    private final List<Throwable> containerFailures = new ArrayList<>();

    Outcome(TestReporter reporter) {
      this.reporter = reporter;
    }

    @Override
    public void reportingEntryPublished(TestIdentifier id, ReportEntry entry) {
      Map<String, String> values = entry.getKeyValuePairs();
      if (reporter != null && !values.isEmpty()) {
        reporter.publishEntry(values);
      }
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
      if (id.isTest()) {
        results.add(result);
      } else if (result.getStatus() == TestExecutionResult.Status.FAILED) {
        containerFailures.add(result.getThrowable().orElse(new AssertionError(id.getDisplayName() + " failed")));
      }
    }

    void rethrow(String what, String store) {
      if (!containerFailures.isEmpty()) {
        throw failure(what + ": the jqwik container failed", store, containerFailures.get(0));
      }
      if (results.size() != 1) {
        throw new AssertionError(what + ": expected jqwik to run one property, it ran " + results.size()
            + " (is the jqwik engine on the test runtime classpath?)");
      }
      TestExecutionResult result = results.get(0);
      switch (result.getStatus()) {
        case SUCCESSFUL:
          return;
        case ABORTED:
          Assumptions.abort(what + " was aborted: " + result.getThrowable().map(Throwable::getMessage).orElse(""));
          return;
        default:
          throw failure(what + " failed", store, result.getThrowable().orElse(null));
      }
    }

    /** The property's failure, its message (shrunk sample, seed, rerun flags) first, and how to pick the store. */
    private static AssertionError failure(String what, String store, Throwable cause) {
      String message = cause == null ? "" : String.valueOf(cause.getMessage());
      return new AssertionError(message + "\n[conformance] " + what + "; to rerun it on this store only, add -D"
          + OnStores.FILTER + "=" + store + " to the flags above and select the suite's test class", cause);
    }
  }
}
