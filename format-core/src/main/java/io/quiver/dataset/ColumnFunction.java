package io.quiver.dataset;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Computes column values for one chunk of one fragment, for {@link DatasetColumns#add} and {@link
 * DatasetColumns#replace}.
 *
 * <p>The input holds the requested input columns for a run of the fragment's <em>physical</em> rows,
 * deleted rows included: column files cover every physical row so that row offsets stay aligned. The
 * function returns a new batch, allocated from {@code allocator}, with exactly the output columns (names,
 * types and nullability as declared; a nested member such as {@code s.x} as its struct holding only
 * that member) and the same row count. Quiver closes both batches.
 */
@FunctionalInterface
public interface ColumnFunction {
  VectorSchemaRoot apply(VectorSchemaRoot input, BufferAllocator allocator);
}
