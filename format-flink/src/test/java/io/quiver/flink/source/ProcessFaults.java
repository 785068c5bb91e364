package io.quiver.flink.source;

/**
 * Sets the source's {@link SourceFaults} in a process kill suite's child JVM: the deliberately broken source the
 * suites must catch. Once set, for the life of the JVM.
 */
public final class ProcessFaults {
  private ProcessFaults() {}

  /** Runs the broken source whose restored enumerator plans the table from the start again. */
  public static void ignoreRestoredState() {
    SourceFaults.set(new SourceFaults() {
      @Override
      public boolean restoredStateIgnored() {
        return true;
      }
    });
  }
}
