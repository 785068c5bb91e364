/**
 * {@link io.quiver.store.ObjectStore} adapter for Google Cloud Storage: scheme {@code gs},
 * google-cloud-storage client. {@code putIfAbsent} will be an upload with the precondition {@code
 * ifGenerationMatch=0} (412 Precondition Failed means the object exists).
 *
 * <p>The adapter lands with the cloud-adapter issue; until then no provider is registered, and {@code gs://} URIs fail with a message naming
 * this module rather than opening a half-working store.
 */
package io.quiver.store.gcs;
