package io.quiver.conformance.fault;

import io.quiver.conformance.GcsStoreFixture;
import io.quiver.conformance.StoreFixture;

/** The fault-schedule property on fake-gcs-server. */
class GcsFaultScheduleIT extends FixtureFaultSchedule {
  @Override
  protected StoreFixture fixture() {
    return GcsStoreFixture.INSTANCE;
  }
}
