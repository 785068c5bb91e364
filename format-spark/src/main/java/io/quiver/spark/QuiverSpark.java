package io.quiver.spark;

import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.CompactionResult;
import io.quiver.dataset.IndexBuildOptions;
import io.quiver.dataset.IndexBuildResult;
import io.quiver.manifest.ScalarIndex;
import org.apache.spark.sql.SparkSession;

/**
 * The distributed operations Spark drives on a Quiver table. {@code table} is a URI ({@code file:/…},
 * {@code s3://…}) or a name in a configured Quiver catalog ({@code quiver.db.events}).
 */
public final class QuiverSpark {
  private QuiverSpark() {}

  /** A distributed column backfill of {@code table}: see {@link Backfill}. */
  public static Backfill backfill(SparkSession spark, String table) {
    return new Backfill(spark, Tables.resolve(spark, table));
  }

  /**
   * Compacts {@code table} with Spark: the plan is made on the driver at the latest version, each group of
   * small fragments is rewritten by one Spark task, and the driver commits every rewritten group in ONE
   * commit. A concurrent delete, update or rewrite of a planned fragment makes the commit fail with a
   * retryable conflict and nothing is published (the rewritten files are never referenced; cleanup removes
   * them after its safety window).
   */
  public static CompactionResult compact(SparkSession spark, String table, CompactionOptions options) {
    return DistributedCompactionJob.run(spark, Tables.resolve(spark, table), options);
  }

  /**
   * Creates scalar index {@code name} of {@code kind} on {@code column} of {@code table} with Spark: planned on
   * the driver at the latest version (an unknown column, a column that cannot be indexed or a taken name fail
   * there, with an {@link io.quiver.exceptions.InvalidArgumentException}), one Spark task per group of
   * fragments writes one segment, and the driver publishes every segment in ONE commit. A concurrent create of
   * the same name fails it with an {@link io.quiver.exceptions.IncompatibleTransactionException} and nothing is
   * published (the segment files are never referenced; cleanup removes them after its safety window).
   */
  public static IndexBuildResult createIndex(SparkSession spark, String table, String name, ScalarIndex.Kind kind,
      String column, IndexBuildOptions options) {
    return DistributedIndexBuildJob.create(spark, Tables.resolve(spark, table), name, kind, column, options);
  }

  /**
   * Indexes the fragments of {@code table}'s latest version that index {@code name} does not cover in their
   * current state (appended, updated in the indexed column, rewritten since its last build), one Spark task per
   * group of them, in one commit; commits nothing when every fragment is covered.
   */
  public static IndexBuildResult optimizeIndex(SparkSession spark, String table, String name,
      IndexBuildOptions options) {
    return DistributedIndexBuildJob.optimize(spark, Tables.resolve(spark, table), name, options);
  }
}
