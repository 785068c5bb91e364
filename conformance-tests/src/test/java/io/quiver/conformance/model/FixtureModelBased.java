package io.quiver.conformance.model;

import io.quiver.conformance.StoreFixture;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Session;
import io.quiver.model.ModelChains;
import io.quiver.model.ModelWorld;
import io.quiver.testing.ConformanceDepth;
import io.quiver.testing.DepthTries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.ActionChain;

/**
 * The model-based stateful property ({@link ModelWorld}) on a store fixture, opened by URI through
 * ServiceLoader: few, short histories, since every step is several round trips to an emulator (5 of up to
 * 15 steps; 40 of up to 30 with {@code -Pconformance-long}).
 */
abstract class FixtureModelBased {
  /** The store under test. */
  protected abstract StoreFixture fixture();

  private ModelChains chains() {
    StoreFixture fixture = fixture();
    return new ModelChains(
        fixture::newTableUri,
        allocator -> DatasetOptions.builder()
            .allocator(allocator)
            .storeOptions(fixture.storeOptions())
            .session(new Session(4 << 20))
            .maxRowsPerFragment(5)
            .rowsPerBatch(4)
            .build());
  }

  @Provide
  Arbitrary<ActionChain<ModelWorld>> histories() {
    return chains().chains(ConformanceDepth.pick(15, 15, 30));
  }

  // On an emulator a try costs seconds: the ci depth adds few tries here (its rotating seed is what
  // explores new cases every run); the commit logic gets its tries on memory in format-core.
  @Property(seed = "20261129")
  @DepthTries(quick = 5, ci = 8, deep = 40)
  void everyVersionScansAsTheModelSays(@ForAll("histories") ActionChain<ModelWorld> history) {
    chains().run(history);
  }
}
