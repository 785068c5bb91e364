package io.quiver.conformance;

/** The race catalogue on the Local store. */
class LocalScenariosTest extends CatalogueScenarios {
  @Override
  protected StoreFixture fixture() {
    return LocalStoreFixture.INSTANCE;
  }
}
