package io.quiver.conformance.gcs;

import io.quiver.conformance.GcsStoreFixture;
import io.quiver.conformance.KeyedAppendAcrossProcessesContract;
import io.quiver.conformance.StoreFixture;

/** E1-E3 with real driver processes on the Gcs store (its emulator). */
class GcsKeyedAppendAcrossProcessesIT extends KeyedAppendAcrossProcessesContract {
  @Override
  protected StoreFixture fixture() {
    return GcsStoreFixture.INSTANCE;
  }
}
