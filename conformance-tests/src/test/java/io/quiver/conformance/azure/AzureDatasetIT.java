package io.quiver.conformance.azure;

import io.quiver.conformance.AzureStoreFixture;
import io.quiver.conformance.DatasetStoreContract;
import java.util.Map;

/** Dataset journeys on Azurite; tables are opened only by {@code az://} URI with the documented options. The emulator is shared by every suite of the JVM ({@link AzureStoreFixture}). */
class AzureDatasetIT extends DatasetStoreContract {
  @Override
  protected String newTableUri() {
    return AzureStoreFixture.INSTANCE.newTableUri();
  }

  @Override
  protected Map<String, String> storeOptions() {
    return AzureStoreFixture.INSTANCE.storeOptions();
  }
}
