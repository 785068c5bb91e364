package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;

/**
 * Caches that several {@link Dataset} handles share: parsed manifests and data-file footers, within one byte
 * budget. Files are immutable under their names, so entries never go stale. One session per process is
 * usual; handles opened with the same session (through {@link DatasetOptions.Builder#session}) share its
 * caches, which live as long as the session is reachable.
 */
public final class Session {
  /** Default byte budget of the metadata cache: 256 MiB. */
  public static final long DEFAULT_CACHE_BYTES = 256L << 20;

  static {
    io.quiver.internal.file.MetadataCache.bindSessions(Session::metadataCache);
  }

  private final long cacheBytes;
  /** Created by the first handle opened with this session; collected with the session. */
  private volatile io.quiver.internal.file.MetadataCache metadataCache;

  /**
   * A session whose metadata cache holds about {@code cacheBytes} of parsed metadata.
   *
   * @throws InvalidArgumentException if {@code cacheBytes} is negative
   */
  public Session(long cacheBytes) {
    if (cacheBytes < 0) {
      throw new InvalidArgumentException("cache budget must be >= 0 bytes, got " + cacheBytes);
    }
    this.cacheBytes = cacheBytes;
  }

  public static Session withDefaults() {
    return new Session(DEFAULT_CACHE_BYTES);
  }

  private io.quiver.internal.file.MetadataCache metadataCache() {
    io.quiver.internal.file.MetadataCache c = metadataCache;
    if (c == null) {
      synchronized (this) {
        c = metadataCache;
        if (c == null) {
          c = new io.quiver.internal.file.MetadataCache(cacheBytes);
          metadataCache = c;
        }
      }
    }
    return c;
  }

  /** The metadata cache's byte budget. */
  public long cacheBytes() {
    return cacheBytes;
  }

  @Override
  public String toString() {
    return "Session[cacheBytes=" + cacheBytes + "]";
  }
}
