package io.quiver.conformance;

import java.util.UUID;

class MemoryDatasetTest extends DatasetStoreContract {
  @Override
  protected String newTableUri() {
    return "memory://dataset-" + UUID.randomUUID() + "/table";
  }
}
