package io.quiver.conformance;

import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** The in-memory store of format-core, opened by {@code memory://} URI through ServiceLoader. */
public final class MemoryStoreFixture implements StoreFixture {
  @Override
  public String name() {
    return "memory";
  }

  @Override
  public String newTableUri() {
    return "memory://conformance-" + UUID.randomUUID() + "/table";
  }

  @Override
  public ObjectStore newStore(String name, Map<String, String> extraOptions) {
    return ObjectStores.defaultRegistry().open("memory://contract/" + name, extraOptions);
  }

  @Override
  public Optional<String> lacks(Capability capability) {
    if (capability == Capability.SHARED_ACROSS_PROCESSES) {
      return Optional.of("an in-process store: another JVM cannot open its tables");
    }
    return Optional.empty();
  }

  @Override
  public Latency latency() {
    return Latency.LOCAL;
  }
}
