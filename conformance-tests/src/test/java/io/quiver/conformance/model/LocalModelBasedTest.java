package io.quiver.conformance.model;

import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Session;
import io.quiver.model.ModelChains;
import io.quiver.model.ModelWorld;
import io.quiver.testing.ConformanceDepth;
import io.quiver.testing.DepthTries;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.state.ActionChain;

/**
 * The model-based stateful property of format-core ({@link ModelWorld}: three handles with stale views
 * against a versioned reference model) on the local file-system store, with fewer tries than on memory
 * (12 histories of up to 20 steps; 150 of up to 45 with {@code -Pconformance-long}).
 */
class LocalModelBasedTest {
  private final Path dir = tempDir();
  private final AtomicInteger tables = new AtomicInteger();
  private final ModelChains chains = new ModelChains(
      () -> dir.resolve("table-" + tables.getAndIncrement()).toUri().toString(),
      allocator -> DatasetOptions.builder()
          .allocator(allocator)
          .session(new Session(4 << 20))
          .maxRowsPerFragment(5)
          .rowsPerBatch(4)
          .build());

  @Provide
  Arbitrary<ActionChain<ModelWorld>> histories() {
    return chains.chains(ConformanceDepth.pick(20, 45));
  }

  @Property(seed = "20261129")
  @DepthTries(quick = 12, deep = 150)
  void everyVersionScansAsTheModelSays(@ForAll("histories") ActionChain<ModelWorld> history) {
    chains.run(history);
  }

  @AfterProperty
  void deleteTables() throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private static Path tempDir() {
    try {
      return Files.createTempDirectory("quiver-model-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
