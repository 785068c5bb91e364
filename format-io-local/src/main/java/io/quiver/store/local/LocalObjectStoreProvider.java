package io.quiver.store.local;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreProvider;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/** Opens {@code file:} URIs (and, through {@link io.quiver.store.ObjectStores}, plain paths). No options. */
public final class LocalObjectStoreProvider implements ObjectStoreProvider {

  @Override
  public Set<String> schemes() {
    return Set.of("file");
  }

  @Override
  public ObjectStore open(URI uri, Map<String, String> options) {
    try {
      return new LocalObjectStore(Path.of(uri));
    } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
      throw new InvalidArgumentException(
          "'" + uri + "' is not a local file URI (" + e.getMessage() + "); use file:///absolute/path or a plain path");
    }
  }
}
