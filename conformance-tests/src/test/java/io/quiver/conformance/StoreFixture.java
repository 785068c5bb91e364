package io.quiver.conformance;

import java.util.Map;

/**
 * One store the conformance suites run on. A new adapter gets every suite by implementing this small
 * interface (a name for reports, fresh table URIs in its scheme, and the adapter settings for them) and
 * adding one subclass per suite that returns it. Emulators behind a fixture are started once per JVM, on
 * first use, and stopped by a shutdown hook.
 */
public interface StoreFixture {
  /** The store's name in test reports and the conformance table, e.g. {@code s3}. */
  String name();

  /** A URI, opened by the default registry through ServiceLoader, where no table exists yet. */
  String newTableUri();

  /** Adapter settings (endpoint, credentials) for opening {@link #newTableUri()}. */
  default Map<String, String> storeOptions() {
    return Map.of();
  }
}
