/**
 * Encodings of the table's metadata: manifests and transactions (protobuf in a CRC-32C envelope), schemas,
 * tags, write results, staged writes and scan tasks. The byte layout is specified in {@code docs/format.md}
 * (scan tasks: {@code docs/scan-planning.md}).
 *
 * <p><b>Not API.</b> Public only so the engine's packages can reach each other; any release may change
 * or remove it. Use {@link io.quiver.dataset.Dataset} and the types it returns.
 */
package io.quiver.internal.codec;
