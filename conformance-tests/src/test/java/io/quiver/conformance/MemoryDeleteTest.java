package io.quiver.conformance;

import java.util.UUID;

class MemoryDeleteTest extends DeleteContract {
  @Override
  protected String newTableUri() {
    return "memory://delete-" + UUID.randomUUID() + "/table";
  }
}
