/**
 * The storage ports: {@link io.quiver.store.ObjectStore} (objects with conditional put) and
 * {@link io.quiver.store.CommitStore} (claiming a version), the
 * {@link io.quiver.store.ObjectStoreProvider} SPI that adapters implement and
 * {@link io.quiver.store.ObjectStores} finds by {@link java.util.ServiceLoader}, and the in-memory store.
 * Supported API and SPI: adapters depend on this package and {@code io.quiver.exceptions} only.
 */
package io.quiver.store;
