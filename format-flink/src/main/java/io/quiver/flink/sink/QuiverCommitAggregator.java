package io.quiver.flink.sink;

import io.quiver.dataset.WriteResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The pre-commit step, at parallelism 1: gathers every subtask's write results of a checkpoint (they arrive
 * before its barrier, as the writers hand them on before theirs) and emits ONE {@link QuiverCommittable} per
 * checkpoint that wrote rows, stamped with this job's id. At the end of input it emits what remains (the
 * writers' final results carry checkpoint id {@code Long.MAX_VALUE}).
 */
final class QuiverCommitAggregator extends AbstractStreamOperator<CommittableMessage<QuiverCommittable>>
    implements OneInputStreamOperator<CommittableMessage<WriteResult>, CommittableMessage<QuiverCommittable>>,
    BoundedOneInput {
  private static final long serialVersionUID = 1L;

  private final String operatorUid;
  private transient TreeMap<Long, List<WriteResult>> byCheckpoint;
  private transient String jobId;

  QuiverCommitAggregator(String operatorUid) {
    this.operatorUid = operatorUid;
  }

  @Override
  public void open() throws Exception {
    super.open();
    byCheckpoint = new TreeMap<>();
    jobId = getRuntimeContext().getJobInfo().getJobId().toHexString();
  }

  @Override
  public void processElement(StreamRecord<CommittableMessage<WriteResult>> element) {
    if (element.getValue() instanceof CommittableWithLineage<WriteResult> r) {
      byCheckpoint.computeIfAbsent(r.getCheckpointId(), k -> new ArrayList<>()).add(r.getCommittable());
    }
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    emitUpTo(checkpointId);
  }

  @Override
  public void endInput() {
    emitUpTo(Long.MAX_VALUE);
  }

  private void emitUpTo(long checkpointId) {
    Map<Long, List<WriteResult>> due = byCheckpoint.headMap(checkpointId, true);
    for (Map.Entry<Long, List<WriteResult>> e : due.entrySet()) {
      long id = e.getKey();
      QuiverCommittable c = new QuiverCommittable(jobId, operatorUid, id, e.getValue());
      output.collect(new StreamRecord<>(new CommittableSummary<>(0, 1, id, 1, 0)));
      output.collect(new StreamRecord<>(new CommittableWithLineage<>(c, id, 0)));
    }
    due.clear();
  }
}
