package io.quiver.dataset;

import io.quiver.internal.file.MetadataCache;

/**
 * Caches that several {@link Dataset} handles share: parsed manifests and data-file footers. Files are
 * immutable under their names, so entries never go stale. One session per process is usual.
 */
public final class Session {
  /** Default byte budget of the metadata cache: 256 MiB. */
  public static final long DEFAULT_CACHE_BYTES = 256L << 20;

  private final MetadataCache metadataCache;

  public Session(long cacheBytes) {
    this.metadataCache = new MetadataCache(cacheBytes);
  }

  public static Session withDefaults() {
    return new Session(DEFAULT_CACHE_BYTES);
  }

  public MetadataCache metadataCache() {
    return metadataCache;
  }
}
