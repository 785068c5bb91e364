package io.quiver.conformance.model;

import io.quiver.conformance.GcsStoreFixture;
import io.quiver.conformance.StoreFixture;

/** The model-based property on fake-gcs-server. */
class GcsModelBasedIT extends FixtureModelBased {
  @Override
  protected StoreFixture fixture() {
    return GcsStoreFixture.INSTANCE;
  }
}
