package io.quiver.conformance.hostile;

import io.quiver.conformance.AzureStoreFixture;
import io.quiver.conformance.StoreFixture;

/** D1–D5 on Azurite. */
class AzureHostileInputIT extends FixtureHostileInput {
  @Override
  protected StoreFixture fixture() {
    return AzureStoreFixture.INSTANCE;
  }
}
