package io.quiver.flink.sink;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sets the sinks' {@link SinkFaults} in a process kill suite's child JVM: a crash at an exact point and the
 * deliberately broken sinks the suites must catch. Once set, for the life of the JVM.
 */
public final class ProcessFaults {
  private ProcessFaults() {}

  /**
   * Sets the faults: the JVM halts with status 137 (as SIGKILL leaves it: no shutdown hook, no finally block) right
   * after its {@code haltAfterCommits}-th table commit when that is above 0, before Flink learns the commit
   * happened; {@code ignoreLedger} runs the broken sink without an idempotence ledger; {@code firstChangeWins} the
   * broken upsert writer that keeps a key's first change of a checkpoint.
   */
  public static void set(int haltAfterCommits, boolean ignoreLedger, boolean firstChangeWins) {
    AtomicInteger commits = new AtomicInteger();
    SinkFaults.set(new SinkFaults() {
      @Override
      public void afterTableCommit(String applicationId, long checkpoint, long version) {
        if (haltAfterCommits > 0 && commits.incrementAndGet() >= haltAfterCommits) {
          System.out.println("HALT after committing checkpoint " + checkpoint + " of " + applicationId + " as version "
              + version);
          System.out.flush();
          Runtime.getRuntime().halt(137);
        }
      }

      @Override
      public boolean ledgerIgnored() {
        return ignoreLedger;
      }

      @Override
      public boolean firstChangeWins() {
        return firstChangeWins;
      }
    });
  }
}
