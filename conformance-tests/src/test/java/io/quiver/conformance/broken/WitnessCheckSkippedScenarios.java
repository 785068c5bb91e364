package io.quiver.conformance.broken;

import io.quiver.conformance.CatalogueScenarios;
import io.quiver.conformance.MemoryStoreFixture;
import io.quiver.conformance.OnStores;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The catalogue scenarios on the memory fixture, for {@link BrokenWitnessCheckIsCaughtTest} to run with
 * and without the witness check. Named so that surefire does not pick it up, and disabled unless that test
 * runs it through the JUnit launcher ({@link BrokenSuites}); the memory store's own run is the matrix's
 * {@code CatalogueScenariosTest}.
 */
@EnabledIf("io.quiver.conformance.broken.BrokenSuites#launching")
@OnStores(MemoryStoreFixture.class)
public class WitnessCheckSkippedScenarios extends CatalogueScenarios {}
