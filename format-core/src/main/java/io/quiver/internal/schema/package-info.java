/**
 * Schema mechanics: Arrow conversion, field-id allocation, type rules and field paths.
 *
 * <p><b>Not API.</b> Public only so the engine's packages can reach each other; any release may change
 * or remove it. Use {@link io.quiver.dataset.Dataset} and the types it returns.
 */
package io.quiver.internal.schema;
