/**
 * {@link io.quiver.store.ObjectStore} adapter for Google Cloud Storage: scheme {@code gs}, URI {@code
 * gs://bucket/optional/prefix}, google-cloud-storage client over its HTTP/JSON transport.
 *
 * <p>{@code putIfAbsent} is an upload with the precondition {@code ifGenerationMatch=0} ("create only if no
 * live object has this name"): 412 Precondition Failed means the object exists. Streaming writes above a
 * threshold use a resumable upload that is finalized only on close. Options are listed on {@link
 * io.quiver.store.gcs.GcsStoreOptions}; {@code docs/storage.md} (Google Cloud Storage) describes the guarantees and what was
 * verified against which emulator.
 */
package io.quiver.store.gcs;
