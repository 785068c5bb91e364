package io.quiver.spark.write;

import java.util.List;

/**
 * Test-only failure injection: the points where the write path consults {@link #current()}. Production never
 * sets it (the default does nothing); tests in this package set it to make a task fail after its files are
 * written, or the driver fail before or after its table commit, deterministically.
 */
interface WriteHooks {
  WriteHooks NONE = new WriteHooks() {};

  /** A data writer wrote {@code files} (all of them) and is about to return its commit message. */
  default void afterFilesWritten(int partitionId, int attemptNumber, long epochId, List<String> files) {}

  /** The driver is about to commit under {@code key} (results read at {@code readVersion}). */
  default void beforeTableCommit(String key, long readVersion) {}

  /** The driver committed {@code key} as {@code version} (or found it committed). */
  default void afterTableCommit(String key, long version) {}

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
