package io.quiver.conformance.model;

import io.quiver.conformance.S3StoreFixture;
import io.quiver.conformance.StoreFixture;

/** The model-based property on S3Proxy. */
class S3ModelBasedIT extends FixtureModelBased {
  @Override
  protected StoreFixture fixture() {
    return S3StoreFixture.INSTANCE;
  }
}
