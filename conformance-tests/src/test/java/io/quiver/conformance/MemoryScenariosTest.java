package io.quiver.conformance;

/** The race catalogue on the Memory store. */
class MemoryScenariosTest extends CatalogueScenarios {
  @Override
  protected StoreFixture fixture() {
    return MemoryStoreFixture.INSTANCE;
  }
}
