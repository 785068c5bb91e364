package io.quiver.flink.source;

/**
 * Test-only breakage injection for the source: the point where {@link QuiverSource} consults {@link #current()}.
 * Production never sets it (the default breaks nothing); the process kill suites set it in their child JVM,
 * through the test sources' {@code ProcessFaults}, to run a deliberately broken source the suites must catch.
 */
interface SourceFaults {
  SourceFaults NONE = new SourceFaults() {};

  /**
   * True for the broken source: a restored enumerator ignores its checkpointed state and plans the table from
   * the start again, as a source that does not checkpoint its position would.
   */
  default boolean restoredStateIgnored() {
    return false;
  }

  static SourceFaults current() {
    return Holder.faults;
  }

  static void set(SourceFaults faults) {
    Holder.faults = faults == null ? NONE : faults;
  }

  /** Holds the faults (interfaces cannot have mutable static fields). */
  final class Holder {
    private static volatile SourceFaults faults = NONE;

    private Holder() {}
  }
}
