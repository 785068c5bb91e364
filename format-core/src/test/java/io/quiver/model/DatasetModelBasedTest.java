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
 * compactions, restores and checkouts, scalar index creates, optimizes and drops, and of exactly-once
 * commits: keyed appends (retried with the same rows, reused with others; through append and through
 * workers' results), application sequences, driver crashes recovered through findCommit, restarted
 * processes, cleanups to the latest version and expiry of the idempotence ledger; after every step Quiver
 * must agree with {@link ModelWorld}'s reference model, and every index with the scan without indices (see
 * there). About 40 s on 2 cores.
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
   * The seed is this property's at the quick and ci depths (210 histories of up to 30 steps at quick, the
   * same every run; 630 of up to 37 at ci); {@code -Pconformance-long} runs 1,000 of up to 45 with a new
   * seed every run (see {@link ConformanceDepth}; {@code -Dquiver.conformance.seed=N} pins it). 210, not
   * the 250 before the exactly-once actions, keeps the quick run's time: those actions cost more per step.
   * Set the length with {@code -Dquiver.model.steps=N}. Histories it finds go to {@link ModelHistoriesTest}.
   */
  @Property(seed = "20261129")
  @DepthTries(quick = 210, deep = 1000)
  void everyVersionScansAsTheModelSays(@ForAll("histories") ActionChain<ModelWorld> history) {
    chains.run(history);
  }
}
