package io.quiver.flink.sink;

import io.quiver.dataset.WriteResult;
import java.util.List;
import java.util.Objects;

/**
 * Everything one checkpoint of a {@link QuiverSink} wrote, from every subtask: committed as ONE append
 * under the application sequence ({@link #applicationId()}, {@link #checkpointId()}).
 *
 * @param jobId the id of the job that PRODUCED the results (hex): a job restored from a savepoint under a
 *     new id re-delivers committables of the old job, and recognises by it what that job committed
 * @param operatorUid the sink's uid ({@link QuiverSink.Builder#operatorUid})
 * @param checkpointId the checkpoint the results belong to (for the end of input, the id Flink gives it: the one
 *     after the last checkpoint since Flink 2.1)
 * @param results the write results of every subtask for that checkpoint
 */
public record QuiverCommittable(String jobId, String operatorUid, long checkpointId, List<WriteResult> results) {
  public QuiverCommittable {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(operatorUid, "operatorUid");
    results = List.copyOf(results);
  }

  /** The application id the table's ledger keeps this sink's watermark under: {@code jobId + "/" + operatorUid}. */
  public String applicationId() {
    return applicationId(jobId, operatorUid);
  }

  /** The application id of the sink {@code operatorUid} in job {@code jobId}. */
  public static String applicationId(String jobId, String operatorUid) {
    return jobId + "/" + operatorUid;
  }

  /** Rows in the results. */
  public long rows() {
    return results.stream().mapToLong(WriteResult::rows).sum();
  }

  @Override
  public String toString() {
    return "QuiverCommittable[" + applicationId() + " checkpoint " + checkpointId + ", " + results.size()
        + " results, " + rows() + " rows]";
  }
}
