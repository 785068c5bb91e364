/**
 * {@link io.quiver.store.ObjectStore} adapter for Amazon S3 and S3-compatible stores: scheme {@code s3},
 * AWS SDK for Java v2 with the Apache HttpClient 5 transport. {@code s3://bucket/prefix} opens an {@link
 * io.quiver.store.s3.S3ObjectStore} rooted at {@code prefix}; settings are {@code s3.*} options, listed
 * on {@link io.quiver.store.s3.S3StoreOptions}.
 *
 * <p>{@code putIfAbsent} is a {@code PutObject} with {@code If-None-Match: *}: S3 creates the object only
 * if the key is free, atomically (412 Precondition Failed means it exists), which makes commits safe
 * without a lock service. The store must honour conditional writes (AWS S3 does since August 2024); one
 * that ignores {@code If-None-Match} would silently overwrite and must not be used for tables with more
 * than one writer.
 */
package io.quiver.store.s3;
