package io.quiver.conformance;

import io.quiver.conformance.emulator.AzuriteEmulator;
import java.util.UUID;

/**
 * The Azure adapter on Azurite with tables opened by {@code abfss://} URI (routed to the emulator by {@code
 * azure.endpoint}), so that the ADLS Gen2 URI form is exercised end to end; the concurrent appends run on it.
 */
public final class AzureAbfssStoreFixture extends AzureStoreFixture {
  @Override
  public String name() {
    return "azure-abfss";
  }

  @Override
  public String newTableUri() {
    emulator();
    return "abfss://" + CONTAINER + "@" + AzuriteEmulator.ACCOUNT + ".dfs.core.windows.net/tables/" + UUID.randomUUID();
  }
}
