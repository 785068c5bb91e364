package io.quiver.spark;

import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.CompactionResult;
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
}
