/**
 * Quiver for Spark 4.2: the catalog ({@link io.quiver.spark.QuiverCatalog}), path access ({@code format("quiver")},
 * {@link io.quiver.spark.QuiverDataSource}), and the distributed operations Spark drives on a table (column
 * backfill and compaction, {@code QuiverSpark}). API.
 */
package io.quiver.spark;
