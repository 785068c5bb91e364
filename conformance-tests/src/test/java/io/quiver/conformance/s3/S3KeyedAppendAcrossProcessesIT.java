package io.quiver.conformance.s3;

import io.quiver.conformance.KeyedAppendAcrossProcessesContract;
import io.quiver.conformance.S3StoreFixture;
import io.quiver.conformance.StoreFixture;

/** E1-E3 with real driver processes on the S3 store (its emulator). */
class S3KeyedAppendAcrossProcessesIT extends KeyedAppendAcrossProcessesContract {
  @Override
  protected StoreFixture fixture() {
    return S3StoreFixture.INSTANCE;
  }
}
