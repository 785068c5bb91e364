package io.quiver.conformance.azure;

import io.quiver.conformance.AzureStoreFixture;
import io.quiver.conformance.ConcurrentAppendsContract;
import io.quiver.conformance.emulator.AzuriteEmulator;
import java.util.Map;
import java.util.UUID;

/**
 * Concurrent appends from separate handles on Azurite, each opened by {@code abfss://} URI (routed to the
 * emulator by {@code azure.endpoint}), so the ADLS Gen2 URI form is exercised end to end. The emulator is
 * shared by every suite of the JVM ({@link AzureStoreFixture}).
 */
class AzureConcurrentAppendsIT extends ConcurrentAppendsContract {
  @Override
  protected String newTableUri() {
    AzureStoreFixture.INSTANCE.storeOptions(); // starts Azurite and creates the container on first use
    return "abfss://" + AzureStoreFixture.CONTAINER + "@" + AzuriteEmulator.ACCOUNT + ".dfs.core.windows.net/tables/"
        + UUID.randomUUID();
  }

  @Override
  protected Map<String, String> storeOptions() {
    return AzureStoreFixture.INSTANCE.storeOptions();
  }
}
