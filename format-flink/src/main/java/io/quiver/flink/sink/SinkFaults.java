package io.quiver.flink.sink;

/**
 * Test-only failure and breakage injection for the sinks: the points where {@link CheckpointCommitter} and {@link
 * UpsertWriter} consult {@link #current()}. Production never sets it (the default does nothing and breaks nothing); the process
 * kill suites set it in their child JVM, through the test sources' {@code ProcessFaults}, to crash the job at an
 * exact point (right after a table commit, before Flink learns of it) and to run a deliberately broken sink the
 * suites must catch.
 */
interface SinkFaults {
  SinkFaults NONE = new SinkFaults() {};

  /** The committer committed checkpoint {@code checkpoint} of {@code applicationId} as {@code version}. */
  default void afterTableCommit(String applicationId, long checkpoint, long version) {}

  /**
   * True for the broken sink: every committable is committed again as if new, without the ledger (no watermark
   * check, no application sequence), as a sink without an idempotence ledger would.
   */
  default boolean ledgerIgnored() {
    return false;
  }

  /**
   * True for the broken upsert sink: within a checkpoint the first change of a key wins instead of the last, as
   * a writer that keeps the change it saw first would.
   */
  default boolean firstChangeWins() {
    return false;
  }

  static SinkFaults current() {
    return Holder.faults;
  }

  static void set(SinkFaults faults) {
    Holder.faults = faults == null ? NONE : faults;
  }

  /** Holds the faults (interfaces cannot have mutable static fields). */
  final class Holder {
    private static volatile SinkFaults faults = NONE;

    private Holder() {}
  }
}
