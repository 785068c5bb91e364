package io.quiver.conformance.fault;

import io.quiver.conformance.LocalStoreFixture;
import io.quiver.conformance.StoreFixture;

/** The fault-schedule property on the local file-system store. */
class LocalFaultScheduleTest extends FixtureFaultSchedule {
  @Override
  protected StoreFixture fixture() {
    return LocalStoreFixture.INSTANCE;
  }
}
