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
 * reference model (see there).
 */
class DatasetModelProperties {
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
    return chains.chains(25);
  }

  @Property(tries = 40)
  void everyVersionScansAsTheModelSays(@ForAll("histories") ActionChain<ModelWorld> history) {
    chains.run(history);
  }
}
