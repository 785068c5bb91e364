package io.quiver.spark;

import java.util.List;
import java.util.Set;

/**
 * What a {@link Backfill} committed.
 *
 * @param version the committed version
 * @param readVersion the version the first attempt read
 * @param fragments fragments with a staged write in the commit
 * @param computedPerAttempt the fragments each attempt computed: the first all of them, later ones only those
 *     found stale or new (a concurrent compaction's output, say)
 */
public record BackfillResult(long version, long readVersion, int fragments, List<Set<Long>> computedPerAttempt) {
  public BackfillResult {
    computedPerAttempt = List.copyOf(computedPerAttempt);
  }

  /** How many commits it took. */
  public int attempts() {
    return computedPerAttempt.size();
  }
}
