/**
 * Row predicates ({@link io.quiver.predicate.Predicate}) for delete, update and scan filters, over column
 * paths with SQL three-valued logic. Supported API; evaluation lives in {@code io.quiver.internal.predicate}.
 */
package io.quiver.predicate;
