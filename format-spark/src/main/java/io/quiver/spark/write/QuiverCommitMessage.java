package io.quiver.spark.write;

import io.quiver.dataset.WriteResult;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * What one task attempt wrote: its encoded {@link WriteResult}s (a few hundred bytes each, one per fragment
 * written) and which attempt of which partition wrote them. Nothing in it is visible until the driver
 * commits.
 */
final class QuiverCommitMessage implements WriterCommitMessage {
  private static final long serialVersionUID = 1L;

  private final int partitionId;
  private final long taskId;
  private final int attemptNumber;
  private final long epochId;
  private final List<byte[]> results;
  /** A row-level write's deleted row addresses (a portable Roaring64NavigableMap); empty otherwise. */
  private final byte[] deletedRows;
  /**
   * A row-level write's rows, in the order written (its results' fragments in order): the address of the row each
   * replaces, -1 for an inserted row. Empty for an append.
   */
  private final long[] replacedRows;

  QuiverCommitMessage(int partitionId, long taskId, int attemptNumber, long epochId, List<byte[]> results) {
    this(partitionId, taskId, attemptNumber, epochId, results, new byte[0], new long[0]);
  }

  private QuiverCommitMessage(int partitionId, long taskId, int attemptNumber, long epochId, List<byte[]> results,
      byte[] deletedRows, long[] replacedRows) {
    this.partitionId = partitionId;
    this.taskId = taskId;
    this.attemptNumber = attemptNumber;
    this.epochId = epochId;
    this.results = List.copyOf(results);
    this.deletedRows = deletedRows;
    this.replacedRows = replacedRows;
  }

  /** This message with the addresses its rows replace (see {@link #replacedRows}). */
  QuiverCommitMessage withReplacedRows(long[] rows) {
    return new QuiverCommitMessage(partitionId, taskId, attemptNumber, epochId, results, deletedRows, rows.clone());
  }

  /** The address each written row replaces (-1: inserted), in write order; empty for an append. */
  long[] replacedRows() {
    return replacedRows.clone();
  }

  /** This message with the row addresses its task deleted. */
  QuiverCommitMessage withDeletedRows(org.roaringbitmap.longlong.Roaring64NavigableMap rows) {
    rows.runOptimize();
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
      rows.serializePortable(out);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return new QuiverCommitMessage(partitionId, taskId, attemptNumber, epochId, results, bytes.toByteArray(),
        replacedRows);
  }

  /** The row addresses the task deleted (none for an append). */
  long[] deletedRows() {
    if (deletedRows.length == 0) {
      return new long[0];
    }
    org.roaringbitmap.longlong.Roaring64NavigableMap rows = new org.roaringbitmap.longlong.Roaring64NavigableMap();
    try (java.io.DataInputStream in = new java.io.DataInputStream(new java.io.ByteArrayInputStream(deletedRows))) {
      rows.deserializePortable(in);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return rows.toArray();
  }

  int partitionId() {
    return partitionId;
  }

  long taskId() {
    return taskId;
  }

  int attemptNumber() {
    return attemptNumber;
  }

  /** The streaming epoch, or -1 for a batch write. */
  long epochId() {
    return epochId;
  }

  List<WriteResult> decode() {
    List<WriteResult> out = new ArrayList<>(results.size());
    for (byte[] b : results) {
      out.add(WriteResult.decode(b));
    }
    return out;
  }

  @Override
  public String toString() {
    return "QuiverCommitMessage[partition " + partitionId + ", task " + taskId + ", attempt " + attemptNumber
        + (epochId >= 0 ? ", epoch " + epochId : "") + ", " + results.size() + " results"
        + (deletedRows.length > 0 ? ", deleted rows" : "") + "]";
  }
}
