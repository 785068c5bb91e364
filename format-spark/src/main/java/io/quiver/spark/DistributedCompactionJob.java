package io.quiver.spark;

import io.quiver.dataset.CompactedGroup;
import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.CompactionPlan;
import io.quiver.dataset.CompactionResult;
import io.quiver.dataset.CompactionTask;
import io.quiver.dataset.Dataset;
import io.quiver.exceptions.InvalidArgumentException;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/** Compaction with Spark: plan on the driver, one task per group on the executors, one commit on the driver. */
final class DistributedCompactionJob {
  private DistributedCompactionJob() {}

  static CompactionResult run(SparkSession spark, TableRef ref, CompactionOptions options) {
    if (options == null) {
      throw new InvalidArgumentException("compaction options must not be null; use CompactionOptions.defaults()");
    }
    try (Dataset ds = ref.open()) {
      CompactionPlan plan = ds.compaction().plan(options);
      if (plan.isEmpty()) {
        return new CompactionResult(ds.version(), 0, 0, 0);
      }
      List<byte[]> tasks = new ArrayList<>();
      for (CompactionTask t : plan.tasks()) {
        tasks.add(t.encode());
      }
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      spark.sparkContext().setJobDescription("Quiver compaction of " + ref.uri() + " at version " + plan.version()
          + ": " + plan.tasks().size() + " groups, " + plan.fragmentsToRewrite() + " fragments");
      try {
        List<byte[]> groups = ExecutorFailures.results(() -> jsc.parallelize(tasks, tasks.size())
            .map(bytes -> ExecutorFailures.attempt(() -> CompactionTask.decode(bytes).execute(ref.datasetOptions())
                .encode()))
            .collect());
        List<CompactedGroup> decoded = new ArrayList<>();
        for (byte[] g : groups) {
          decoded.add(CompactedGroup.decode(g));
        }
        return ds.compaction().commit(plan, decoded);
      } finally {
        spark.sparkContext().setJobDescription(null);
      }
    }
  }
}
