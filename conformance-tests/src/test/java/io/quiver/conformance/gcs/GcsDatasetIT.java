package io.quiver.conformance.gcs;

import io.quiver.conformance.DatasetStoreContract;
import io.quiver.conformance.emulator.FakeGcsEmulator;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Dataset journeys on fake-gcs-server, the table opened only by {@code gs://} URI through ServiceLoader. */
class GcsDatasetIT extends DatasetStoreContract {
  private static final String BUCKET = "quiver-datasets";
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
    return "gs://" + BUCKET + "/dataset-" + UUID.randomUUID() + "/table";
  }

  @Override
  protected Map<String, String> storeOptions() {
    return emulator.storeOptions();
  }
}
