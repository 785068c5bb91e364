package io.quiver.conformance.fault;

import io.quiver.conformance.AzureStoreFixture;
import io.quiver.conformance.StoreFixture;

/** The fault-schedule property on Azurite. */
class AzureFaultScheduleIT extends FixtureFaultSchedule {
  @Override
  protected StoreFixture fixture() {
    return AzureStoreFixture.INSTANCE;
  }
}
