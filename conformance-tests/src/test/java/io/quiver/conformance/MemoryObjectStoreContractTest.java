package io.quiver.conformance;

import io.quiver.store.MemoryObjectStoreProvider;
import io.quiver.store.ObjectStore;
import java.net.URI;
import java.util.Map;

/** The contract on {@code memory://} stores, opened through their provider. */
class MemoryObjectStoreContractTest extends ObjectStoreContractTest {
  private final MemoryObjectStoreProvider provider = new MemoryObjectStoreProvider();

  @Override
  protected ObjectStore newStore(String name) {
    return provider.open(URI.create("memory://contract/" + name), Map.of());
  }
}
