package io.quiver.flink.table;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/** Table environments on the test MiniCluster, and collecting a query's rows. */
final class SqlFixtures {
  private SqlFixtures() {}

  /** One task manager with 4 slots. */
  static MiniClusterExtension cluster() {
    return cluster(new Configuration());
  }

  /** One task manager with 4 slots, and {@code conf} (e.g. a metric reporter). */
  static MiniClusterExtension cluster(Configuration conf) {
    return new MiniClusterExtension(() -> new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1)
        .setNumberSlotsPerTaskManager(4).setConfiguration(conf).build());
  }

  /** A batch table environment (bounded reads, one commit at the end of each INSERT). */
  static TableEnvironment batch() {
    TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    t.getConfig().set("parallelism.default", "2");
    return t;
  }

  /** A streaming table environment, checkpointing every {@code checkpointMillis} (0: none). */
  static StreamTableEnvironment streaming(long checkpointMillis) {
    Configuration conf = new Configuration();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    if (checkpointMillis > 0) {
      env.enableCheckpointing(checkpointMillis);
    }
    return StreamTableEnvironment.create(env);
  }

  /** Every row of a bounded query. */
  static List<Row> rows(TableEnvironment t, String query) {
    List<Row> out = new ArrayList<>();
    try (CloseableIterator<Row> it = t.executeSql(query).collect()) {
      it.forEachRemaining(out::add);
    } catch (Exception e) {
      throw new AssertionError("query failed: " + query, e);
    }
    return out;
  }

  /** Runs a statement (an INSERT) to its end. */
  static void run(TableEnvironment t, String statement) {
    TableResult r = t.executeSql(statement);
    try {
      r.await();
    } catch (Exception e) {
      throw new AssertionError("statement failed: " + statement, e);
    }
  }

  /** A SQL string literal. */
  static String quote(String s) {
    return "'" + s.replace("'", "''") + "'";
  }
}
