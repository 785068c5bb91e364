package io.quiver.conformance.azure;

import io.quiver.conformance.ConcurrentAppendsContract;
import io.quiver.conformance.emulator.AzuriteEmulator;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Concurrent appends from separate handles on Azurite, each opened by {@code abfss://} URI (routed to the
 * emulator by {@code azure.endpoint}), so the ADLS Gen2 URI form is exercised end to end.
 */
class AzureConcurrentAppendsIT extends ConcurrentAppendsContract {
  private static final String CONTAINER = "appends";
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
    return "abfss://" + CONTAINER + "@" + AzuriteEmulator.ACCOUNT + ".dfs.core.windows.net/tables/" + UUID.randomUUID();
  }

  @Override
  protected Map<String, String> storeOptions() {
    return azurite.options();
  }
}
