package io.quiver.conformance;

import org.junit.jupiter.params.Parameter;

/**
 * Base of the conformance suites: the store under test. {@link OnStores} on the test class injects one
 * fixture per store; a class that runs the suite otherwise (a nested class of {@link StoreConformance}, a
 * broken variant) overrides {@link #fixture()}.
 */
public abstract class StoreSuite {
  @Parameter
  private StoreFixture fixture;

  /** The store under test. */
  protected StoreFixture fixture() {
    if (fixture == null) {
      throw new IllegalStateException(getClass().getName() + " has no store fixture: annotate the test class"
          + " @OnStores(YourStoreFixture.class), or override fixture()");
    }
    return fixture;
  }

  /** Skips the calling test (reported as skipped, with the store's reason) when the store lacks {@code capability}. */
  protected void assumeCapable(Capability capability) {
    capability.assumeOn(fixture());
  }
}
