package io.quiver.conformance;

import io.quiver.fault.FaultSchedules.Writer;
import io.quiver.fault.FaultSchedules;
import io.quiver.store.ObjectStores;
import io.quiver.testing.DepthTries;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The fault-schedule property ({@link FaultSchedules}) on a store fixture: every try opens a fresh table of
 * the fixture through the default registry, and each writer's {@code FaultInjectingObjectStore} wraps that
 * real store. Few tries (8; 80 with {@code -Pconformance-long}): every writer makes dozens of round trips
 * to an emulator, about 0.5 s a try. The deep memory run is format-core's {@code FaultScheduleProperties}.
 * {@link FaultScheduleSuite} runs it on each store, through {@link PropertyCheck}.
 */
public class FaultScheduleProperty {
  /** The store under test. */
  protected StoreFixture fixture() {
    return PropertyCheck.fixture();
  }

  @Provide
  Arbitrary<List<Writer>> writers() {
    return FaultSchedules.writers();
  }

  // On an emulator a try costs seconds: the ci depth adds few tries here (its rotating seed is what
  // explores new cases every run); the commit logic gets its tries on memory in format-core.
  @Property(seed = "20261129")
  @DepthTries(quick = 8, ci = 12, deep = 80)
  void committedDataIsNeverLostOrDuplicatedAndCleanupLeavesExactlyTheReferencedFiles(
      @ForAll("writers") List<Writer> writers) {
    StoreFixture fixture = fixture();
    new FaultSchedules(clock -> ObjectStores.defaultRegistry().open(fixture.newTableUri(), fixture.storeOptions()))
        .check(writers);
  }
}
