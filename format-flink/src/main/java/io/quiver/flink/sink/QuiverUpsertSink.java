package io.quiver.flink.sink;

import io.quiver.dataset.DatasetOptions;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.flink.types.FlinkTypes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * An exactly-once Flink sink of a changelog ({@code RowData} of kinds +I, -U, +U, -D) into a Quiver table,
 * keyed by primary key columns: each checkpoint's changes are committed as ONE row delta, after which every
 * key the checkpoint changed holds exactly one row (its last insert or update in the checkpoint) or none (its
 * last change was a delete) — a key never holds two rows, whatever the table held before. The input is
 * shuffled by the key first, so every change of a key reaches one subtask, in order.
 *
 * <pre>{@code
 * changelog.sinkTo(QuiverUpsertSink.forRowData("s3://bucket/customers", rowType, List.of("id"))
 *     .operatorUid("customers").build()).uid("customers");
 * }</pre>
 *
 * <p>Exactly once as {@link QuiverSink}: one committable per checkpoint, committed under the application
 * sequence ({@code jobId/operatorUid}, checkpoint id), recognised after any restart, restore or committer
 * failure by the watermark in the table's ledger. Isolation: each checkpoint's changes become visible at once
 * (one version); they are applied to the latest version at commit time, checked against commits made
 * concurrently (serializable for the changed keys: docs/flink.md, "Upserts").
 */
public final class QuiverUpsertSink
    implements Sink<RowData>, SupportsPreWriteTopology<RowData>, SupportsCommitter<UpsertCommittable>,
    SupportsPreCommitTopology<UpsertResult, UpsertCommittable> {
  private static final long serialVersionUID = 1L;

  private final String uri;
  private final HashMap<String, String> storeOptions;
  private final RowType rowType;
  private final UpsertKeys keys;
  private final String operatorUid;

  private QuiverUpsertSink(Builder b) {
    this.uri = b.uri;
    this.storeOptions = new HashMap<>(b.storeOptions);
    this.rowType = b.rowType;
    this.keys = new UpsertKeys(b.rowType, b.keyColumns);
    this.operatorUid = b.operatorUid;
  }

  /**
   * A sink of changelog rows of {@code rowType} — the table's columns, every one of them — keyed by {@code
   * keyColumns} (top-level columns of exact types: integers, strings, binaries, decimals, dates, times,
   * timestamps, booleans).
   */
  public static Builder forRowData(String uri, RowType rowType, List<String> keyColumns) {
    return new Builder(uri, rowType, keyColumns);
  }

  public String uri() {
    return uri;
  }

  public String operatorUid() {
    return operatorUid;
  }

  private DatasetOptions datasetOptions() {
    return DatasetOptions.builder().storeOptions(storeOptions).build();
  }

  /** Every change of a key goes to one subtask, in order. */
  @Override
  public DataStream<RowData> addPreWriteTopology(DataStream<RowData> input) {
    UpsertKeys k = keys;
    return input.keyBy((KeySelector<RowData, String>) k::of, Types.STRING);
  }

  @Override
  public SinkWriter<RowData> createWriter(WriterInitContext context) {
    return new UpsertWriter(uri, datasetOptions(), rowType, keys);
  }

  @Override
  public Committer<UpsertCommittable> createCommitter(CommitterInitContext context) {
    return new UpsertCommitter(uri, datasetOptions(), keys);
  }

  @Override
  public SimpleVersionedSerializer<UpsertCommittable> getCommittableSerializer() {
    return new UpsertSerializers.Committables();
  }

  @Override
  public SimpleVersionedSerializer<UpsertResult> getWriteResultSerializer() {
    return new UpsertSerializers.Results();
  }

  @Override
  public DataStream<CommittableMessage<UpsertCommittable>> addPreCommitTopology(
      DataStream<CommittableMessage<UpsertResult>> results) {
    return results.global()
        .transform("Quiver upsert aggregator " + operatorUid,
            CommittableMessageTypeInfo.of(UpsertSerializers.Committables::new),
            new QuiverCommitAggregator<UpsertResult, UpsertCommittable>(operatorUid, UpsertCommittable::new))
        .uid(operatorUid + "-quiver-upsert-aggregator")
        .setParallelism(1)
        .setMaxParallelism(1)
        .global();
  }

  @Override
  public String toString() {
    return "QuiverUpsertSink[" + uri + ", key " + keys.columns() + ", uid " + operatorUid + "]";
  }

  /** Builds a {@link QuiverUpsertSink}. */
  public static final class Builder {
    private final String uri;
    private final RowType rowType;
    private final List<String> keyColumns;
    private Map<String, String> storeOptions = Map.of();
    private String operatorUid = "quiver-upsert-sink";

    Builder(String uri, RowType rowType, List<String> keyColumns) {
      if (uri == null || uri.isEmpty()) {
        throw new InvalidArgumentException("the Quiver upsert sink needs the table's URI");
      }
      this.uri = uri;
      this.rowType = Objects.requireNonNull(rowType, "rowType");
      FlinkTypes.toArrowSchema(rowType); // a type Quiver cannot store fails here, not in the tasks
      if (keyColumns == null || keyColumns.isEmpty()) {
        throw new InvalidArgumentException("the Quiver upsert sink needs primary key columns; use QuiverSink to"
            + " append without a key");
      }
      this.keyColumns = List.copyOf(keyColumns);
      new UpsertKeys(rowType, this.keyColumns); // every key column is a column
    }

    /** Options of the table's store (credentials, endpoint, ...). */
    public Builder storeOptions(Map<String, String> options) {
      this.storeOptions = Map.copyOf(options);
      return this;
    }

    /** Names this sink in the table's ledger ({@code jobId/uid}); stable across restarts and savepoints. */
    public Builder operatorUid(String uid) {
      if (uid == null || uid.isEmpty() || uid.contains("/")) {
        throw new InvalidArgumentException("the sink's operator uid must be non-empty without '/', got '" + uid + "'");
      }
      this.operatorUid = uid;
      return this;
    }

    public QuiverUpsertSink build() {
      return new QuiverUpsertSink(this);
    }
  }
}
