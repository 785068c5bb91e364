package io.quiver.conformance;

import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One store the conformance suites run on. A new adapter gets every suite by implementing this small
 * interface (a name for reports, fresh table URIs in its scheme, and the adapter settings for them) and
 * one test class annotated {@link OnStores} that extends {@link StoreConformance} (every suite) or one
 * suite. The capability hooks ({@link #lacks}, {@link #largeObjects}, {@link #latency}) let a store that
 * cannot do something skip exactly the tests that need it, with the reason in the report.
 *
 * <p>Lifecycle: {@link OnStores} creates a fixture (public no-argument constructor) for each test class it
 * runs on the store and closes it when that class is done, so whatever the fixture starts (an emulator
 * process, a temporary directory) lives for one class and is shared by its tests. Start it lazily, on the
 * first call that needs it, so a class whose tests are all filtered out starts nothing.
 */
public interface StoreFixture extends AutoCloseable {
  /** The store's name in test reports and the conformance table, e.g. {@code s3}. */
  String name();

  /** A URI, opened by the default registry through ServiceLoader, where no table exists yet. */
  String newTableUri();

  /** Adapter settings (endpoint, credentials) for opening {@link #newTableUri()}. */
  default Map<String, String> storeOptions() {
    return Map.of();
  }

  /**
   * A fresh, empty store for the store contract; {@code name} is unique per test and safe as a path
   * segment. The default opens a new table URI through the default registry with {@link #storeOptions()}.
   */
  default ObjectStore newStore(String name) {
    return newStore(name, Map.of());
  }

  /** {@link #newStore(String)} with {@code extraOptions} on top of {@link #storeOptions()}. */
  default ObjectStore newStore(String name, Map<String, String> extraOptions) {
    Map<String, String> options = new HashMap<>(storeOptions());
    options.putAll(extraOptions);
    return ObjectStores.defaultRegistry().open(newTableUri(), options);
  }

  /**
   * Why this store lacks {@code capability}, or empty when it has it (the default, for every capability).
   * A test that needs a missing capability is skipped (a JUnit assumption) with this reason.
   */
  default Optional<String> lacks(Capability capability) {
    return Optional.empty();
  }

  /**
   * How the store writes objects too large for one request (multipart upload, resumable upload, staged
   * blocks), for the large-object tests; empty when it writes every object in one go (they are skipped).
   */
  default Optional<LargeObjects> largeObjects() {
    return Optional.empty();
  }

  /** What a round trip costs: sizes the property suites (histories, tries). */
  default Latency latency() {
    return Latency.REMOTE;
  }

  /** Stops whatever the fixture started; called once, when the test class that created it is done. */
  @Override
  default void close() {}

  /** What one store call costs. */
  enum Latency {
    /** In process or on local disk (memory, local): the property suites run their longer histories. */
    LOCAL,
    /** Over the network, an emulator's included: few, short histories, since every step is round trips. */
    REMOTE
  }
}
