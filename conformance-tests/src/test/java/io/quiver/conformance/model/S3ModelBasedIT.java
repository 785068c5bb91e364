package io.quiver.conformance.model;

import io.quiver.conformance.emulator.S3ProxyEmulator;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Session;
import io.quiver.model.ModelChains;
import io.quiver.model.ModelWorld;
import java.util.UUID;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.state.ActionChain;

/**
 * The model-based stateful property ({@link ModelWorld}) on S3Proxy, opened by s3:// URI through
 * ServiceLoader: few, short histories, since every step is several HTTP round trips.
 */
class S3ModelBasedIT {
  private static final String BUCKET = "quiver-model";
  private static S3ProxyEmulator s3proxy;

  @BeforeContainer
  static void startEmulator() {
    s3proxy = S3ProxyEmulator.start();
    s3proxy.createBucket(BUCKET);
  }

  @AfterContainer
  static void stopEmulator() {
    if (s3proxy != null) {
      s3proxy.close();
    }
  }

  private final ModelChains chains = new ModelChains(
      () -> "s3://" + BUCKET + "/" + UUID.randomUUID() + "/table",
      allocator -> DatasetOptions.builder()
          .allocator(allocator)
          .storeOptions(s3proxy.storeOptions())
          .session(new Session(4 << 20))
          .maxRowsPerFragment(5)
          .rowsPerBatch(4)
          .build());

  @Provide
  Arbitrary<ActionChain<ModelWorld>> histories() {
    return chains.chains(15);
  }

  @Property(tries = 5, seed = "20261129")
  void everyVersionScansAsTheModelSays(@ForAll("histories") ActionChain<ModelWorld> history) {
    chains.run(history);
  }
}
