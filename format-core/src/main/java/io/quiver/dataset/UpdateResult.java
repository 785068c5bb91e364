package io.quiver.dataset;

/**
 * What an update committed.
 *
 * @param version the version the update committed, or the handle's version when nothing matched (no
 *     commit)
 * @param updatedRows live rows whose cells the update changed
 */
public record UpdateResult(long version, long updatedRows) {}
