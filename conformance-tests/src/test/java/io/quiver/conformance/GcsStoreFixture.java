package io.quiver.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.conformance.emulator.EmulatedStoreFixture;
import io.quiver.conformance.emulator.FakeGcsEmulator;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.gcs.GcsObjectStore;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The GCS adapter on fake-gcs-server, every table and store under a fresh prefix of one bucket. Large
 * objects go through a resumable upload above a 2 MiB threshold, in 256 KiB chunks (GCS's smallest);
 * fake-gcs-server stores the result as one object, so the watch counts the adapter's resumable uploads.
 */
public final class GcsStoreFixture extends EmulatedStoreFixture<FakeGcsEmulator> {
  private static final String BUCKET = "quiver-conformance";
  private static final int MIB = 1024 * 1024;

  @Override
  protected FakeGcsEmulator start() {
    FakeGcsEmulator started = FakeGcsEmulator.start();
    started.createBucket(BUCKET);
    return started;
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

  /** Through the registry, as Quiver opens tables. */
  @Override
  public ObjectStore newStore(String name, Map<String, String> extraOptions) {
    Map<String, String> options = new HashMap<>(storeOptions());
    options.putAll(extraOptions);
    return ObjectStores.defaultRegistry().open("gs://" + BUCKET + "/contract/" + name, options);
  }

  @Override
  public Optional<LargeObjects> largeObjects() {
    return Optional.of(new LargeObjects() {
      @Override
      public Map<String, String> options() {
        // A chunk of 1 byte is rounded up to GCS's 256 KiB.
        return Map.of("gcs.write-threshold-bytes", Integer.toString(threshold()), "gcs.resumable-chunk-bytes", "1");
      }

      @Override
      public int threshold() {
        return 2 * MIB;
      }

      @Override
      public int partSize() {
        return 256 * 1024;
      }

      @Override
      public Watch watch(ObjectStore store) {
        GcsObjectStore gcs = (GcsObjectStore) store;
        assertThat(gcs.options().resumableChunk()).as("the resumable chunk size").isEqualTo(partSize());
        return new Watch() {
          /** Resumable uploads accounted for: begun (seen uploading) or committed. */
          private long accounted = gcs.resumableUploadsStarted();
          private final java.util.Set<String> uploading = new java.util.HashSet<>();

          @Override
          public void assertUploading(String key) {
            assertThat(gcs.resumableUploadsStarted()).as(key + " began a resumable upload before close").isEqualTo(accounted + 1);
            accounted++;
            uploading.add(key);
          }

          @Override
          public void assertWrittenInParts(String key, long size) {
            if (uploading.remove(key)) {
              assertThat(gcs.resumableUploadsStarted()).as(key + " was written by the upload seen under way").isEqualTo(accounted);
              return;
            }
            assertThat(gcs.resumableUploadsStarted()).as(key + " went through a resumable upload").isEqualTo(accounted + 1);
            accounted++;
          }
        };
      }
    });
  }
}
