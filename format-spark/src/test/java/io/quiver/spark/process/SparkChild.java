package io.quiver.spark.process;

import io.quiver.spark.QuiverCatalog;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The Spark driver {@link SparkProcessKillIT} runs in a child JVM and kills with SIGKILL. Modes:
 *
 * <ul>
 *   <li>{@code stream <warehouse> <table> <input dir> <checkpoint dir> <follow|drain>}: a Structured Streaming
 *       query reading the JSON files of the input directory one file per micro-batch into {@code
 *       quiver.db.<table>}, printing {@code BATCH <id> <rows>} after every batch's commit; {@code drain} stops
 *       once every file is read ({@code Trigger.AvailableNow}), {@code follow} runs until killed.
 *   <li>{@code insert <warehouse> <table> <rows> <partitions>}: one batch {@code INSERT} of ids {@code [0, rows)}
 *       in that many tasks, each printing {@code TASK <partition>} once its rows were handed to the writer.
 * </ul>
 *
 * The system property {@code quiver.kill.faults} (a comma-separated list) sets faults for the suites: {@code
 * halt-after=N} halts the JVM with status 137 right after its N-th table commit; {@code ignore-ledger} and {@code
 * commit-each-task} run the broken streaming and batch writes the suites must catch ({@code ProcessFaults}).
 */
public final class SparkChild {
  private SparkChild() {}

  public static void main(String[] args) throws Exception {
    int haltAfter = 0;
    boolean ignoreLedger = false;
    boolean commitEachTask = false;
    for (String fault : System.getProperty("quiver.kill.faults", "").split(",")) {
      if (fault.startsWith("halt-after=")) {
        haltAfter = Integer.parseInt(fault.substring("halt-after=".length()));
      } else if (fault.equals("ignore-ledger")) {
        ignoreLedger = true;
      } else if (fault.equals("commit-each-task")) {
        commitEachTask = true;
      } else if (!fault.isEmpty()) {
        throw new IllegalArgumentException("fault " + fault);
      }
    }
    io.quiver.spark.write.ProcessFaults.set(haltAfter, ignoreLedger, commitEachTask);
    SparkSession spark = SparkSession.builder()
        .master("local[2]")
        .appName("quiver-kill-child")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.catalog.quiver", QuiverCatalog.class.getName())
        .config("spark.sql.catalog.quiver.warehouse", args[1])
        .config("spark.sql.catalog.quiver.local.fsync", "false")
        .getOrCreate();
    if (args[0].equals("stream")) {
      stream(spark, args[2], args[3], args[4], args[5].equals("drain"));
    } else {
      insert(spark, args[2], Long.parseLong(args[3]), Integer.parseInt(args[4]));
    }
    spark.stop();
    System.out.println("DONE");
    System.out.flush();
  }

  private static void stream(SparkSession spark, String table, String input, String checkpoint, boolean drain)
      throws Exception {
    spark.streams().addListener(new StreamingQueryListener() {
      @Override
      public void onQueryStarted(QueryStartedEvent event) {
        System.out.println("STARTED");
        System.out.flush();
      }

      @Override
      public void onQueryProgress(QueryProgressEvent event) {
        System.out.println("BATCH " + event.progress().batchId() + " " + event.progress().numInputRows());
        System.out.flush();
      }

      @Override
      public void onQueryTerminated(QueryTerminatedEvent event) {}
    });
    Dataset<Row> rows = spark.readStream().schema("id BIGINT").option("maxFilesPerTrigger", 1).json(input);
    var writer = rows.writeStream().option("checkpointLocation", checkpoint).outputMode("append");
    if (drain) {
      writer = writer.trigger(Trigger.AvailableNow());
    } else {
      writer = writer.trigger(Trigger.ProcessingTime(0L, TimeUnit.MILLISECONDS));
    }
    StreamingQuery q = writer.toTable("quiver.db." + table);
    q.awaitTermination();
  }

  private static void insert(SparkSession spark, String table, long rows, int partitions) throws Exception {
    Dataset<Long> ids = spark.range(0, rows, 1, partitions).as(Encoders.LONG())
        .mapPartitions((org.apache.spark.api.java.function.MapPartitionsFunction<Long, Long>) it -> {
          java.util.List<Long> all = new java.util.ArrayList<>();
          it.forEachRemaining(all::add);
          int partition = org.apache.spark.TaskContext.getPartitionId();
          // Handed on after this line; the marker tells the parent a task of the job is under way.
          System.out.println("TASK " + partition);
          System.out.flush();
          return all.iterator();
        }, Encoders.LONG());
    ids.toDF("id").writeTo("quiver.db." + table).append();
  }
}
