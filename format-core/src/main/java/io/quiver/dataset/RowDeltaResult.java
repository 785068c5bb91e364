package io.quiver.dataset;

/**
 * What a {@link RowDelta#commit row delta} committed.
 *
 * @param version the committed version; the read version when the delta was empty (nothing committed); the
 *     version found under the idempotence key when an earlier attempt had committed it
 * @param deletedRows rows the delta deleted (updated rows included; rows already deleted at the read version
 *     are not counted; 0 when found already committed)
 * @param addedRows rows the delta added (new versions of updated rows included)
 * @param alreadyCommitted whether an earlier attempt had committed the delta under its idempotence key, so this
 *     call published nothing
 */
public record RowDeltaResult(long version, long deletedRows, long addedRows, boolean alreadyCommitted) {}
