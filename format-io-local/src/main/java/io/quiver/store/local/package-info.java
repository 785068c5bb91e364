/**
 * {@link io.quiver.store.ObjectStore} adapter for the local filesystem, the embedded default: scheme {@code
 * file} (and plain paths). {@code putIfAbsent} writes a temporary file and links it into place with {@link
 * java.nio.file.Files#createLink}, which fails atomically if the name exists; fsync is on by default.
 * Depends only on the store SPI.
 */
package io.quiver.store.local;
