package io.quiver.conformance;

import io.quiver.hostile.HostileInputContract;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import org.junit.jupiter.params.Parameter;

/**
 * D1–D6 (format-core's {@link HostileInputContract}) on a store fixture, opened through ServiceLoader. It
 * extends format-core's suite, so it holds its own fixture instead of extending {@link StoreSuite}.
 */
public abstract class HostileInputSuite extends HostileInputContract {
  @Parameter
  private StoreFixture fixture;

  /** The store under test: injected by {@link OnStores}, or returned by an override. */
  protected StoreFixture fixture() {
    if (fixture == null) {
      throw new IllegalStateException(getClass().getName() + " has no store fixture: annotate the test class"
          + " @OnStores(YourStoreFixture.class), or override fixture()");
    }
    return fixture;
  }

  @Override
  protected ObjectStore newStore(String name) {
    StoreFixture fixture = fixture();
    return ObjectStores.defaultRegistry().open(fixture.newTableUri(), fixture.storeOptions());
  }
}
