package io.quiver.spark;

import io.quiver.dataset.BuiltIndexSegment;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.IndexBuildOptions;
import io.quiver.dataset.IndexBuildPlan;
import io.quiver.dataset.IndexBuildResult;
import io.quiver.dataset.IndexBuildTask;
import io.quiver.manifest.ScalarIndex;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * Scalar index builds with Spark: plan on the driver at the latest version (which checks the name, kind and
 * column there, before any task runs), one Spark task per fragment group on the executors (each writes one
 * segment), one commit on the driver.
 */
final class DistributedIndexBuildJob {
  private DistributedIndexBuildJob() {}

  /** Creates index {@code name} of {@code kind} on {@code column}: see {@link io.quiver.dataset.Indices#planBuild}. */
  static IndexBuildResult create(SparkSession spark, TableRef ref, String name, ScalarIndex.Kind kind, String column,
      IndexBuildOptions options) {
    try (Dataset ds = ref.open()) {
      return run(spark, ref, ds, ds.indices().planBuild(name, kind, column, options));
    }
  }

  /** Indexes what {@code name} does not cover: see {@link io.quiver.dataset.Indices#planOptimize}. */
  static IndexBuildResult optimize(SparkSession spark, TableRef ref, String name, IndexBuildOptions options) {
    try (Dataset ds = ref.open()) {
      return run(spark, ref, ds, ds.indices().planOptimize(name, options));
    }
  }

  private static IndexBuildResult run(SparkSession spark, TableRef ref, Dataset ds, IndexBuildPlan plan) {
    List<BuiltIndexSegment> built = new ArrayList<>();
    if (!plan.isEmpty()) {
      List<byte[]> tasks = new ArrayList<>();
      for (IndexBuildTask t : plan.tasks()) {
        tasks.add(t.encode());
      }
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      spark.sparkContext().setJobDescription("Quiver index " + plan.action().name().toLowerCase(java.util.Locale.ROOT)
          + " of '" + plan.index().name() + "' (" + plan.index().kind().label() + " on " + plan.column() + ") of "
          + ref.uri() + " at version " + plan.version() + ": " + plan.tasks().size() + " tasks, "
          + plan.fragmentsToIndex() + " fragments");
      try {
        List<byte[]> segments = ExecutorFailures.results(() -> jsc.parallelize(tasks, tasks.size())
            .map(bytes -> ExecutorFailures.attempt(() -> IndexBuildTask.decode(bytes).build(ref.datasetOptions())
                .encode()))
            .collect());
        for (byte[] s : segments) {
          built.add(BuiltIndexSegment.decode(s));
        }
      } finally {
        spark.sparkContext().setJobDescription(null);
      }
    }
    return ds.indices().commit(plan, built);
  }
}
