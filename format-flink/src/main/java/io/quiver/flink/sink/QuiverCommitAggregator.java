package io.quiver.flink.sink;

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
 * The pre-commit step, at parallelism 1: gathers every subtask's results of a checkpoint (they arrive
 * before its barrier, as the writers hand them on before theirs) and emits ONE committable per checkpoint that
 * wrote something, stamped with this job's id. At the end of input it emits what remains, under the checkpoint
 * ids the writers' final results carry (Flink 2.1 and later number the end of input as the checkpoint after
 * the last one; older versions used {@code Long.MAX_VALUE}).
 *
 * @param <R> a writer's result
 * @param <C> the committable of one checkpoint
 */
final class QuiverCommitAggregator<R, C> extends AbstractStreamOperator<CommittableMessage<C>>
    implements OneInputStreamOperator<CommittableMessage<R>, CommittableMessage<C>>, BoundedOneInput {
  private static final long serialVersionUID = 1L;

  /** Makes one checkpoint's committable of every subtask's results. */
  @FunctionalInterface
  interface Combiner<R, C> extends java.io.Serializable {
    C combine(String jobId, String operatorUid, long checkpointId, List<R> results);
  }

  private final String operatorUid;
  private final Combiner<R, C> combiner;
  private transient TreeMap<Long, List<R>> byCheckpoint;
  private transient String jobId;

  QuiverCommitAggregator(String operatorUid, Combiner<R, C> combiner) {
    this.operatorUid = operatorUid;
    this.combiner = combiner;
  }

  @Override
  public void open() throws Exception {
    super.open();
    byCheckpoint = new TreeMap<>();
    jobId = getRuntimeContext().getJobInfo().getJobId().toHexString();
  }

  @Override
  public void processElement(StreamRecord<CommittableMessage<R>> element) {
    if (element.getValue() instanceof CommittableWithLineage<R> r) {
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
    emitUpTo(Long.MAX_VALUE); // everything left, each under its own checkpoint id
  }

  private void emitUpTo(long checkpointId) {
    Map<Long, List<R>> due = byCheckpoint.headMap(checkpointId, true);
    for (Map.Entry<Long, List<R>> e : due.entrySet()) {
      long id = e.getKey();
      C c = combiner.combine(jobId, operatorUid, id, e.getValue());
      output.collect(new StreamRecord<>(new CommittableSummary<>(0, 1, id, 1, 0)));
      output.collect(new StreamRecord<>(new CommittableWithLineage<>(c, id, 0)));
    }
    due.clear();
  }
}
