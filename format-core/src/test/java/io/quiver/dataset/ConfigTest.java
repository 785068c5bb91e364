package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.store.MemoryObjectStore;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Table configuration: reading, updating, key-level conflicts between concurrent updates. */
class ConfigTest {
  private static final String URI_ = DeleteTest.URI_;
  private RootAllocator allocator;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    options = DeleteTest.options(new MemoryObjectStore(URI_), allocator);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private Dataset create() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 10)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  @Test
  void upsertsAndDeletesMakeANewVersionAndOldVersionsKeepTheirConfig() {
    try (Dataset ds = create()) {
      assertEquals(Map.of(), ds.config());
      assertEquals(2, ds.updateConfig(Map.of("owner", "ana", "ttl", "7d"), Set.of()));
      assertEquals(Map.of("owner", "ana", "ttl", "7d"), ds.config());
      assertEquals(3, ds.updateConfig(Map.of("owner", "bo"), Set.of("ttl", "never-set")));
      assertEquals(Map.of("owner", "bo"), ds.config());
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 10, 2)) {
        ds.append(List.of(b));
      }
      assertEquals(Map.of("owner", "bo"), ds.config(), "other writes carry the configuration over");
      try (Dataset v2 = ds.checkout(2)) {
        assertEquals(Map.of("owner", "ana", "ttl", "7d"), v2.config());
      }
      assertEquals("update-config", ds.versions().get(1).operation());
      try (Dataset reopened = Dataset.open(URI_, options)) {
        assertEquals(Map.of("owner", "bo"), reopened.config());
      }
      assertEquals(SampleTable.range(0, 12), SampleTable.scanIds(ds.newScan().open()));
    }
  }

  @Test
  void anEmptyUpdateCommitsNothing() {
    try (Dataset ds = create()) {
      assertEquals(1, ds.updateConfig(Map.of(), Set.of()));
      assertEquals(1, ds.updateConfig(null, null));
      assertEquals(1, ds.latestVersion());
    }
  }

  @Test
  void badKeysAndValuesAreRejected() {
    try (Dataset ds = create()) {
      InvalidArgumentException e =
          assertThrows(InvalidArgumentException.class, () -> ds.updateConfig(Map.of("a", "1"), Set.of("a")));
      assertThat(e.getMessage()).contains("'a'").contains("both set and removed");
      Map<String, String> nullValue = new HashMap<>();
      nullValue.put("a", null);
      e = assertThrows(InvalidArgumentException.class, () -> ds.updateConfig(nullValue, Set.of()));
      assertThat(e.getMessage()).contains("null value");
      assertThrows(InvalidArgumentException.class, () -> ds.updateConfig(Map.of("", "1"), Set.of()));
      Set<String> nullKey = new HashSet<>();
      nullKey.add(null);
      assertThrows(InvalidArgumentException.class, () -> ds.updateConfig(Map.of(), nullKey));
      assertEquals(1, ds.latestVersion());
    }
  }

  @Test
  void concurrentUpdatesOfTheSameKeyConflict() {
    try (Dataset a = create(); Dataset b = Dataset.open(URI_, options)) {
      assertEquals(2, a.updateConfig(Map.of("owner", "ana"), Set.of()));
      RetryableConflictException e = assertThrows(RetryableConflictException.class,
          () -> b.updateConfig(Map.of("owner", "bo", "ttl", "1d"), Set.of()));
      assertThat(e.getMessage()).contains("update-config committed as version 2");
      assertEquals(2, b.latestVersion());
      try (Dataset latest = b.checkoutLatest()) {
        assertEquals(Map.of("owner", "ana"), latest.config(), "the first update is intact, the second left nothing");
      }
    }
  }

  @Test
  void aConcurrentRemovalOfTheSameKeyConflicts() {
    try (Dataset a = create()) {
      a.updateConfig(Map.of("owner", "ana"), Set.of());
      try (Dataset b = Dataset.open(URI_, options)) {
        a.updateConfig(Map.of(), Set.of("owner"));
        assertThrows(RetryableConflictException.class, () -> b.updateConfig(Map.of("owner", "bo"), Set.of()));
      }
    }
  }

  @Test
  void concurrentUpdatesOfDifferentKeysBothLand() {
    try (Dataset a = create(); Dataset b = Dataset.open(URI_, options); Dataset c = Dataset.open(URI_, options)) {
      assertEquals(2, a.updateConfig(Map.of("owner", "ana"), Set.of()));
      assertEquals(3, b.updateConfig(Map.of("ttl", "7d"), Set.of()));
      try (VectorSchemaRoot rows = SampleTable.batch(allocator, 10, 5)) {
        assertEquals(4, c.append(List.of(rows)), "an append does not touch configuration");
      }
      assertEquals(Map.of("owner", "ana", "ttl", "7d"), b.config());
      assertEquals(Map.of("owner", "ana", "ttl", "7d"), c.config());
    }
  }
}
