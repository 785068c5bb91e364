package io.quiver.flink.sink;

import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.SchemaPolicy;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.InvalidArgumentException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * An exactly-once Flink sink appending to a Quiver table (Sink V2). Each subtask writes data files with
 * its own {@code DistributedWriter} and, on every checkpoint barrier, hands that checkpoint's write results
 * on; a pre-commit step at parallelism 1 gathers them into ONE {@link QuiverCommittable} per checkpoint; the
 * committer appends it once the checkpoint completes, under the application sequence ({@code jobId + "/" +
 * operatorUid}, checkpoint id). Whatever a restart, a restore from a savepoint (under a new job id) or a
 * committer failure re-delivers is recognised by that application's watermark in the table's ledger and
 * not committed twice — from any version, after any cleanup. Checkpoints without rows commit nothing; batch
 * execution commits once at the end, under the checkpoint id Flink gives the end of input (since Flink 2.1 the
 * one after the last checkpoint, ids increasing strictly: 1 in a batch job).
 *
 * <pre>{@code
 * stream.sinkTo(QuiverSink.forArrow("s3://bucket/table").rollAtRows(1_000_000).operatorUid("orders").build())
 *       .uid("orders");
 * }</pre>
 *
 * <p>The table must exist. Its schema may gain nullable columns while the job runs (the job's rows read
 * null in them: {@link SchemaPolicy#ALLOW_ADDED_NULLABLE_FIELDS}, the default); a dropped or re-typed column
 * the job writes fails the job with Quiver's message. Files of a failed attempt are never committed:
 * {@code Dataset.cleanup} removes them after its safety window, which must exceed the checkpoint interval +
 * the longest restart + the commit time (docs/flink.md).
 *
 * @param <IN> the input record type
 */
public final class QuiverSink<IN>
    implements Sink<IN>, SupportsCommitter<QuiverCommittable>, SupportsPreCommitTopology<WriteResult, QuiverCommittable> {
  private static final long serialVersionUID = 1L;

  private final String uri;
  private final HashMap<String, String> storeOptions;
  private final SinkInput<IN> input;
  private final long rollAtRows;
  private final long rollAtBytes;
  private final SchemaPolicy policy;
  private final String operatorUid;

  private QuiverSink(Builder<IN> b) {
    this.uri = b.uri;
    this.storeOptions = new HashMap<>(b.storeOptions);
    this.input = b.input;
    this.rollAtRows = b.rollAtRows;
    this.rollAtBytes = b.rollAtBytes;
    this.policy = b.policy;
    this.operatorUid = b.operatorUid;
  }

  /** A sink of records that are Arrow IPC streams ({@link ArrowBatches#encode}), in the table's columns. */
  public static Builder<byte[]> forArrow(String uri) {
    return new Builder<>(uri, SinkInput.arrowIpc());
  }

  /**
   * A sink of Flink {@code RowData} of {@code rowType} (insert-only), whose fields are the table's columns
   * by name ({@link io.quiver.flink.types.FlinkTypes}' type mapping); the table's nullable columns it lacks
   * are written as null.
   *
   * @throws io.quiver.exceptions.InvalidSchemaException if Quiver cannot store a field's type
   */
  public static Builder<org.apache.flink.table.data.RowData> forRowData(String uri,
      org.apache.flink.table.types.logical.RowType rowType) {
    return new Builder<>(uri, new RowDataInput(Objects.requireNonNull(rowType, "rowType")));
  }

  /** A sink of records converted by {@code input}. */
  public static <T> Builder<T> forInput(String uri, SinkInput<T> input) {
    return new Builder<>(uri, Objects.requireNonNull(input, "input"));
  }

  /** The table's URI. */
  public String uri() {
    return uri;
  }

  /** The uid naming this sink's application in the table's ledger (with the job id). */
  public String operatorUid() {
    return operatorUid;
  }

  DatasetOptions datasetOptions() {
    return DatasetOptions.builder().storeOptions(storeOptions).build();
  }

  @Override
  public SinkWriter<IN> createWriter(WriterInitContext context) {
    return new QuiverSinkWriter<>(uri, datasetOptions(), input, rollAtRows, rollAtBytes);
  }

  @Override
  public Committer<QuiverCommittable> createCommitter(CommitterInitContext context) {
    return new QuiverCommitter(uri, datasetOptions(), policy);
  }

  @Override
  public SimpleVersionedSerializer<QuiverCommittable> getCommittableSerializer() {
    return new QuiverCommittableSerializer();
  }

  @Override
  public SimpleVersionedSerializer<WriteResult> getWriteResultSerializer() {
    return new WriteResultSerializer();
  }

  /** Every subtask's results to one aggregator (parallelism 1), whose committables all go to one committer. */
  @Override
  public DataStream<CommittableMessage<QuiverCommittable>> addPreCommitTopology(
      DataStream<CommittableMessage<WriteResult>> results) {
    return results.global()
        .transform("Quiver commit aggregator " + operatorUid, CommittableMessageTypeInfo.of(QuiverCommittableSerializer::new),
            new QuiverCommitAggregator<WriteResult, QuiverCommittable>(operatorUid, QuiverCommittable::new))
        .uid(operatorUid + "-quiver-aggregator")
        .setParallelism(1)
        .setMaxParallelism(1)
        .global();
  }

  @Override
  public String toString() {
    return "QuiverSink[" + uri + ", uid " + operatorUid + ", " + policy + "]";
  }

  /**
   * Builds a {@link QuiverSink}.
   *
   * @param <IN> the input record type
   */
  public static final class Builder<IN> {
    private final String uri;
    private final SinkInput<IN> input;
    private Map<String, String> storeOptions = Map.of();
    private long rollAtRows = 1_000_000;
    private long rollAtBytes = 64L << 20;
    private SchemaPolicy policy = SchemaPolicy.ALLOW_ADDED_NULLABLE_FIELDS;
    private String operatorUid = "quiver-sink";

    Builder(String uri, SinkInput<IN> input) {
      if (uri == null || uri.isEmpty()) {
        throw new InvalidArgumentException("the Quiver sink needs the table's URI");
      }
      this.uri = uri;
      this.input = input;
    }

    /** Options of the table's store (credentials, endpoint, ...), as {@code DatasetOptions.storeOptions}. */
    public Builder<IN> storeOptions(Map<String, String> options) {
      this.storeOptions = Map.copyOf(options);
      return this;
    }

    /**
     * A subtask writes a data file once it buffered this many rows (default 1,000,000), and at every
     * checkpoint. Buffered rows are held as Arrow batches in the subtask's memory.
     */
    public Builder<IN> rollAtRows(long rows) {
      if (rows < 1) {
        throw new InvalidArgumentException("rollAtRows must be >= 1, got " + rows);
      }
      this.rollAtRows = rows;
      return this;
    }

    /** A subtask writes a data file once its buffered batches hold this many bytes (default 64 MiB). */
    public Builder<IN> rollAtBytes(long bytes) {
      if (bytes < 1) {
        throw new InvalidArgumentException("rollAtBytes must be >= 1, got " + bytes);
      }
      this.rollAtBytes = bytes;
      return this;
    }

    /**
     * Which schema changes made while the job runs its appends accept (default {@link
     * SchemaPolicy#ALLOW_ADDED_NULLABLE_FIELDS}; {@link SchemaPolicy#EXACT} fails the job on any change).
     */
    public Builder<IN> schemaPolicy(SchemaPolicy value) {
      this.policy = Objects.requireNonNull(value, "schema policy");
      return this;
    }

    /**
     * Names this sink in the table's ledger: its application id is {@code jobId + "/" + uid} (default
     * {@code quiver-sink}). Give each Quiver sink of a job its own, stable across restarts and savepoints.
     */
    public Builder<IN> operatorUid(String uid) {
      if (uid == null || uid.isEmpty() || uid.contains("/")) {
        throw new InvalidArgumentException("the sink's operator uid must be non-empty without '/', got '" + uid + "'");
      }
      this.operatorUid = uid;
      return this;
    }

    public QuiverSink<IN> build() {
      return new QuiverSink<>(this);
    }
  }
}
