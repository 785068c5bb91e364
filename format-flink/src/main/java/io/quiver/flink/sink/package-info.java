/**
 * The exactly-once Flink 2.3 sink ({@link io.quiver.flink.sink.QuiverSink}): subtasks write data files with
 * Quiver's {@code DistributedWriter}, one aggregator per job gathers each checkpoint's results, and the
 * committer appends them once per checkpoint under the application sequence ({@code jobId/operatorUid},
 * checkpoint id). See docs/flink.md.
 */
package io.quiver.flink.sink;
