package io.quiver.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlockListType;
import com.azure.storage.blob.models.ListBlobsOptions;
import io.quiver.conformance.emulator.AzuriteEmulator;
import io.quiver.conformance.emulator.EmulatedStoreFixture;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The Azure Blob adapter on Azurite, every table and store under a fresh prefix of one container, opened
 * by {@code az://} URI. Large objects go through staged blocks: the fixture's thresholds (64 KiB blocks,
 * single uploads up to 128 KiB) send test-sized objects through many blocks, conditional creates included,
 * and an SDK client counts the committed blocks behind the adapter's back.
 */
public class AzureStoreFixture extends EmulatedStoreFixture<AzuriteEmulator> {
  /** The container every table of this fixture lives in (created when the emulator starts). */
  public static final String CONTAINER = "conformance";
  private static final int KIB = 1024;

  @Override
  protected AzuriteEmulator start() {
    AzuriteEmulator started = AzuriteEmulator.start();
    started.createContainer(CONTAINER);
    return started;
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

  /** Through the registry, as Quiver opens tables. */
  @Override
  public ObjectStore newStore(String name, Map<String, String> extraOptions) {
    Map<String, String> options = new HashMap<>(storeOptions());
    options.putAll(extraOptions);
    return ObjectStores.defaultRegistry().open("az://" + CONTAINER + "/contract/" + name, options);
  }

  @Override
  public Optional<LargeObjects> largeObjects() {
    return Optional.of(new LargeObjects() {
      @Override
      public Map<String, String> options() {
        return Map.of(
            "azure.block-size-bytes", Integer.toString(partSize()),
            "azure.max-single-upload-bytes", Integer.toString(threshold()));
      }

      @Override
      public int threshold() {
        return 128 * KIB;
      }

      @Override
      public int partSize() {
        return 64 * KIB;
      }

      @Override
      public boolean partedPutIfAbsent() {
        return true;
      }

      @Override
      public Watch watch(ObjectStore store) {
        BlobContainerClient container = emulator().service().getBlobContainerClient(CONTAINER);
        String root = store.location().substring(("az://" + CONTAINER).length()).replaceAll("^/", "");
        return new Watch() {
          private String blobName(String key) {
            return root.isEmpty() ? key : root + "/" + key;
          }

          @Override
          public void assertWrittenInParts(String key, long size) {
            int blocks = container.getBlobClient(blobName(key)).getBlockBlobClient()
                .listBlocks(BlockListType.COMMITTED).getCommittedBlocks().size();
            assertThat(blocks).as(key + ": " + size + " bytes in " + partSize() + "-byte blocks: the block path was taken").isEqualTo((size + partSize() - 1) / partSize());
          }

          @Override
          public void assertNothingPending() {
            List<String> committed = new ArrayList<>();
            container.listBlobs(new ListBlobsOptions().setPrefix(blobName("")), null)
                .forEach(b -> committed.add(b.getName().substring(blobName("").length())));
            assertThat(committed).as("the service holds no committed blob the adapter does not list").isEqualTo(store.listAll("").stream().map(ObjectInfo::key).toList());
          }
        };
      }
    });
  }
}
