package io.quiver.conformance;

import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.Parameter;

/**
 * Every conformance suite on one store, for an adapter's own test module: subclass it with {@link
 * OnStores} naming the adapter's {@link StoreFixture}, and every suite runs as a nested class of that one
 * test class, on one fixture (created and closed once, so an emulator behind it is started once):
 *
 * <pre>{@code
 * @OnStores(AcmeStoreFixture.class)
 * class AcmeConformanceTest extends StoreConformance {}
 * }</pre>
 *
 * <p>Quiver's own stores run the same suites one test class per suite ({@code conformance-tests},
 * package {@code io.quiver.conformance.matrix}), so that each can be selected on its own.
 */
public abstract class StoreConformance {
  /** Every suite, in the order of the conformance report; {@link StoreConformance} nests each of them. */
  public static final List<Class<?>> SUITES = List.of(
      ObjectStoreContract.class,
      ObjectStoreCapabilityContract.class,
      CatalogueScenarios.class,
      HostileInputSuite.class,
      KeyedAppendAcrossProcessesContract.class,
      FaultScheduleSuite.class,
      ModelBasedSuite.class,
      ConcurrentAppendsContract.class,
      DatasetStoreContract.class,
      DeleteContract.class,
      UpdateStoreContract.class,
      ColumnEvolutionContract.class);

  @Parameter
  private StoreFixture fixture;

  /** The store under test, shared by every nested suite. */
  protected StoreFixture fixture() {
    if (fixture == null) {
      throw new IllegalStateException(getClass().getName() + " has no store fixture: annotate it"
          + " @OnStores(YourStoreFixture.class)");
    }
    return fixture;
  }

  @Nested
  class ObjectStore extends ObjectStoreContract {
    @Override
    protected StoreFixture fixture() {
      return StoreConformance.this.fixture();
    }
  }

  @Nested
  class ObjectStoreCapabilities extends ObjectStoreCapabilityContract {
    @Override
    protected StoreFixture fixture() {
      return StoreConformance.this.fixture();
    }
  }

  @Nested
  class Catalogue extends CatalogueScenarios {
    @Override
    protected StoreFixture fixture() {
      return StoreConformance.this.fixture();
    }
  }

  @Nested
  class HostileInput extends HostileInputSuite {
    @Override
    protected StoreFixture fixture() {
      return StoreConformance.this.fixture();
    }
  }

  @Nested
  class KeyedAppendAcrossProcesses extends KeyedAppendAcrossProcessesContract {
    @Override
    protected StoreFixture fixture() {
      return StoreConformance.this.fixture();
    }
  }

  @Nested
  class FaultSchedule extends FaultScheduleSuite {
    @Override
    protected StoreFixture fixture() {
      return StoreConformance.this.fixture();
    }
  }

  @Nested
  class ModelBased extends ModelBasedSuite {
    @Override
    protected StoreFixture fixture() {
      return StoreConformance.this.fixture();
    }
  }

  @Nested
  class ConcurrentAppends extends ConcurrentAppendsContract {
    @Override
    protected StoreFixture fixture() {
      return StoreConformance.this.fixture();
    }
  }

  @Nested
  class DatasetJourneys extends DatasetStoreContract {
    @Override
    protected StoreFixture fixture() {
      return StoreConformance.this.fixture();
    }
  }

  @Nested
  class Deletes extends DeleteContract {
    @Override
    protected StoreFixture fixture() {
      return StoreConformance.this.fixture();
    }
  }

  @Nested
  class Updates extends UpdateStoreContract {
    @Override
    protected StoreFixture fixture() {
      return StoreConformance.this.fixture();
    }
  }

  @Nested
  class ColumnEvolution extends ColumnEvolutionContract {
    @Override
    protected StoreFixture fixture() {
      return StoreConformance.this.fixture();
    }
  }
}
