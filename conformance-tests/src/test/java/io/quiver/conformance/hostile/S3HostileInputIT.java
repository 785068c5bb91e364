package io.quiver.conformance.hostile;

import io.quiver.conformance.S3StoreFixture;
import io.quiver.conformance.StoreFixture;

/** D1–D5 on S3Proxy. */
class S3HostileInputIT extends FixtureHostileInput {
  @Override
  protected StoreFixture fixture() {
    return S3StoreFixture.INSTANCE;
  }
}
