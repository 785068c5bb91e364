package io.quiver.conformance.model;

import io.quiver.conformance.AzureStoreFixture;
import io.quiver.conformance.StoreFixture;

/** The model-based property on Azurite. */
class AzureModelBasedIT extends FixtureModelBased {
  @Override
  protected StoreFixture fixture() {
    return AzureStoreFixture.INSTANCE;
  }
}
