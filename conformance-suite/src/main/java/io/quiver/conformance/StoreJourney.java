package io.quiver.conformance;

import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Session;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of the dataset journeys run on every store: a leak-checking allocator per test, and dataset
 * options that open the store under test by URI through ServiceLoader: {@link #newTableUri()} and {@link
 * #storeOptions()} of the store's {@link StoreFixture}.
 */
public abstract class StoreJourney extends StoreSuite {
  protected RootAllocator allocator;

  /** A URI (any scheme the default registry serves) where no table exists yet. */
  protected String newTableUri() {
    return fixture().newTableUri();
  }

  /** Adapter settings (endpoint, credentials) for opening {@link #newTableUri()}. */
  protected Map<String, String> storeOptions() {
    return fixture().storeOptions();
  }

  @BeforeEach
  void openAllocator() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void closeAllocator() {
    allocator.close(); // fails the test if an Arrow buffer leaked
  }

  /** Options for this store, with a private session so every test reads from the store. */
  protected DatasetOptions.Builder optionsBuilder() {
    return DatasetOptions.builder().allocator(allocator).storeOptions(storeOptions()).session(new Session(8 << 20));
  }
}
