package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.MemoryObjectStore;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;

/** A memory store, a reader on it and a leak-checked allocator (every buffer closed by the end of a test). */
abstract class DataFileTestBase {
  final RootAllocator allocator = new RootAllocator();
  final MemoryObjectStore store = new MemoryObjectStore("mem://bucket/table");
  final DataFileReader reader = new DataFileReader(store, new MetadataCache(1 << 20), ReadOptions.defaults());

  @AfterEach
  void noLeaks() {
    assertThat(allocator.getAllocatedMemory()).as("leaked Arrow memory").isEqualTo(0);
    allocator.close();
  }
}
