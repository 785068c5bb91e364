package io.quiver.conformance;

import java.util.UUID;

class MemoryUpdateTest extends UpdateStoreContract {
  @Override
  protected String newTableUri() {
    return "memory://update-" + UUID.randomUUID() + "/table";
  }
}
