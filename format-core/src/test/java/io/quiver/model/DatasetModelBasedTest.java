package io.quiver.model;

import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Session;
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
    return chains.chains(Integer.getInteger("quiver.model.steps", 30));
  }

  /**
   * Fixed seed, so the build is deterministic; for a deeper random search remove the seed and raise the
   * tries locally, and lengthen the histories with {@code -Dquiver.model.steps=45}. Histories it finds go
   * to {@link ModelHistoriesTest}.
   */
  @Property(tries = 250, seed = "20261129")
  void everyVersionScansAsTheModelSays(@ForAll("histories") ActionChain<ModelWorld> history) {
    chains.run(history);
  }
}
