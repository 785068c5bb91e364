package io.quiver.dataset;

import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Computes new values for a batch of matched rows in a computed update ({@code Dataset.update(where,
 * inputColumns, outputColumns, fn)}).
 *
 * <p>{@code current} holds the matched rows' current values (overlays merged) of the update's input
 * columns, shaped like a scan of those columns (nested paths keep their struct ancestors). It belongs to
 * Quiver and is closed after the call. The result must have exactly {@code current.getRowCount()} rows and
 * one vector per output column, in the order the output columns were given, each of that column's type
 * (names are not checked); Quiver closes it. The function may be called several times per update (once
 * per batch of matched rows) and must not keep either root.
 */
@FunctionalInterface
public interface UpdateFunction {
  VectorSchemaRoot apply(VectorSchemaRoot current);
}
