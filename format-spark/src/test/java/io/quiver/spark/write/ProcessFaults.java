package io.quiver.spark.write;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sets the write path's {@link WriteHooks} in a process kill suite's child JVM: a crash at an exact point and the
 * deliberately broken writes the suites must catch. Once set, for the life of the JVM.
 */
public final class ProcessFaults {
  private ProcessFaults() {}

  /**
   * Sets the faults: the JVM halts with status 137 (as SIGKILL leaves it: no shutdown hook, no finally block) right
   * after its {@code haltAfterCommits}-th table commit when that is above 0, before Spark records the commit;
   * {@code ignoreLedger} runs the broken streaming write without an idempotence ledger; {@code commitEachTask} the
   * broken batch write whose tasks commit their own files.
   */
  public static void set(int haltAfterCommits, boolean ignoreLedger, boolean commitEachTask) {
    AtomicInteger commits = new AtomicInteger();
    WriteHooks.set(new WriteHooks() {
      @Override
      public void afterTableCommit(String key, long version) {
        if (haltAfterCommits > 0 && commits.incrementAndGet() >= haltAfterCommits) {
          System.out.println("HALT after committing " + key + " as version " + version);
          System.out.flush();
          Runtime.getRuntime().halt(137);
        }
      }

      @Override
      public boolean ledgerIgnored() {
        return ignoreLedger;
      }

      @Override
      public boolean commitsEachTask() {
        return commitEachTask;
      }
    });
  }
}
