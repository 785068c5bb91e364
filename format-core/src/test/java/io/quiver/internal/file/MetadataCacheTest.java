package io.quiver.internal.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.store.CountingObjectStore;
import io.quiver.store.MemoryObjectStore;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

class MetadataCacheTest {
  private record Blob(long estimatedBytes) implements MetadataCache.Weighable {}

  @Test
  void staysWithinItsByteBudget() {
    MetadataCache cache = new MetadataCache(100_000, Runnable::run);
    AtomicInteger loads = new AtomicInteger();
    for (int i = 0; i < 1000; i++) {
      cache.get("mem://x/f" + i, loc -> {
        loads.incrementAndGet();
        return new Blob(5_000);
      });
      assertTrue(cache.estimatedSize() <= 100_000, "size " + cache.estimatedSize() + " after " + i);
    }
    assertEquals(1000, loads.get());
    assertTrue(cache.estimatedSize() > 50_000, "the budget is used: " + cache.estimatedSize());
    // an entry larger than the whole budget is returned but not kept
    Blob huge = cache.get("mem://x/huge", loc -> new Blob(1L << 40));
    assertEquals(1L << 40, huge.estimatedBytes());
    assertTrue(cache.estimatedSize() <= 100_000);
  }

  @Test
  void hitsReturnTheSameInstanceAndInvalidateForcesALoad() {
    MetadataCache cache = new MetadataCache(1 << 20, Runnable::run);
    AtomicInteger loads = new AtomicInteger();
    Blob first = cache.get("a", loc -> new Blob(loads.incrementAndGet()));
    assertSame(first, cache.get("a", loc -> new Blob(loads.incrementAndGet())));
    cache.invalidate("a");
    cache.get("a", loc -> new Blob(loads.incrementAndGet()));
    assertEquals(2, loads.get());
  }

  @Test
  void failedLoadsAreNotCached() {
    MetadataCache cache = new MetadataCache(1 << 20, Runnable::run);
    assertThrows(CorruptFileException.class, () -> cache.get("a", loc -> {
      throw new CorruptFileException(loc, "bad");
    }));
    assertEquals(7, cache.get("a", loc -> new Blob(7)).estimatedBytes());
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
    assertSame(small, reader.metadata("small.arrow"));
    assertEquals(reads, store.readCalls(), "cached: no reads");
    assertTrue(small.estimatedBytes() > 1000);
    assertTrue(big.estimatedBytes() > 10 * small.estimatedBytes() / 2, big + " vs " + small);
    assertTrue(cache.estimatedSize() >= small.estimatedBytes() + big.estimatedBytes());
    // two readers over one cache share entries
    DataFileReader other = new DataFileReader(store, cache, new ReadOptions(0));
    assertSame(big, other.metadata("big.arrow"));
  }
}
