package io.quiver.conformance.gcs;

import io.quiver.conformance.CatalogueScenarios;
import io.quiver.conformance.GcsStoreFixture;
import io.quiver.conformance.StoreFixture;

/** The race catalogue on the Gcs store. */
class GcsScenariosIT extends CatalogueScenarios {
  @Override
  protected StoreFixture fixture() {
    return GcsStoreFixture.INSTANCE;
  }
}
