package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.store.CountingObjectStore;
import io.quiver.store.MemoryObjectStore;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

class MetadataCacheTest {
  private record Blob(long estimatedBytes) implements MetadataCache.Weighable {}

  @Test
  void aSessionHasOneCacheSharedByItsHandlesAndAnotherSessionAnother() {
    io.quiver.dataset.Session a = new io.quiver.dataset.Session(1 << 20);
    io.quiver.dataset.Session b = new io.quiver.dataset.Session(1 << 20);
    MetadataCache cacheOfA = MetadataCache.of(a);
    cacheOfA.get("mem://x/f", loc -> new Blob(10));
    assertThat(MetadataCache.of(a)).isSameAs(cacheOfA);
    assertThat(MetadataCache.of(b)).isNotSameAs(cacheOfA);
    assertThat(MetadataCache.of(b).<Blob>getIfPresent("mem://x/f")).isNull();
    assertThat(MetadataCache.of(a).<Blob>getIfPresent("mem://x/f")).isNotNull();
  }

  /**
   * A session's cache is collected in the same garbage collection as the session: nothing but the session
   * holds it. (A map from sessions to caches, even with weak keys, held each cache until the map noticed, so a
   * process opening tables with short-lived sessions kept the parsed metadata of every open: 80 MB per open
   * of a 100,000-fragment table, until opens slowed to seconds.)
   */
  @Test
  void aSessionsCacheIsCollectedWithTheSession() {
    io.quiver.dataset.Session session = new io.quiver.dataset.Session(64L << 20);
    MetadataCache cache = MetadataCache.of(session);
    cache.get("mem://x/f", loc -> new Blob(1 << 20));
    java.lang.ref.WeakReference<io.quiver.dataset.Session> sessionRef = new java.lang.ref.WeakReference<>(session);
    java.lang.ref.WeakReference<MetadataCache> cacheRef = new java.lang.ref.WeakReference<>(cache);
    session = null;
    cache = null;
    for (int i = 0; i < 50 && sessionRef.get() != null; i++) {
      System.gc();
    }
    assertThat(sessionRef.get()).as("the session is collected once unreachable").isNull();
    // Weak references to objects that became unreachable together are cleared together.
    assertThat(cacheRef.get()).as("its cache went with it, in the same collection").isNull();
  }

  @Test
  void staysWithinItsByteBudget() {
    MetadataCache cache = new MetadataCache(100_000, Runnable::run);
    AtomicInteger loads = new AtomicInteger();
    for (int i = 0; i < 1000; i++) {
      cache.get("mem://x/f" + i, loc -> {
        loads.incrementAndGet();
        return new Blob(5_000);
      });
      assertThat(cache.estimatedSize() <= 100_000).as("size " + cache.estimatedSize() + " after " + i).isTrue();
    }
    assertThat(loads.get()).isEqualTo(1000);
    assertThat(cache.estimatedSize() > 50_000).as("the budget is used: " + cache.estimatedSize()).isTrue();
    // an entry larger than the whole budget is returned but not kept
    Blob huge = cache.get("mem://x/huge", loc -> new Blob(1L << 40));
    assertThat(huge.estimatedBytes()).isEqualTo(1L << 40);
    assertThat(cache.estimatedSize() <= 100_000).isTrue();
  }

  @Test
  void hitsReturnTheSameInstanceAndInvalidateForcesALoad() {
    MetadataCache cache = new MetadataCache(1 << 20, Runnable::run);
    AtomicInteger loads = new AtomicInteger();
    Blob first = cache.get("a", loc -> new Blob(loads.incrementAndGet()));
    assertThat((Object) cache.get("a", loc -> new Blob(loads.incrementAndGet()))).isSameAs(first);
    cache.invalidate("a");
    cache.get("a", loc -> new Blob(loads.incrementAndGet()));
    assertThat(loads.get()).isEqualTo(2);
  }

  @Test
  void failedLoadsAreNotCached() {
    MetadataCache cache = new MetadataCache(1 << 20, Runnable::run);
    assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> cache.get("a", loc -> {
      throw new CorruptFileException(loc, "bad");
    }));
    long bytes = cache.get("a", loc -> new Blob(7)).estimatedBytes();
    assertThat(bytes).isEqualTo(7);
  }

  @Test
  void readerCachesMetadataByLocationAndEstimatesItsSize() {
    CountingObjectStore store = new CountingObjectStore(new MemoryObjectStore("mem://c"));
    MetadataCache cache = new MetadataCache(1 << 20, Runnable::run);
    DataFileReader reader = new DataFileReader(store, cache, ReadOptions.defaults());
    try (RootAllocator allocator = new RootAllocator()) {
      Files.writeRandom(store, "small.arrow", ProjectionTest.SCHEMA, 10, 1, allocator, 64);
      Files.writeRandom(store, "big.arrow", ProjectionTest.SCHEMA, 1000, 1, allocator, 10);
    }
    store.reset();
    DataFileMetadata small = reader.metadata("small.arrow");
    DataFileMetadata big = reader.metadata("big.arrow");
    long reads = store.readCalls();
    assertThat(reader.metadata("small.arrow")).isSameAs(small);
    assertThat(store.readCalls()).as("cached: no reads").isEqualTo(reads);
    assertThat(small.estimatedBytes() > 1000).isTrue();
    assertThat(big.estimatedBytes() > 10 * small.estimatedBytes() / 2).as(big + " vs " + small).isTrue();
    assertThat(cache.estimatedSize() >= small.estimatedBytes() + big.estimatedBytes()).isTrue();
    // two readers over one cache share entries
    DataFileReader other = new DataFileReader(store, cache, new ReadOptions(0));
    assertThat(other.metadata("big.arrow")).isSameAs(big);
  }
}
