package io.quiver.conformance;

/** E1-E3 with real driver processes on the Local store. */
class LocalKeyedAppendAcrossProcessesTest extends KeyedAppendAcrossProcessesContract {
  @Override
  protected StoreFixture fixture() {
    return LocalStoreFixture.INSTANCE;
  }
}
