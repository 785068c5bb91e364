package io.quiver.flink.sink;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.SchemaPolicy;
import io.quiver.dataset.WriteMode;
import io.quiver.dataset.WriteResult;
import java.util.List;

/**
 * Commits each checkpoint's {@link QuiverCommittable} as one append (see {@link CheckpointCommitter} for the
 * exactly-once rules). A change that makes the append wrong — a schema change the policy does not accept, an
 * overwrite since — fails the job with Quiver's message.
 */
final class QuiverCommitter extends CheckpointCommitter<QuiverCommittable> {
  private final SchemaPolicy policy;

  QuiverCommitter(String uri, DatasetOptions options, SchemaPolicy policy) {
    super(uri, options);
    this.policy = policy;
  }

  @Override
  long checkpointId(QuiverCommittable c) {
    return c.checkpointId();
  }

  @Override
  String applicationId(QuiverCommittable c) {
    return c.applicationId();
  }

  @Override
  List<WriteResult> results(QuiverCommittable c) {
    return c.results();
  }

  @Override
  boolean changesNothing(QuiverCommittable c) {
    return c.results().isEmpty();
  }

  @Override
  long rows(QuiverCommittable c) {
    return c.rows();
  }

  @Override
  long commitNew(Dataset table, QuiverCommittable c, CommitOptions sequence) {
    return table.distributed().commit(c.results(), WriteMode.APPEND, sequence, policy);
  }
}
