package io.quiver.conformance.gcs;

import io.quiver.conformance.DatasetStoreContract;
import io.quiver.conformance.GcsStoreFixture;
import java.util.Map;

/** Dataset journeys on fake-gcs-server, the table opened only by {@code gs://} URI through ServiceLoader. The emulator is shared by every suite of the JVM ({@link GcsStoreFixture}). */
class GcsDatasetIT extends DatasetStoreContract {
  @Override
  protected String newTableUri() {
    return GcsStoreFixture.INSTANCE.newTableUri();
  }

  @Override
  protected Map<String, String> storeOptions() {
    return GcsStoreFixture.INSTANCE.storeOptions();
  }
}
