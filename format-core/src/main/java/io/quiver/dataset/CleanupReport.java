package io.quiver.dataset;

import java.util.List;

/**
 * What {@link Dataset#cleanup} removed (or, for a dry run, would have removed).
 *
 * @param versionsRemoved versions whose manifest was removed, oldest first
 * @param manifestsRemoved manifest files removed (one per removed version)
 * @param transactionFilesRemoved files under {@code _transactions/} removed
 * @param dataFilesRemoved files under {@code data/} removed (data and overlay files)
 * @param deletionFilesRemoved files under {@code _deletions/} removed
 * @param stagingFilesRemoved files under {@code _staging/} removed (checkpoints committed or abandoned)
 * @param temporaryFilesRemoved the store's own temporary files removed: left by writers that were killed
 *     mid-write (the local store's {@code .quiver-tmp-*}), older than the safety window ({@link
 *     io.quiver.store.ObjectStore#abandonedTemporaries})
 * @param bytesFreed total size of every file removed, manifests included
 * @param failed what could not be deleted (left in place; a later cleanup retries it): object keys, and for a
 *     version its {@link io.quiver.store.CommitStore#locationOf(long) location}
 * @param dryRun true when nothing was actually deleted
 * @param segmentFilesRemoved root files under {@code _manifests/} and segment files under {@code _segments/}
 *     removed (segmented manifests, format 1.2): those of removed versions and of commit attempts that lost
 * @param indexFilesRemoved index segment files under {@code _indices/} removed (format 1.3): of dropped or
 *     compacted-away indices no remaining version lists, and of index builds that never committed
 */
public record CleanupReport(
    List<Long> versionsRemoved,
    long manifestsRemoved,
    long transactionFilesRemoved,
    long dataFilesRemoved,
    long deletionFilesRemoved,
    long stagingFilesRemoved,
    long temporaryFilesRemoved,
    long bytesFreed,
    List<String> failed,
    boolean dryRun,
    long segmentFilesRemoved,
    long indexFilesRemoved) {

  public CleanupReport {
    versionsRemoved = List.copyOf(versionsRemoved);
    failed = List.copyOf(failed);
  }

  /** A report without index files. */
  public CleanupReport(List<Long> versionsRemoved, long manifestsRemoved, long transactionFilesRemoved,
      long dataFilesRemoved, long deletionFilesRemoved, long stagingFilesRemoved, long temporaryFilesRemoved,
      long bytesFreed, List<String> failed, boolean dryRun, long segmentFilesRemoved) {
    this(versionsRemoved, manifestsRemoved, transactionFilesRemoved, dataFilesRemoved, deletionFilesRemoved,
        stagingFilesRemoved, temporaryFilesRemoved, bytesFreed, failed, dryRun, segmentFilesRemoved, 0);
  }

  /** A report without root or segment files. */
  public CleanupReport(List<Long> versionsRemoved, long manifestsRemoved, long transactionFilesRemoved,
      long dataFilesRemoved, long deletionFilesRemoved, long stagingFilesRemoved, long temporaryFilesRemoved,
      long bytesFreed, List<String> failed, boolean dryRun) {
    this(versionsRemoved, manifestsRemoved, transactionFilesRemoved, dataFilesRemoved, deletionFilesRemoved,
        stagingFilesRemoved, temporaryFilesRemoved, bytesFreed, failed, dryRun, 0);
  }

  /** A report without staging or temporary files. */
  public CleanupReport(List<Long> versionsRemoved, long manifestsRemoved, long transactionFilesRemoved,
      long dataFilesRemoved, long deletionFilesRemoved, long bytesFreed, List<String> failed, boolean dryRun) {
    this(versionsRemoved, manifestsRemoved, transactionFilesRemoved, dataFilesRemoved, deletionFilesRemoved, 0, 0,
        bytesFreed, failed, dryRun);
  }

  /** A report without temporary files. */
  public CleanupReport(List<Long> versionsRemoved, long manifestsRemoved, long transactionFilesRemoved,
      long dataFilesRemoved, long deletionFilesRemoved, long stagingFilesRemoved, long bytesFreed, List<String> failed,
      boolean dryRun) {
    this(versionsRemoved, manifestsRemoved, transactionFilesRemoved, dataFilesRemoved, deletionFilesRemoved,
        stagingFilesRemoved, 0, bytesFreed, failed, dryRun);
  }

  /** Every file removed, of any kind. */
  public long filesRemoved() {
    return manifestsRemoved + transactionFilesRemoved + dataFilesRemoved + deletionFilesRemoved + stagingFilesRemoved
        + temporaryFilesRemoved + segmentFilesRemoved + indexFilesRemoved;
  }
}
