package io.quiver.store.local;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.support.StoreOptions;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/**
 * Opens {@code file:} URIs (and, through {@link io.quiver.store.ObjectStores}, plain paths). One option:
 * {@value #FSYNC} = {@code true} (default) or {@code false}; see {@link LocalObjectStore#LocalObjectStore(Path,
 * boolean)} for what turning it off risks.
 */
public final class LocalObjectStoreProvider implements ObjectStoreProvider {
  /** Store option: force every write to disk before acknowledging it ({@code true}, the default). */
  public static final String FSYNC = "local.fsync";

  @Override
  public Set<String> schemes() {
    return Set.of("file");
  }

  @Override
  public ObjectStore open(URI uri, Map<String, String> options) {
    boolean fsync = StoreOptions.of(options).bool(FSYNC, true);
    try {
      return new LocalObjectStore(Path.of(uri), fsync);
    } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
      throw new InvalidArgumentException(
          "'" + uri + "' is not a local file URI (" + e.getMessage() + "); use file:///absolute/path or a plain path");
    }
  }
}
