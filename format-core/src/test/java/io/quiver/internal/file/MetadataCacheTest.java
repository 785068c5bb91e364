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
