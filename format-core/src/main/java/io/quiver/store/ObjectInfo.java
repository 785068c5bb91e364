package io.quiver.store;

import java.time.Instant;
import java.util.Objects;

/** What a store knows about one object without reading it. */
public record ObjectInfo(String key, long size, Instant lastModified) {
  public ObjectInfo {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lastModified, "lastModified");
    if (size < 0) {
      throw new IllegalArgumentException("object size must be >= 0, got " + size + " for " + key);
    }
  }
}
