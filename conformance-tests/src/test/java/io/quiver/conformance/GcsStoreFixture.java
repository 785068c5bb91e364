package io.quiver.conformance;

import io.quiver.conformance.emulator.FakeGcsEmulator;
import java.util.Map;
import java.util.UUID;

/** The GCS adapter on fake-gcs-server, started once per JVM on first use and stopped at exit. */
public final class GcsStoreFixture implements StoreFixture {
  public static final GcsStoreFixture INSTANCE = new GcsStoreFixture();
  private static final String BUCKET = "quiver-conformance";
  private FakeGcsEmulator emulator;

  private GcsStoreFixture() {}

  private synchronized FakeGcsEmulator emulator() {
    if (emulator == null) {
      FakeGcsEmulator started = FakeGcsEmulator.start();
      Runtime.getRuntime().addShutdownHook(new Thread(started::close));
      started.createBucket(BUCKET);
      emulator = started;
    }
    return emulator;
  }

  @Override
  public String name() {
    return "gcs";
  }

  @Override
  public String newTableUri() {
    emulator();
    return "gs://" + BUCKET + "/conformance-" + UUID.randomUUID() + "/table";
  }

  @Override
  public Map<String, String> storeOptions() {
    return emulator().storeOptions();
  }
}
