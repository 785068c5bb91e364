package io.quiver.flink.table;

import io.quiver.flink.sink.QuiverSink;
import io.quiver.flink.sink.QuiverUpsertSink;
import java.util.List;
import java.util.Optional;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.types.RowKind;

/**
 * A Quiver table written by Flink SQL, exactly once on checkpoints. Without a primary key the sink appends
 * (insert-only input; {@link QuiverSink}). With {@code PRIMARY KEY (...) NOT ENFORCED} it takes a changelog
 * (inserts, updates, deletes) and commits each checkpoint's changes as ONE row delta keyed by the primary key
 * ({@link QuiverUpsertSink}): the last change of a key in the checkpoint wins, a delete removes every row of
 * the key, an insert or update leaves exactly one.
 */
final class QuiverTableSink implements DynamicTableSink {
  private final QuiverDynamicTableFactory.TableSpec spec;

  QuiverTableSink(QuiverDynamicTableFactory.TableSpec spec) {
    this.spec = spec;
  }

  private boolean upsert() {
    return !spec.primaryKey().isEmpty();
  }

  @Override
  public ChangelogMode getChangelogMode(ChangelogMode requested) {
    if (!upsert()) {
      if (!requested.containsOnly(RowKind.INSERT)) {
        throw new ValidationException("Flink table " + spec.table() + " (Quiver table '" + spec.uri() + "') has no"
            + " PRIMARY KEY, so it can only be appended to, but the query produces updates or deletes ("
            + requested + "). Declare PRIMARY KEY (...) NOT ENFORCED on the table to write a changelog as"
            + " upserts, or write an insert-only query.");
      }
      return ChangelogMode.insertOnly();
    }
    // Upserts by key: an update's before-image is not needed (the after-image replaces the key's rows).
    return ChangelogMode.newBuilder()
        .addContainedKind(RowKind.INSERT)
        .addContainedKind(RowKind.UPDATE_AFTER)
        .addContainedKind(RowKind.DELETE)
        .build();
  }

  @Override
  public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
    Integer parallelism = spec.options().getOptional(FactoryUtil.SINK_PARALLELISM).orElse(null);
    long rollRows = spec.options().get(QuiverTableOptions.SINK_ROLL_ROWS);
    long rollBytes = spec.options().get(QuiverTableOptions.SINK_ROLL_BYTES).getBytes();
    String uid = spec.options().getOptional(QuiverTableOptions.SINK_UID).orElse(defaultUid());
    if (!upsert()) {
      QuiverSink<RowData> sink = QuiverSink.forRowData(spec.uri(), spec.tableTypes())
          .storeOptions(spec.storeOptions())
          .rollAtRows(rollRows)
          .rollAtBytes(rollBytes)
          .operatorUid(uid)
          .build();
      return provider(sink, uid, parallelism);
    }
    QuiverUpsertSink sink = QuiverUpsertSink.forRowData(spec.uri(), spec.tableTypes(), List.copyOf(spec.primaryKey()))
        .storeOptions(spec.storeOptions())
        .operatorUid(uid)
        .build();
    return provider(sink, uid, parallelism);
  }

  /**
   * The sink with a uid of its own: its state (the committer's pending checkpoints) must map back to it when
   * the same statement is submitted again to restore from a checkpoint, whatever uids the planner generates.
   */
  private static SinkRuntimeProvider provider(org.apache.flink.api.connector.sink2.Sink<RowData> sink, String uid,
      Integer parallelism) {
    return new DataStreamSinkProvider() {
      @Override
      public DataStreamSink<?> consumeDataStream(ProviderContext context, DataStream<RowData> rows) {
        DataStreamSink<RowData> s = rows.sinkTo(sink).uid(uid).name("Quiver " + uid);
        if (parallelism != null) {
          s.setParallelism(parallelism);
        }
        return s;
      }

      @Override
      public Optional<Integer> getParallelism() {
        return Optional.ofNullable(parallelism);
      }
    };
  }

  /** The sink's name in the table's ledger: its path, without the characters an application id cannot hold. */
  private String defaultUid() {
    return "sql:" + spec.uri().replace('/', '|');
  }

  @Override
  public DynamicTableSink copy() {
    return new QuiverTableSink(spec);
  }

  @Override
  public String asSummaryString() {
    return "Quiver(" + spec.uri() + (upsert() ? ", upsert on " + spec.primaryKey() : ", append") + ")";
  }
}
