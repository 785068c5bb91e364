package io.quiver.dataset;

/**
 * What a {@link MergeInsert#execute merge-insert} committed.
 *
 * @param version the version holding the merge (the handle's version when the merge changed nothing)
 * @param rowsInserted source rows inserted as new rows
 * @param rowsUpdated matched target rows whose cells were set from their source row
 * @param rowsDeleted target rows deleted because no source row matched them
 * @param attempts attempts it took: 1, or more when a concurrent commit made an attempt retryable
 */
public record MergeInsertResult(long version, long rowsInserted, long rowsUpdated, long rowsDeleted, int attempts) {}
