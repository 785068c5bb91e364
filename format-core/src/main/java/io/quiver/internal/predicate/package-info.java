/**
 * Predicate evaluation over Arrow vectors (three-valued logic), literal coercion and value comparison.
 *
 * <p><b>Not API.</b> Public only so the engine's packages can reach each other; any release may change
 * or remove it. Use {@link io.quiver.dataset.Dataset} and the types it returns.
 */
package io.quiver.internal.predicate;
