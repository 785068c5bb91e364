package io.quiver.flink.sink;

import io.quiver.dataset.WriteResult;
import java.util.Objects;
import java.util.Optional;

/**
 * One upsert subtask's changes of one checkpoint: the new rows of the keys it inserted or updated (a data file
 * not yet committed, absent when the checkpoint only deleted), and every key it changed — inserted, updated or
 * deleted — as an Arrow IPC stream of the key columns. The commit deletes every live row of those keys and adds
 * the new rows: each changed key ends with exactly one row, or none.
 *
 * @param rows the written rows (the last change of each upserted key)
 * @param keys the changed keys, Arrow IPC stream bytes of the primary key columns
 * @param upserts keys whose last change inserted or updated a row
 * @param deletes keys whose last change deleted
 * @param rowKeysFirst whether {@code keys} lists the upserted keys first, in the order of the written rows (then the
 *     deleted keys), so that the committer can tell which row replaces which: results written before that order
 *     existed (serializer version 1) do not, and their upserts get new row ids
 */
public record UpsertResult(Optional<WriteResult> rows, byte[] keys, long upserts, long deletes, boolean rowKeysFirst) {
  /** A result whose keys are in no particular order. */
  public UpsertResult(Optional<WriteResult> rows, byte[] keys, long upserts, long deletes) {
    this(rows, keys, upserts, deletes, false);
  }

  public UpsertResult {
    Objects.requireNonNull(rows, "rows");
    Objects.requireNonNull(keys, "keys");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof UpsertResult r && rows.equals(r.rows) && java.util.Arrays.equals(keys, r.keys)
        && upserts == r.upserts && deletes == r.deletes && rowKeysFirst == r.rowKeysFirst;
  }

  @Override
  public int hashCode() {
    return Objects.hash(rows, java.util.Arrays.hashCode(keys), upserts, deletes, rowKeysFirst);
  }

  @Override
  public String toString() {
    return "UpsertResult[" + upserts + " upserts, " + deletes + " deletes]";
  }
}
