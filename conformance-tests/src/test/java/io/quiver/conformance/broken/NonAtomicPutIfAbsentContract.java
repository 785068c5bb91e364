package io.quiver.conformance.broken;

import io.quiver.conformance.ObjectStoreContractTest;
import io.quiver.store.ObjectStore;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The store contract against {@link NonAtomicPutIfAbsentStore}. Named so that surefire does not pick it
 * up (it is expected to fail), and disabled unless {@link BrokenStoreIsCaughtTest} runs it through the JUnit
 * launcher ({@link BrokenSuites}, so {@code -Dtest=io.quiver.conformance.**} does not run it on its own).
 */
@EnabledIf("io.quiver.conformance.broken.BrokenSuites#launching")
public class NonAtomicPutIfAbsentContract extends ObjectStoreContractTest {
  @Override
  protected ObjectStore newStore(String name) {
    return new NonAtomicPutIfAbsentStore("memory://broken/" + name);
  }
}
