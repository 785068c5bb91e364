package io.quiver.conformance.hostile;

import io.quiver.conformance.MemoryStoreFixture;
import io.quiver.conformance.StoreFixture;

/** D1–D5 (format-core's {@link io.quiver.hostile.HostileInputContract}) on the memory store, opened by memory:// URI. */
class MemoryHostileInputTest extends FixtureHostileInput {
  @Override
  protected StoreFixture fixture() {
    return MemoryStoreFixture.INSTANCE;
  }
}
