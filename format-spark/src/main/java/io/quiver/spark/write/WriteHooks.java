package io.quiver.spark.write;

import java.util.List;

/**
 * Test-only failure injection: the points where the write path consults {@link #current()}. Production never
 * sets it (the default does nothing and breaks nothing); tests in this package set it to make a task fail after
 * its files are written, or the driver fail before or after its table commit, deterministically, and the process
 * kill suites (through the test sources' {@code ProcessFaults}) to run deliberately broken writes they must catch.
 */
interface WriteHooks {
  WriteHooks NONE = new WriteHooks() {};

  /** A data writer wrote {@code files} (all of them) and is about to return its commit message. */
  default void afterFilesWritten(int partitionId, int attemptNumber, long epochId, List<String> files) {}

  /** The driver is about to commit under {@code key} (results read at {@code readVersion}). */
  default void beforeTableCommit(String key, long readVersion) {}

  /** The driver committed {@code key} as {@code version} (or found it committed). */
  default void afterTableCommit(String key, long version) {}

  /**
   * True for the broken streaming write: each epoch is committed as new, without the ledger (no watermark check,
   * no application sequence, no idempotence key), as a sink without an idempotence ledger would.
   */
  default boolean ledgerIgnored() {
    return false;
  }

  /**
   * True for the broken batch write: each task commits its own files when it ends, as a write without a
   * driver-side commit would (then {@link #afterTableCommit} is called in the task).
   */
  default boolean commitsEachTask() {
    return false;
  }

  static WriteHooks current() {
    return Holder.hooks;
  }

  static void set(WriteHooks hooks) {
    Holder.hooks = hooks == null ? NONE : hooks;
  }

  /** Holds the hooks (interfaces cannot have mutable static fields). */
  final class Holder {
    private static volatile WriteHooks hooks = NONE;

    private Holder() {}
  }
}
