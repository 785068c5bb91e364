package io.quiver.spark;

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
}
