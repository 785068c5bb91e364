/** Turns the Spark benchmarks' JMH results into {@code benchmarks-spark/RESULTS.md}: each Quiver figure beside Parquet's, as a ratio. */
package io.quiver.bench.spark.report;
