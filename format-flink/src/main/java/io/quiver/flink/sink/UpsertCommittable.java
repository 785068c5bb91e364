package io.quiver.flink.sink;

import io.quiver.dataset.WriteResult;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything one checkpoint of a {@link QuiverUpsertSink} changed, from every subtask: committed as ONE row
 * delta under the application sequence ({@link #applicationId()}, {@link #checkpointId()}).
 *
 * @param jobId the id of the job that produced the changes (hex)
 * @param operatorUid the sink's uid
 * @param checkpointId the checkpoint the changes belong to
 * @param results every subtask's changes of that checkpoint (their keys never overlap: the input is keyed by
 *     the primary key)
 */
public record UpsertCommittable(String jobId, String operatorUid, long checkpointId, List<UpsertResult> results) {
  public UpsertCommittable {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(operatorUid, "operatorUid");
    results = List.copyOf(results);
  }

  /** The application id of the ledger watermark: {@code jobId + "/" + operatorUid}. */
  public String applicationId() {
    return QuiverCommittable.applicationId(jobId, operatorUid);
  }

  /** The written rows' results (subtasks that only deleted have none). */
  public List<WriteResult> rowResults() {
    return results.stream().map(UpsertResult::rows).flatMap(Optional::stream).toList();
  }

  public long upserts() {
    return results.stream().mapToLong(UpsertResult::upserts).sum();
  }

  public long deletes() {
    return results.stream().mapToLong(UpsertResult::deletes).sum();
  }

  @Override
  public String toString() {
    return "UpsertCommittable[" + applicationId() + " checkpoint " + checkpointId + ", " + upserts() + " upserts, "
        + deletes() + " deletes]";
  }
}
