package io.quiver.model;

import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Session;
import io.quiver.testing.ConformanceDepth;
import io.quiver.testing.DepthTries;
import java.util.UUID;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.ActionChain;

/**
 * Model-based stateful property on the memory store: three handles with stale views run random
 * histories of appends, deletes, updates, column evolution, staged column writes, replacements,
 * compactions, restores and checkouts; after every step Quiver must agree with {@link ModelWorld}'s
 * reference model (see there). About 20 s on 2 cores.
 */
class DatasetModelBasedTest {
  private final ModelChains chains = new ModelChains(
      () -> "memory://model-" + UUID.randomUUID() + "/t",
      allocator -> DatasetOptions.builder()
          .allocator(allocator)
          .session(new Session(4 << 20))
          .maxRowsPerFragment(5)
          .rowsPerBatch(4)
          .build());

  @Provide
  Arbitrary<ActionChain<ModelWorld>> histories() {
    return chains.chains(Integer.getInteger("quiver.model.steps", ConformanceDepth.pick(30, 45)));
  }

  /**
   * The seed is this property's at the quick depth (250 histories of up to 30 steps, the same every run);
   * the default ci depth runs 750 of up to 37 and {@code -Pconformance-long} 1,000 of up to 45, both with a
   * new seed every run (see {@link ConformanceDepth}; {@code -Dquiver.conformance.seed=N} pins it). Set
   * the length with {@code -Dquiver.model.steps=N}. Histories it finds go to {@link ModelHistoriesTest}.
   */
  @Property(seed = "20261129")
  @DepthTries(quick = 250, deep = 1000)
  void everyVersionScansAsTheModelSays(@ForAll("histories") ActionChain<ModelWorld> history) {
    chains.run(history);
  }
}
