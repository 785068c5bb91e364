package io.quiver.conformance.gcs;

import io.quiver.conformance.ConcurrentAppendsContract;
import io.quiver.conformance.GcsStoreFixture;
import java.util.Map;

/** B1 on fake-gcs-server: eight handles opened by {@code gs://} URI append at once. The emulator is shared by every suite of the JVM ({@link GcsStoreFixture}). */
class GcsConcurrentAppendsIT extends ConcurrentAppendsContract {
  @Override
  protected String newTableUri() {
    return GcsStoreFixture.INSTANCE.newTableUri();
  }

  @Override
  protected Map<String, String> storeOptions() {
    return GcsStoreFixture.INSTANCE.storeOptions();
  }
}
