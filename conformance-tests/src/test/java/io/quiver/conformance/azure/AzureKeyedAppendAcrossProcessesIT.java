package io.quiver.conformance.azure;

import io.quiver.conformance.AzureStoreFixture;
import io.quiver.conformance.KeyedAppendAcrossProcessesContract;
import io.quiver.conformance.StoreFixture;

/** E1-E3 with real driver processes on the Azure store (its emulator). */
class AzureKeyedAppendAcrossProcessesIT extends KeyedAppendAcrossProcessesContract {
  @Override
  protected StoreFixture fixture() {
    return AzureStoreFixture.INSTANCE;
  }
}
