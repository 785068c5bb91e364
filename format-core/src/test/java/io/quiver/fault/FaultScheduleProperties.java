package io.quiver.fault;

import io.quiver.fault.FaultSchedules.Writer;
import io.quiver.store.MemoryObjectStore;
import io.quiver.testing.DepthTries;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The fault-schedule property ({@link FaultSchedules}) on the memory store, its file times on the handles'
 * clock: 100 schedules (1,000 with {@code -Pconformance-long}), about 2 s. conformance-tests runs the same
 * property on the local store and the emulators.
 */
class FaultScheduleProperties {
  private final FaultSchedules schedules =
      new FaultSchedules(clock -> new MemoryObjectStore(FaultSchedules.URI_, clock));

  @Provide
  Arbitrary<List<Writer>> writers() {
    return FaultSchedules.writers();
  }

  @Property
  @DepthTries(quick = 100, deep = 1000)
  void committedDataIsNeverLostOrDuplicatedAndCleanupLeavesExactlyTheReferencedFiles(
      @ForAll("writers") List<Writer> writers) {
    schedules.check(writers);
  }
}
