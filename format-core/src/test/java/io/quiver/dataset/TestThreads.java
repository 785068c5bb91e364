package io.quiver.dataset;

import java.util.ArrayList;
import java.util.List;

/** Thread checks for the tests of scans that start threads of their own. */
final class TestThreads {
  private TestThreads() {}

  /**
   * The threads named {@code prefix...} still alive after a bounded join of each: a thread pool reports
   * termination from inside its last worker, which may still be alive for a moment after {@code
   * awaitTermination} (and so a scan's {@code close}) returns.
   */
  static List<Thread> aliveAfterJoin(String prefix) {
    List<Thread> alive = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith(prefix)) {
        try {
          t.join(10_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        if (t.isAlive()) {
          alive.add(t);
        }
      }
    }
    return alive;
  }
}
