package io.quiver.conformance.azure;

import io.quiver.conformance.AzureStoreFixture;
import io.quiver.conformance.CatalogueScenarios;
import io.quiver.conformance.StoreFixture;

/** The race catalogue on the Azure store. */
class AzureScenariosIT extends CatalogueScenarios {
  @Override
  protected StoreFixture fixture() {
    return AzureStoreFixture.INSTANCE;
  }
}
