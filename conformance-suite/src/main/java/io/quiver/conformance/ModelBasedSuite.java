package io.quiver.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * The model-based property ({@link ModelBasedProperty}, jqwik: three handles with stale views against a
 * versioned reference model) on the suite's store, with the histories its {@link StoreFixture#latency()}
 * affords.
 */
public abstract class ModelBasedSuite extends StoreSuite {
  @Test
  void everyVersionScansAsTheModelSays(TestReporter reporter) {
    String property = fixture().latency() == StoreFixture.Latency.LOCAL
        ? "everyVersionScansAsTheModelSaysOnALocalStore"
        : "everyVersionScansAsTheModelSays";
    PropertyCheck.run(ModelBasedProperty.class, property, fixture(), reporter);
  }
}
