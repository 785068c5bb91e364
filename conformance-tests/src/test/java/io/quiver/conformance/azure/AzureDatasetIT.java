package io.quiver.conformance.azure;

import io.quiver.conformance.DatasetStoreContract;
import io.quiver.conformance.emulator.AzuriteEmulator;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Dataset journeys on Azurite; tables are opened only by {@code az://} URI with the documented options. */
class AzureDatasetIT extends DatasetStoreContract {
  private static final String CONTAINER = "datasets";
  private static AzuriteEmulator azurite;

  @BeforeAll
  static void startAzurite() {
    azurite = AzuriteEmulator.start();
    azurite.createContainer(CONTAINER);
  }

  @AfterAll
  static void stopAzurite() {
    if (azurite != null) {
      azurite.close();
    }
  }

  @Override
  protected String newTableUri() {
    return "az://" + CONTAINER + "/tables/" + UUID.randomUUID();
  }

  @Override
  protected Map<String, String> storeOptions() {
    return azurite.options();
  }
}
