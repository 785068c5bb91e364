package io.quiver.conformance.hostile;

import io.quiver.conformance.LocalStoreFixture;
import io.quiver.conformance.StoreFixture;

/** D1–D5 (format-core's {@link io.quiver.hostile.HostileInputContract}) on the local file system. */
class LocalHostileInputTest extends FixtureHostileInput {
  @Override
  protected StoreFixture fixture() {
    return LocalStoreFixture.INSTANCE;
  }
}
