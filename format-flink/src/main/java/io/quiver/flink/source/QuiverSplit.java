package io.quiver.flink.source;

import io.quiver.dataset.ScanTask;
import java.util.Arrays;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One Quiver {@link ScanTask} as a Flink split, with the rows of it already emitted. A task reads one fragment
 * (or row range) at the version that planned it, so its rows are fixed: a reader restored from a checkpoint
 * skips the {@link #rowsEmitted()} first rows and emits the rest, so no row is repeated or missed. A changelog
 * source's later splits are <em>change splits</em> instead: the changes one version made ({@code
 * Dataset.changes(v - 1, v)}), as fixed as a task's rows, skipped and resumed the same way.
 *
 * <p>The id is {@code v<version>-f<fragment>-r<rowStart>-<rowEnd>} for a task and {@code c<version>} for a change
 * split: stable, and unique within a source (a continuous source reads each appended fragment once, at the
 * version that appended it, and each version's changes once).
 */
public final class QuiverSplit implements SourceSplit {
  /** {@link #changesOf} of a task split. */
  static final long NO_CHANGES = -1;

  private final byte[] task;
  private final long changesOf;
  private final long rowsEmitted;
  private transient ScanTask decoded;

  QuiverSplit(ScanTask task, long rowsEmitted) {
    this(task.encode(), rowsEmitted);
    this.decoded = task;
  }

  QuiverSplit(byte[] encodedTask, long rowsEmitted) {
    this(encodedTask, NO_CHANGES, rowsEmitted);
  }

  private QuiverSplit(byte[] encodedTask, long changesOf, long rowsEmitted) {
    this.task = encodedTask;
    this.changesOf = changesOf;
    this.rowsEmitted = rowsEmitted;
  }

  /** The split of the changes {@code version} made, {@code rowsEmitted} of them already emitted. */
  static QuiverSplit changes(long version, long rowsEmitted) {
    if (version < 2) {
      throw new IllegalArgumentException("a change split reads the changes of a version after the first, got " + version);
    }
    return new QuiverSplit(new byte[0], version, rowsEmitted);
  }

  /** Whether this is a change split. */
  boolean isChanges() {
    return changesOf != NO_CHANGES;
  }

  /** The version whose changes a change split reads. */
  long changesOf() {
    return changesOf;
  }

  /** The scan task (decoded once). */
  public ScanTask task() {
    if (isChanges()) {
      throw new IllegalStateException("split " + splitId() + " reads changes, not a scan task");
    }
    if (decoded == null) {
      decoded = ScanTask.decode(task);
    }
    return decoded;
  }

  byte[] encodedTask() {
    return task;
  }

  /** Rows of the task already emitted downstream (skipped when the split is read again). */
  public long rowsEmitted() {
    return rowsEmitted;
  }

  QuiverSplit withRowsEmitted(long rows) {
    QuiverSplit split = new QuiverSplit(task, changesOf, rows);
    split.decoded = decoded;
    return split;
  }

  @Override
  public String splitId() {
    if (isChanges()) {
      return "c" + changesOf;
    }
    ScanTask t = task();
    return "v" + t.version() + "-f" + t.fragmentId() + "-r" + t.rowStart() + "-" + t.rowEnd();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof QuiverSplit s && s.rowsEmitted == rowsEmitted && s.changesOf == changesOf
        && Arrays.equals(s.task, task);
  }

  @Override
  public int hashCode() {
    return (Arrays.hashCode(task) * 31 + Long.hashCode(rowsEmitted)) * 31 + Long.hashCode(changesOf);
  }

  @Override
  public String toString() {
    return "QuiverSplit{" + splitId() + ", rowsEmitted=" + rowsEmitted + "}";
  }
}
