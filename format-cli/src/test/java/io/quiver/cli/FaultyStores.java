package io.quiver.cli;

import io.quiver.store.FaultInjectingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.TestStores;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Test store provider for {@code faulty://name}: an in-memory store behind a {@link FaultInjectingObjectStore}
 * that a test arms, so the command line (which opens stores by URI through the ServiceLoader registry) meets
 * the failures the test chooses. Registered in the test resources' {@code META-INF/services}.
 */
public final class FaultyStores implements ObjectStoreProvider {
  private static final Map<String, FaultInjectingObjectStore> STORES = new ConcurrentHashMap<>();

  /** The store {@code faulty://name} opens, created empty on first use. */
  static FaultInjectingObjectStore store(String name) {
    return STORES.computeIfAbsent(name, n -> new FaultInjectingObjectStore(new MemoryObjectStore("faulty://" + n)));
  }

  @Override
  public Set<String> schemes() {
    return Set.of("faulty");
  }

  @Override
  public ObjectStore open(URI uri, Map<String, String> options) {
    return TestStores.keepOpen(store(uri.getAuthority()));
  }
}
