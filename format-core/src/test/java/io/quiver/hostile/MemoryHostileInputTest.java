package io.quiver.hostile;

import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStore;

/** D1–D6 on the memory store. */
class MemoryHostileInputTest extends HostileInputContract {
  @Override
  protected ObjectStore newStore(String name) {
    return new MemoryObjectStore("memory://hostile/" + name);
  }
}
