package io.quiver.flink.source;

import io.quiver.dataset.ScanTask;
import java.util.Arrays;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One Quiver {@link ScanTask} as a Flink split, with the rows of it already emitted. A task reads one fragment
 * (or row range) at the version that planned it, so its rows are fixed: a reader restored from a checkpoint
 * skips the {@link #rowsEmitted()} first rows and emits the rest, so no row is repeated or missed.
 *
 * <p>The id is {@code v<version>-f<fragment>-r<rowStart>-<rowEnd>}: stable, and unique within a source
 * (a continuous source reads each appended fragment once, at the version that appended it).
 */
public final class QuiverSplit implements SourceSplit {
  private final byte[] task;
  private final long rowsEmitted;
  private transient ScanTask decoded;

  QuiverSplit(ScanTask task, long rowsEmitted) {
    this(task.encode(), rowsEmitted);
    this.decoded = task;
  }

  QuiverSplit(byte[] encodedTask, long rowsEmitted) {
    this.task = encodedTask;
    this.rowsEmitted = rowsEmitted;
  }

  /** The scan task (decoded once). */
  public ScanTask task() {
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
    QuiverSplit split = new QuiverSplit(task, rows);
    split.decoded = decoded;
    return split;
  }

  @Override
  public String splitId() {
    ScanTask t = task();
    return "v" + t.version() + "-f" + t.fragmentId() + "-r" + t.rowStart() + "-" + t.rowEnd();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof QuiverSplit s && s.rowsEmitted == rowsEmitted && Arrays.equals(s.task, task);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(task) * 31 + Long.hashCode(rowsEmitted);
  }

  @Override
  public String toString() {
    return "QuiverSplit{" + splitId() + ", rowsEmitted=" + rowsEmitted + "}";
  }
}
