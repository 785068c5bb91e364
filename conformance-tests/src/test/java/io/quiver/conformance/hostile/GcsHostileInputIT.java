package io.quiver.conformance.hostile;

import io.quiver.conformance.GcsStoreFixture;
import io.quiver.conformance.StoreFixture;

/** D1–D5 on fake-gcs-server. */
class GcsHostileInputIT extends FixtureHostileInput {
  @Override
  protected StoreFixture fixture() {
    return GcsStoreFixture.INSTANCE;
  }
}
