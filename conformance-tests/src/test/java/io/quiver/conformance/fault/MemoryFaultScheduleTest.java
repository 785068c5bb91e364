package io.quiver.conformance.fault;

import io.quiver.conformance.MemoryStoreFixture;
import io.quiver.conformance.StoreFixture;

/**
 * The fault-schedule property on the memory fixture, opened by URI like every other store (its files
 * stamped by the wall clock); format-core's {@code FaultScheduleProperties} runs it deeper on memory.
 */
class MemoryFaultScheduleTest extends FixtureFaultSchedule {
  @Override
  protected StoreFixture fixture() {
    return MemoryStoreFixture.INSTANCE;
  }
}
