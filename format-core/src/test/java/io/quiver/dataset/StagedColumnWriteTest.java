package io.quiver.dataset;

import static io.quiver.dataset.StagedColumnSupport.intField;
import static io.quiver.dataset.StagedColumnSupport.ints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.scenario.StagedColumnScenarios;
import io.quiver.store.MemoryObjectStore;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Scenarios A1–A18 of the race catalogue for staged column writes, each with handles interleaved
 * explicitly: the typed outcome, validate() and the values a scan returns.
 */
class StagedColumnWriteTest {
  private BufferAllocator allocator;
  private MemoryObjectStore store;
  private DatasetOptions options;
  private Dataset ds;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(OverlayTestSupport.URI_);
    options = OverlayTestSupport.options(allocator, store, 2);
    ds = OverlayTestSupport.create(allocator, options, 0, 4);
    // v = id * 10, stored in its own file: the existing field most scenarios rewrite.
    ds.columns().add(List.of(intField("v", true), intField("w", true)), List.of("id"), StagedColumnScenarios::tens);
  }

  @AfterEach
  void tearDown() {
    ds.close();
    allocator.close();
  }

  private StagedColumnWrite stage(Dataset handle, ColumnSchema schema, Integer... values) {
    try (ArrowReader reader = ints(allocator, schema.arrowSchema(), values)) {
      return handle.columns().writeFragment(0, reader, schema);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private void assertValid(Dataset handle) {
    try (Dataset latest = handle.checkoutLatest()) {
      assertThat(latest.validate().isValid()).as(() -> latest.validate().toString()).isTrue();
    }
  }

  // Scenarios A1–A18 run on every store, memory included, in conformance-tests (CatalogueScenarios).

  @Test
  void workerAndCoordinatorRoundTripThroughTheByteEncoding() {
    ColumnSchema schema = ds.columns().newSchema(List.of(intField("emb", true)), List.of("w"), List.of());
    byte[] bytes;
    try (Dataset worker = Dataset.open(OverlayTestSupport.URI_, options)) {
      StagedColumnWrite staged;
      try (ArrowReader reader = ints(allocator, schema.arrowSchema(), 1, 2, 3, 4)) {
        staged = worker.columns().writeFragment(0, reader, schema);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      bytes = staged.encode();
      assertThat(StagedColumnWrite.decode(bytes)).isEqualTo(staged);
    }
    try (Dataset coordinator = Dataset.open(OverlayTestSupport.URI_, options)) {
      coordinator.columns().commit(List.of(StagedColumnWrite.decode(bytes)));
      assertThat(StagedColumnSupport.column(coordinator, "emb")).isEqualTo(List.of(1, 2, 3, 4));
      assertThat(StagedColumnSupport.column(coordinator, "w")).isEqualTo(List.of(1, 2, 3, 4));
      assertThat(StagedColumnSupport.column(coordinator, "v")).isEqualTo(List.of(0, 10, 20, 30));
      assertThat(coordinator.validate().isValid()).isTrue();
    }
    byte[] damaged = bytes.clone();
    damaged[damaged.length - 1] ^= 1;
    assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> StagedColumnWrite.decode(damaged));
    assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> StagedColumnWrite.decode(Arrays.copyOf(bytes, 5)));
  }

  @Test
  void uncommittedStagedFilesAreRemovedByCleanupAfterTheSafetyWindow() {
    StagedColumnWrite w = stage(ds, ds.columns().newSchema(List.of(intField("n", true)), List.of(), List.of()), 1, 2, 3, 4);
    String path = w.file().path();
    ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).build());
    assertThat(store.head(path).isPresent()).as("inside the safety window the staged file is kept").isTrue();
    ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).safetyWindow(Duration.ZERO)
        .before(java.time.Instant.now().plusSeconds(60)).build());
    assertThat(store.head(path).isEmpty()).as("an uncommitted staged file is garbage after the window").isTrue();
    assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(() -> ds.columns().commit(List.of(w)));
    assertValid(ds);
  }
}
