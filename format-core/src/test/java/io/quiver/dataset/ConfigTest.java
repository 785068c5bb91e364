package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
      assertThat(ds.config()).isEqualTo(Map.of());
      assertThat(ds.updateConfig(Map.of("owner", "ana", "ttl", "7d"), Set.of())).isEqualTo(2);
      assertThat(ds.config()).isEqualTo(Map.of("owner", "ana", "ttl", "7d"));
      assertThat(ds.updateConfig(Map.of("owner", "bo"), Set.of("ttl", "never-set"))).isEqualTo(3);
      assertThat(ds.config()).isEqualTo(Map.of("owner", "bo"));
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 10, 2)) {
        ds.append(List.of(b));
      }
      assertThat(ds.config()).as("other writes carry the configuration over").isEqualTo(Map.of("owner", "bo"));
      try (Dataset v2 = ds.checkout(2)) {
        assertThat(v2.config()).isEqualTo(Map.of("owner", "ana", "ttl", "7d"));
      }
      assertThat(ds.versions().get(1).operation()).isEqualTo("update-config");
      try (Dataset reopened = Dataset.open(URI_, options)) {
        assertThat(reopened.config()).isEqualTo(Map.of("owner", "bo"));
      }
      assertThat(SampleTable.scanIds(ds.newScan().open())).isEqualTo(SampleTable.range(0, 12));
    }
  }

  @Test
  void anEmptyUpdateCommitsNothing() {
    try (Dataset ds = create()) {
      assertThat(ds.updateConfig(Map.of(), Set.of())).isEqualTo(1);
      assertThat(ds.updateConfig(null, null)).isEqualTo(1);
      assertThat(ds.latestVersion()).isEqualTo(1);
    }
  }

  @Test
  void badKeysAndValuesAreRejected() {
    try (Dataset ds = create()) {
      InvalidArgumentException e =
          assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.updateConfig(Map.of("a", "1"), Set.of("a"))).actual();
      assertThat(e.getMessage()).contains("'a'").contains("both set and removed");
      Map<String, String> nullValue = new HashMap<>();
      nullValue.put("a", null);
      e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.updateConfig(nullValue, Set.of())).actual();
      assertThat(e.getMessage()).contains("null value");
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.updateConfig(Map.of("", "1"), Set.of()));
      Set<String> nullKey = new HashSet<>();
      nullKey.add(null);
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.updateConfig(Map.of(), nullKey));
      assertThat(ds.latestVersion()).isEqualTo(1);
    }
  }

  @Test
  void concurrentUpdatesOfTheSameKeyConflict() {
    try (Dataset a = create(); Dataset b = Dataset.open(URI_, options)) {
      assertThat(a.updateConfig(Map.of("owner", "ana"), Set.of())).isEqualTo(2);
      RetryableConflictException e = assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> b.updateConfig(Map.of("owner", "bo", "ttl", "1d"), Set.of())).actual();
      assertThat(e.getMessage()).contains("update-config committed as version 2");
      assertThat(b.latestVersion()).isEqualTo(2);
      try (Dataset latest = b.checkoutLatest()) {
        assertThat(latest.config()).as("the first update is intact, the second left nothing").isEqualTo(Map.of("owner", "ana"));
      }
    }
  }

  @Test
  void aConcurrentRemovalOfTheSameKeyConflicts() {
    try (Dataset a = create()) {
      a.updateConfig(Map.of("owner", "ana"), Set.of());
      try (Dataset b = Dataset.open(URI_, options)) {
        a.updateConfig(Map.of(), Set.of("owner"));
        assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> b.updateConfig(Map.of("owner", "bo"), Set.of()));
      }
    }
  }

  @Test
  void concurrentUpdatesOfDifferentKeysBothLand() {
    try (Dataset a = create(); Dataset b = Dataset.open(URI_, options); Dataset c = Dataset.open(URI_, options)) {
      assertThat(a.updateConfig(Map.of("owner", "ana"), Set.of())).isEqualTo(2);
      assertThat(b.updateConfig(Map.of("ttl", "7d"), Set.of())).isEqualTo(3);
      try (VectorSchemaRoot rows = SampleTable.batch(allocator, 10, 5)) {
        assertThat(c.append(List.of(rows))).as("an append does not touch configuration").isEqualTo(4);
      }
      assertThat(b.config()).isEqualTo(Map.of("owner", "ana", "ttl", "7d"));
      assertThat(c.config()).isEqualTo(Map.of("owner", "ana", "ttl", "7d"));
    }
  }
}
