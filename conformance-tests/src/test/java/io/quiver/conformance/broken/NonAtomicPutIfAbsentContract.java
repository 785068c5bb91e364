package io.quiver.conformance.broken;

import io.quiver.conformance.ObjectStoreContract;
import io.quiver.conformance.OnStores;
import io.quiver.conformance.StoreFixture;
import io.quiver.store.ObjectStore;
import java.util.Map;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The store contract against {@link NonAtomicPutIfAbsentStore}. Named so that surefire does not pick it
 * up (it is expected to fail), and disabled unless {@link BrokenStoreIsCaughtTest} runs it through the JUnit
 * launcher ({@link BrokenSuites}, so {@code -Dtest=io.quiver.conformance.**} does not run it on its own).
 */
@EnabledIf("io.quiver.conformance.broken.BrokenSuites#launching")
@OnStores(NonAtomicPutIfAbsentContract.Fixture.class)
public class NonAtomicPutIfAbsentContract extends ObjectStoreContract {
  /** Memory stores whose {@code putIfAbsent} checks, then writes. */
  public static final class Fixture implements StoreFixture {
    @Override
    public String name() {
      return "broken-put-if-absent";
    }

    @Override
    public String newTableUri() {
      throw new UnsupportedOperationException("only the store contract runs on this broken store");
    }

    @Override
    public ObjectStore newStore(String name, Map<String, String> extraOptions) {
      return new NonAtomicPutIfAbsentStore("memory://broken/" + name);
    }
  }
}
