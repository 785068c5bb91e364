package io.quiver.conformance.fault;

import io.quiver.conformance.S3StoreFixture;
import io.quiver.conformance.StoreFixture;

/** The fault-schedule property on S3Proxy. */
class S3FaultScheduleIT extends FixtureFaultSchedule {
  @Override
  protected StoreFixture fixture() {
    return S3StoreFixture.INSTANCE;
  }
}
