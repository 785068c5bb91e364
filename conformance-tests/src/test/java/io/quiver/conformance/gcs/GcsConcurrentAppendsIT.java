package io.quiver.conformance.gcs;

import io.quiver.conformance.ConcurrentAppendsContract;
import io.quiver.conformance.emulator.FakeGcsEmulator;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** B1 on fake-gcs-server: eight handles opened by {@code gs://} URI append at once. */
class GcsConcurrentAppendsIT extends ConcurrentAppendsContract {
  private static final String BUCKET = "quiver-appends";
  private static FakeGcsEmulator emulator;

  @BeforeAll
  static void startEmulator() {
    emulator = FakeGcsEmulator.start();
    emulator.createBucket(BUCKET);
  }

  @AfterAll
  static void stopEmulator() {
    if (emulator != null) {
      emulator.close();
    }
  }

  @Override
  protected String newTableUri() {
    return "gs://" + BUCKET + "/appends-" + UUID.randomUUID() + "/table";
  }

  @Override
  protected Map<String, String> storeOptions() {
    return emulator.storeOptions();
  }
}
