/**
 * JMH benchmarks of the Flink connector through Flink SQL on a local MiniCluster (issue 39): {@link
 * FlinkInsertBench} (INSERT throughput beside Flink's filesystem/Parquet sink), {@link FlinkUpsertBench} (one
 * checkpoint's upsert of 1% of a primary-key table's keys, committed as one row delta) and {@link
 * FlinkReadAfterUpsertBench} (a full scan after upsert checkpoints beside an append-only table). Run by
 * benchmarks-flink/run.sh; figures in benchmarks/RESULTS.md ("Flink").
 */
package io.quiver.bench.flink;
