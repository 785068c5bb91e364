package io.quiver.dataset;

/**
 * What a compaction committed.
 *
 * @param version the committed version, or the handle's version when nothing qualified (no commit)
 * @param fragmentsRemoved fragments rewritten
 * @param fragmentsAdded fragments written in their place
 * @param rowsRewritten live rows copied into the new fragments
 */
public record CompactionResult(long version, int fragmentsRemoved, int fragmentsAdded, long rowsRewritten) {}
