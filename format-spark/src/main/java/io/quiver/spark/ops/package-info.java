/** Executor-side work of the distributed operations (backfill staging, compaction tasks); not API. */
package io.quiver.spark.ops;
