package io.quiver.conformance.hostile;

import io.quiver.conformance.StoreFixture;
import io.quiver.hostile.HostileInputContract;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;

/** D1–D5 (format-core's {@link HostileInputContract}) on a store fixture, opened through ServiceLoader. */
abstract class FixtureHostileInput extends HostileInputContract {
  /** The store under test. */
  protected abstract StoreFixture fixture();

  @Override
  protected ObjectStore newStore(String name) {
    StoreFixture fixture = fixture();
    return ObjectStores.defaultRegistry().open(fixture.newTableUri(), fixture.storeOptions());
  }
}
