/**
 * The table schema: {@link io.quiver.schema.Schema} and {@link io.quiver.schema.Field}, with recursive
 * field ids that stay stable across renames and drops, and the reserved column names
 * ({@link io.quiver.schema.ReservedNames}). Supported API.
 */
package io.quiver.schema;
