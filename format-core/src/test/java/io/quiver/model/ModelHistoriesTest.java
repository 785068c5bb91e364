package io.quiver.model;

import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Session;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Histories found by {@link DatasetModelBasedTest}, replayed step by step on the memory store so that each
 * stays checked whatever the property's random search explores.
 */
class ModelHistoriesTest {

  private static ModelWorld world() {
    return new ModelWorld("memory://model-" + UUID.randomUUID() + "/t", allocator -> DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(4 << 20))
        .maxRowsPerFragment(5)
        .rowsPerBatch(4)
        .build());
  }

  /** A stale handle appends, deletes, updates and adds a column over other handles' commits. */
  @Test
  void staleWritesAreRebasedOntoTheLatestVersion() {
    try (ModelWorld w = world()) {
      w.append(0, 3);
      w.check();
      w.deleteIds(1, 1, 2); // h1 still at v1
      w.check();
      w.update(2, 0, 4, 0, 9); // h2 still at v1
      w.check();
      w.addNullColumn(1);
      w.check();
      w.stagedNewColumn(0);
      w.check();
      w.compact(0);
      w.check();
      w.refresh(2);
      w.replace(2, 0);
      w.check();
    }
  }

  /**
   * Was a bug (found by the model-based property; fixed by making write-columns incompatible with a
   * committed restore): a staged column write computed at a version where a
   * row was deleted is committed over a later restore that made the row live again. The staged file holds
   * a placeholder (null) for the deleted physical row, and after the commit the resurrected row reads that
   * placeholder instead of its value: a silent data change. The witness of a staged write covers the
   * fragment's data files and overlays but not its deletion vector, and the conflict matrix leaves
   * write-columns against a committed restore to the witness (every other kind is incompatible with a
   * restore). Expected: the stale commit fails with a StaleColumnWriteException (or an
   * IncompatibleTransactionException), or the resurrected row keeps its value.
   *
   * <pre>
   *   create ids 0..7 -> v1
   *   h0@v1 delete 0 <= id < 1 -> v2
   *   h1 refresh -> v2
   *   h1@v2 restore v1 -> v3                      (row 0 is live again)
   *   h0@v2 staged rewrite of column a -> v4       (row 0: a = null; the model says a = its v3 value)
   * </pre>
   */
  @Test
  void stagedWriteOverARestoreDoesNotOverwriteResurrectedRows() {
    try (ModelWorld w = world()) {
      w.deleteIds(0, 0, 1);
      w.refresh(1);
      w.restore(1, 0);
      w.stagedRewrite(0, 0);
      w.check();
    }
  }
}
