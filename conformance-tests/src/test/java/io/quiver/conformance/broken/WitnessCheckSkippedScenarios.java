package io.quiver.conformance.broken;

import io.quiver.conformance.CatalogueScenarios;
import io.quiver.conformance.MemoryStoreFixture;
import io.quiver.conformance.StoreFixture;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The catalogue scenarios on the memory fixture, for {@link BrokenWitnessCheckIsCaughtTest} to run with
 * and without the witness check. Named so that surefire does not pick it up, and disabled unless that test
 * runs it through the JUnit launcher ({@link BrokenSuites}); the memory store's own run is
 * {@code MemoryScenariosTest}.
 */
@EnabledIf("io.quiver.conformance.broken.BrokenSuites#launching")
public class WitnessCheckSkippedScenarios extends CatalogueScenarios {
  @Override
  protected StoreFixture fixture() {
    return MemoryStoreFixture.INSTANCE;
  }
}
