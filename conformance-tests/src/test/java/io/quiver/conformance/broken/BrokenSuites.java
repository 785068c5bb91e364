package io.quiver.conformance.broken;

import java.util.List;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs a suite against a deliberately broken variant through the JUnit Platform launcher, on the calling
 * thread. The broken suites are enabled only during such a run ({@link #launching}, their {@code
 * @EnabledIf}), and the run registers no listener of its own: in particular not the
 * {@code ConformanceReportListener}, so a broken variant's failures never reach the conformance table.
 */
final class BrokenSuites {
  private static volatile boolean launching;

  private BrokenSuites() {}

  /** Whether a broken suite is being run by one of these tests; false in an ordinary run. */
  static boolean launching() {
    return launching;
  }

  static synchronized TestExecutionSummary run(List<? extends DiscoverySelector> selectors) {
    SummaryGeneratingListener listener = new SummaryGeneratingListener();
    LauncherConfig config = LauncherConfig.builder().enableTestExecutionListenerAutoRegistration(false).build();
    launching = true;
    try {
      LauncherFactory.create(config)
          .execute(LauncherDiscoveryRequestBuilder.request().selectors(selectors).build(), listener);
    } finally {
      launching = false;
    }
    return listener.getSummary();
  }
}
