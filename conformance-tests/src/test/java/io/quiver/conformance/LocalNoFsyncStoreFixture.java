package io.quiver.conformance;

import io.quiver.store.local.LocalObjectStoreProvider;
import java.util.Map;

/**
 * The local store with {@code local.fsync=false}: turning durability off must not change what a reader
 * sees or the atomicity of putIfAbsent, only what survives a power loss. The store contract runs on it.
 */
public final class LocalNoFsyncStoreFixture extends LocalStoreFixture {
  @Override
  public String name() {
    return "local-nofsync";
  }

  @Override
  public Map<String, String> storeOptions() {
    return Map.of(LocalObjectStoreProvider.FSYNC, "false");
  }
}
