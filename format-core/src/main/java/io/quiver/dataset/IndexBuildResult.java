package io.quiver.dataset;

import io.quiver.manifest.ScalarIndex;

/**
 * What the commit of a distributed index build published ({@link Indices#commit}).
 *
 * @param version the committed version, or the plan's version when an optimize had nothing to index (no
 *     commit)
 * @param index the index as that version holds it
 * @param column the indexed column's path at that version (dotted for a struct member)
 * @param segmentsAdded segments the commit added (one per task)
 * @param fragmentsIndexed fragments those segments cover
 * @param rowsIndexed postings those segments hold (physical rows, deleted ones included)
 */
public record IndexBuildResult(long version, ScalarIndex index, String column, int segmentsAdded, long fragmentsIndexed,
    long rowsIndexed) {}
