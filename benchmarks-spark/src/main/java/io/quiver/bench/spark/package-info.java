/**
 * JMH benchmarks of the Spark connector, each with Spark's built-in Parquet source as its baseline in the same
 * run: scans ({@link io.quiver.bench.spark.SparkScanBench}), appends ({@link io.quiver.bench.spark.SparkAppendBench})
 * and a distributed column backfill ({@link io.quiver.bench.spark.SparkBackfillBench}). Run them with
 * {@code benchmarks-spark/run.sh quick|full}.
 */
package io.quiver.bench.spark;
