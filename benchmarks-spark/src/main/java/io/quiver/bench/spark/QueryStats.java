package io.quiver.bench.spark;

import io.quiver.bench.Bench;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.util.QueryExecutionListener;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What one query read, by Spark's own accounting, measured beside (never inside) a timed benchmark: the
 * tasks' {@code inputMetrics} (a {@link SparkListener} sums {@code bytesRead} and {@code recordsRead} over
 * the query's tasks; file sources such as Parquet report them through Hadoop's file system statistics) and
 * the SQL metrics of the executed plan's scan nodes ({@link BatchScanExec} for a DSv2 source such as Quiver,
 * whose connector reports its own metrics there; {@link FileSourceScanExec} for Parquet).
 *
 * @param taskBytesRead the sum of {@code taskMetrics().inputMetrics().bytesRead()} over the query's tasks
 * @param taskRecordsRead the sum of {@code inputMetrics().recordsRead()}
 * @param processBytesRead bytes this JVM read through read system calls during the query ({@code rchar} of
 *     {@code /proc/self/io}: in {@code local} mode the executors are this JVM, and page-cache hits count too), or
 *     -1 where there is no such file; the same yardstick for any source, whatever it reports to Spark
 * @param scanMetrics the scan nodes' SQL metrics whose names speak of bytes, sizes, rows, files or fragments,
 *     by "{@code <node>: <metric description>}", summed over scan nodes of the same kind
 */
public record QueryStats(long taskBytesRead, long taskRecordsRead, long processBytesRead,
    Map<String, Long> scanMetrics) {
  private static final Pattern INTERESTING = Pattern.compile("(?i).*(byte|size|rows|file|fragment|prun|skip).*");

  /** Runs {@code action} (one query, for example a write to the {@code noop} sink) and returns what it read. */
  public static QueryStats of(SparkSession spark, Runnable action) {
    AtomicLong bytes = new AtomicLong();
    AtomicLong records = new AtomicLong();
    SparkListener tasks = new SparkListener() {
      @Override
      public void onTaskEnd(SparkListenerTaskEnd end) {
        if (end.taskMetrics() != null) {
          bytes.addAndGet(end.taskMetrics().inputMetrics().bytesRead());
          records.addAndGet(end.taskMetrics().inputMetrics().recordsRead());
        }
      }
    };
    AtomicReference<QueryExecution> executed = new AtomicReference<>();
    QueryExecutionListener queries = new QueryExecutionListener() {
      @Override
      public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
        executed.set(qe);
      }

      @Override
      public void onFailure(String funcName, QueryExecution qe, Exception exception) {}
    };
    spark.sparkContext().addSparkListener(tasks);
    spark.listenerManager().register(queries);
    long rcharBefore = Bench.processBytesRead();
    long rcharAfter;
    try {
      action.run();
      rcharAfter = Bench.processBytesRead();
      // Both listeners hear of the query on Spark's listener bus, asynchronously: let it drain.
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } catch (TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not drain", e);
    } finally {
      spark.listenerManager().unregister(queries);
      spark.sparkContext().removeSparkListener(tasks);
    }
    Map<String, Long> metrics = new LinkedHashMap<>();
    if (executed.get() != null) {
      for (SparkPlan scan : scans(executed.get().executedPlan())) {
        String node = scan instanceof BatchScanExec ? "BatchScanExec" : "FileSourceScanExec";
        Map<String, SQLMetric> m = CollectionConverters.asJava(scan.metrics());
        m.forEach((key, metric) -> {
          String name = metric.name().isDefined() ? metric.name().get() : key;
          if (INTERESTING.matcher(key).matches() || INTERESTING.matcher(name).matches()) {
            metrics.merge(node + ": " + name, metric.value(), Long::sum);
          }
        });
      }
    }
    long rchar = rcharBefore < 0 || rcharAfter < 0 ? -1 : rcharAfter - rcharBefore;
    return new QueryStats(bytes.get(), records.get(), rchar, metrics);
  }

  /** The scan nodes of an executed plan, looking inside adaptive plans and query stages. */
  static List<SparkPlan> scans(SparkPlan plan) {
    List<SparkPlan> out = new ArrayList<>();
    collect(plan, out);
    return out;
  }

  private static void collect(SparkPlan plan, List<SparkPlan> out) {
    if (plan instanceof BatchScanExec || plan instanceof FileSourceScanExec) {
      out.add(plan);
      return;
    }
    if (plan instanceof AdaptiveSparkPlanExec adaptive) {
      collect(adaptive.executedPlan(), out);
      return;
    }
    if (plan instanceof QueryStageExec stage) {
      collect(stage.plan(), out);
      return;
    }
    for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
      collect(child, out);
    }
  }

  /** The first scan metric whose name contains {@code part} (case-insensitive), or -1. */
  public long scanMetric(String part) {
    String lower = part.toLowerCase(java.util.Locale.ROOT);
    return scanMetrics.entrySet().stream().filter(e -> e.getKey().toLowerCase(java.util.Locale.ROOT).contains(lower))
        .mapToLong(Map.Entry::getValue).findFirst().orElse(-1);
  }
}
