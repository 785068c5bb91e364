/**
 * {@link io.quiver.store.ObjectStore} adapter for Azure Blob Storage and ADLS Gen2: schemes {@code az},
 * {@code abfs} and {@code abfss}, azure-storage-blob client. {@code putIfAbsent} will be a Put Blob with
 * {@code If-None-Match: *} (409 BlobAlreadyExists / 412 means the blob exists); large writes stage blocks
 * and commit the block list under the same condition.
 *
 * <p>The adapter lands with the cloud-adapter issue; until then no provider is registered, and {@code az://} and {@code abfs[s]://} URIs fail
 * with a message naming this module rather than opening a half-working store.
 */
package io.quiver.store.azure;
