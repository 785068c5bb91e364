package io.quiver.dataset;

/**
 * What a delete did.
 *
 * @param version the version the delete committed, or the handle's version when there was nothing to delete
 *     (no version is committed then)
 * @param deletedRows rows this delete removed; rows that were already deleted, by an earlier version or by a
 *     concurrent delete it was merged with, are not counted
 */
public record DeleteResult(long version, long deletedRows) {}
