/**
 * The conformance suites every store must pass, and the SPI that binds a store to them: a {@link
 * io.quiver.conformance.StoreFixture} (fresh table URIs, store options, capability hooks) and {@link
 * io.quiver.conformance.OnStores}. An adapter runs every suite from its own test module with one fixture and
 * one class extending {@link io.quiver.conformance.StoreConformance} (docs/adapter-guide.md). Uses the public
 * API and the store SPI only.
 */
package io.quiver.conformance;
