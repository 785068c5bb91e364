package io.quiver.flink.process;

import io.quiver.flink.sink.QuiverSink;
import io.quiver.flink.source.QuiverSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * A Flink job in its own JVM, for {@link FlinkProcessKillIT} to SIGKILL and resubmit from its latest retained
 * checkpoint. {@code FlinkChild <mode> <table> <checkpoint dir> <restore path | none> <rows> <rows per checkpoint>
 * [source table]}:
 *
 * <ul>
 *   <li>{@code sink}: ids {@code 0 .. rows-1}, {@code rows per checkpoint} of them per checkpoint (Flink's
 *       checkpoint-paced rate limiter, so a kill always finds the job running), into the table by the Quiver
 *       DataStream sink;
 *   <li>{@code upsert}: the same ids through Flink SQL, {@code INSERT INTO t SELECT id % 10, MAX(id), COUNT(*) …
 *       GROUP BY id % 10} into a table with {@code PRIMARY KEY (k)}: a changelog of updates per key;
 *   <li>{@code follow}: the source table read in follow mode and every row appended to the table (unbounded).
 * </ul>
 *
 * It prints {@code DONE} when a bounded job ends. The system property {@code quiver.kill.faults} (a comma-separated
 * list) sets faults for the suites: {@code halt-after=N} halts the JVM with status 137 right after its N-th table
 * commit; {@code ignore-ledger}, {@code first-change-wins} and {@code ignore-restored-state} run the broken sink,
 * upsert writer and source the suites must catch (see the two {@code ProcessFaults}).
 */
public final class FlinkChild {
  static final RowType IDS = RowType.of(new LogicalType[] {new BigIntType(false)}, new String[] {"id"});
  static final int KEYS = 10;

  private FlinkChild() {}

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    String table = args[1];
    Path checkpoints = Path.of(args[2]);
    String restore = args[3];
    long rows = Long.parseLong(args[4]);
    int perCheckpoint = Integer.parseInt(args[5]);
    setFaults(System.getProperty("quiver.kill.faults", ""));

    Configuration conf = new Configuration();
    conf.setString("execution.checkpointing.dir", checkpoints.toUri().toString());
    conf.setString("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
    conf.setString("execution.checkpointing.interval", "150 ms");
    conf.setString("state.backend.type", "hashmap");
    conf.setString("restart-strategy.type", "none");
    if (!restore.equals("none")) {
      conf.setString("execution.state-recovery.path", restore);
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    Map<String, String> store = Map.of("local.fsync", "false");

    DataGeneratorSource<RowData> ids = mode.equals("follow") ? null : new DataGeneratorSource<>(
        i -> GenericRowData.of(i), rows, RateLimiterStrategy.perCheckpoint(perCheckpoint), InternalTypeInfo.of(IDS));
    switch (mode) {
      case "sink" -> {
        env.fromSource(ids, WatermarkStrategy.noWatermarks(), "ids").uid("ids").setParallelism(1)
            .sinkTo(QuiverSink.forRowData(table, IDS).storeOptions(store).operatorUid("kill-sink").build())
            .uid("kill-sink");
        env.execute("kill-sink");
        System.out.println("DONE");
      }
      case "upsert" -> {
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.createTemporaryView("ids", env.fromSource(ids, WatermarkStrategy.noWatermarks(), "ids").uid("ids")
            .setParallelism(1));
        t.executeSql("CREATE TABLE counts (k BIGINT NOT NULL, last_id BIGINT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED)"
            + " WITH ('connector' = 'quiver', 'path' = '" + table + "', 'local.fsync' = 'false',"
            + " 'sink.uid' = 'kill-upsert')");
        t.executeSql("INSERT INTO counts SELECT id % " + KEYS + ", MAX(id), COUNT(*) FROM ids GROUP BY id % " + KEYS)
            .await();
        System.out.println("DONE");
      }
      case "follow" -> {
        String source = args[6];
        env.fromSource(QuiverSource.forRowData(source).storeOptions(store).continuous(Duration.ofMillis(100))
                .build(), WatermarkStrategy.noWatermarks(), "follow").uid("follow")
            .sinkTo(QuiverSink.forRowData(table, IDS).storeOptions(store).operatorUid("kill-follow").build())
            .uid("kill-follow");
        env.execute("kill-follow");
      }
      default -> throw new IllegalArgumentException("mode " + mode);
    }
    System.out.flush();
    System.exit(0);
  }

  private static void setFaults(String faults) {
    int haltAfter = 0;
    boolean ignoreLedger = false;
    boolean firstChangeWins = false;
    for (String fault : faults.split(",")) {
      if (fault.startsWith("halt-after=")) {
        haltAfter = Integer.parseInt(fault.substring("halt-after=".length()));
      } else if (fault.equals("ignore-ledger")) {
        ignoreLedger = true;
      } else if (fault.equals("first-change-wins")) {
        firstChangeWins = true;
      } else if (fault.equals("ignore-restored-state")) {
        io.quiver.flink.source.ProcessFaults.ignoreRestoredState();
      } else if (!fault.isEmpty()) {
        throw new IllegalArgumentException("fault " + fault);
      }
    }
    io.quiver.flink.sink.ProcessFaults.set(haltAfter, ignoreLedger, firstChangeWins);
  }
}
