package io.quiver.store;

import io.quiver.exceptions.InvalidArgumentException;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Opens {@code memory://name/path} stores: every open of the same URI through this provider instance
 * returns the same {@link MemoryObjectStore}, so several handles on one table see the same data.
 *
 * <p>The named stores live in this instance, not in a static, so registries with their own provider
 * are isolated. {@link ObjectStores#defaultRegistry()} loads one instance per JVM (per class loader
 * that first asks for it), which makes memory URIs JVM-wide there. Stores are never evicted; use
 * unique names in tests. Roots are independent: {@code memory://t/a} does not see the objects of
 * {@code memory://t} under {@code a/}.
 */
public final class MemoryObjectStoreProvider implements ObjectStoreProvider {
  private final Map<String, MemoryObjectStore> stores = new ConcurrentHashMap<>();

  @Override
  public Set<String> schemes() {
    return Set.of("memory");
  }

  @Override
  public ObjectStore open(URI uri, Map<String, String> options) {
    if (uri.isOpaque() || uri.getAuthority() == null || uri.getAuthority().isEmpty()) {
      throw new InvalidArgumentException(
          "memory store URI '" + uri + "' has no name; use memory://name or memory://name/path");
    }
    String path = uri.getPath() == null ? "" : uri.getPath();
    String name = (uri.getAuthority() + path).replaceAll("/+$", "");
    return stores.computeIfAbsent(name, n -> new MemoryObjectStore("memory://" + n));
  }
}
