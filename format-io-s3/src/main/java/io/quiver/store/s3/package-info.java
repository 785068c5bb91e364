/**
 * {@link io.quiver.store.ObjectStore} adapter for Amazon S3 and S3-compatible stores: scheme {@code s3},
 * AWS SDK for Java v2. {@code putIfAbsent} will be a {@code PutObject} with {@code If-None-Match: *}
 * (412 Precondition Failed means the key exists), which makes commits safe without a lock service.
 *
 * <p>The adapter lands with the cloud-adapter issue; until then no provider is registered, and {@code s3://} URIs fail with a message naming
 * this module rather than opening a half-working store.
 */
package io.quiver.store.s3;
