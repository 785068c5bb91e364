package io.quiver.internal.file;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.quiver.dataset.Session;
import io.quiver.exceptions.InvalidArgumentException;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * A cache of parsed file metadata bounded by an estimated heap budget, so that one cache can be shared
 * by many dataset handles without a file count limit being wrong for both wide and narrow tables.
 *
 * <p>Keys are full store locations ({@link io.quiver.store.ObjectStore#locationOf}); files are
 * immutable, so entries never go stale. Thread-safe; concurrent loads of one location run the loader
 * once.
 */
public final class MetadataCache {
  /**
   * How {@link #of} reaches a session's cache, which the session itself holds (bound by {@link Session}'s
   * static initializer, which has run by the time anyone holds a session). Held by the session, a cache is
   * collected with it; a map from sessions to caches (even one with weak keys) keeps every cache strongly
   * reachable until the map notices its session is gone, so a process opening tables with short-lived
   * sessions promoted their caches to the old generation, and its opens slowed down as the heap filled.
   */
  private static volatile java.util.function.Function<Session, MetadataCache> sessionCaches;

  private final Cache<String, Weighable> cache;

  /** The cache of {@code session}, shared by every handle opened with it. */
  public static MetadataCache of(Session session) {
    Objects.requireNonNull(session, "session");
    return sessionCaches.apply(session);
  }

  /** Called once, by {@link Session}: how to reach the cache a session holds. Not API. */
  public static void bindSessions(java.util.function.Function<Session, MetadataCache> caches) {
    sessionCaches = Objects.requireNonNull(caches, "caches");
  }

  /** Something that can say how much heap it holds, to be charged against the budget. */
  public interface Weighable {
    long estimatedBytes();
  }

  public MetadataCache(long maxBytes) {
    this(maxBytes, null);
  }

  /**
   * Like {@link #MetadataCache(long)}, with the executor Caffeine uses for eviction maintenance; pass
   * {@code Runnable::run} to make eviction synchronous (deterministic tests).
   */
  public MetadataCache(long maxBytes, Executor maintenanceExecutor) {
    if (maxBytes < 0) {
      throw new InvalidArgumentException("cache budget must be >= 0 bytes, got " + maxBytes);
    }
    Caffeine<Object, Object> builder = Caffeine.newBuilder();
    if (maintenanceExecutor != null) {
      builder.executor(maintenanceExecutor);
    }
    this.cache =
        builder
            .maximumWeight(maxBytes)
            .<String, Weighable>weigher((k, v) -> weight(k, v))
            .build();
  }

  private static int weight(String key, Weighable value) {
    long bytes = value.estimatedBytes() + 2L * key.length() + 64;
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, bytes));
  }

  /**
   * The cached value for a location, loading it with {@code loader} on a miss. Exceptions from the loader
   * propagate unchanged and nothing is cached.
   */
  @SuppressWarnings("unchecked")
  public <T extends Weighable> T get(String location, Function<String, T> loader) {
    Objects.requireNonNull(location, "location");
    Objects.requireNonNull(loader, "loader");
    return (T) cache.get(location, loader);
  }

  /** The cached value for a location, or null; never loads. */
  @SuppressWarnings("unchecked")
  public <T extends Weighable> T getIfPresent(String location) {
    return (T) cache.getIfPresent(Objects.requireNonNull(location, "location"));
  }

  /**
   * Charges {@code value}'s current {@link Weighable#estimatedBytes()} to the budget when it is still the
   * entry cached for {@code location} (a value that grows after it is cached, such as a data file's metadata
   * loading batches, calls this); does nothing otherwise.
   */
  public void reweigh(String location, Weighable value) {
    cache.asMap().replace(location, value, value);
  }

  public void invalidate(String location) {
    cache.invalidate(location);
  }

  /** Bytes currently charged to the cache (approximate: estimates, after pending evictions). */
  public long estimatedSize() {
    cache.cleanUp();
    return cache.policy().eviction().orElseThrow().weightedSize().orElse(0L);
  }
}
