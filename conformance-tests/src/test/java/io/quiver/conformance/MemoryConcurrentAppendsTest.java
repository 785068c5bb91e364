package io.quiver.conformance;

import java.util.UUID;

class MemoryConcurrentAppendsTest extends ConcurrentAppendsContract {
  @Override
  protected String newTableUri() {
    return "memory://concurrent-" + UUID.randomUUID() + "/table";
  }
}
