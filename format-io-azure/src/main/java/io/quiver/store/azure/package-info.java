/**
 * {@link io.quiver.store.ObjectStore} adapter for Azure Blob Storage and ADLS Gen2: schemes {@code az},
 * {@code abfs} and {@code abfss}, azure-storage-blob client. {@code putIfAbsent} is a Put Blob with
 * {@code If-None-Match: *} (409 BlobAlreadyExists / 412 means the blob exists); large writes stage blocks
 * and commit the block list under the same condition.
 *
 * <p>{@link io.quiver.store.azure.AzureObjectStoreProvider} is registered for {@link java.util.ServiceLoader},
 * so {@code az://container/prefix} (account from the options) and
 * {@code abfss://container@account.dfs.core.windows.net/prefix} open through {@link
 * io.quiver.store.ObjectStores}. Options ({@link io.quiver.store.azure.AzureStoreOptions}) and guarantees:
 * {@code docs/storage.md} (Azure Blob Storage).
 */
package io.quiver.store.azure;
