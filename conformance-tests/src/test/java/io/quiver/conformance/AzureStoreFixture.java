package io.quiver.conformance;

import io.quiver.conformance.emulator.AzuriteEmulator;
import java.util.Map;
import java.util.UUID;

/** The Azure Blob adapter on Azurite, started once per JVM on first use and stopped at exit. */
public final class AzureStoreFixture implements StoreFixture {
  public static final AzureStoreFixture INSTANCE = new AzureStoreFixture();
  /** The container every table of this fixture lives in (created when the emulator starts). */
  public static final String CONTAINER = "conformance";
  private AzuriteEmulator emulator;

  private AzureStoreFixture() {}

  private synchronized AzuriteEmulator emulator() {
    if (emulator == null) {
      AzuriteEmulator started = AzuriteEmulator.start();
      Runtime.getRuntime().addShutdownHook(new Thread(started::close));
      started.createContainer(CONTAINER);
      emulator = started;
    }
    return emulator;
  }

  @Override
  public String name() {
    return "azure";
  }

  @Override
  public String newTableUri() {
    emulator();
    return "az://" + CONTAINER + "/tables/" + UUID.randomUUID();
  }

  @Override
  public Map<String, String> storeOptions() {
    return emulator().options();
  }
}
