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

  QuiverCommitMessage(int partitionId, long taskId, int attemptNumber, long epochId, List<byte[]> results) {
    this.partitionId = partitionId;
    this.taskId = taskId;
    this.attemptNumber = attemptNumber;
    this.epochId = epochId;
    this.results = List.copyOf(results);
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
        + (epochId >= 0 ? ", epoch " + epochId : "") + ", " + results.size() + " results]";
  }
}
