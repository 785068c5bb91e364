package io.quiver.conformance.s3;

import io.quiver.conformance.DatasetStoreContract;
import io.quiver.conformance.S3StoreFixture;
import java.util.Map;

/** Dataset journeys on S3Proxy, opened by s3:// URI through ServiceLoader. The emulator is shared by every suite of the JVM ({@link S3StoreFixture}). */
class S3DatasetIT extends DatasetStoreContract {
  @Override
  protected String newTableUri() {
    return S3StoreFixture.INSTANCE.newTableUri();
  }

  @Override
  protected Map<String, String> storeOptions() {
    return S3StoreFixture.INSTANCE.storeOptions();
  }
}
