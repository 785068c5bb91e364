package io.quiver.spark.read;

import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One Quiver scan task as a Spark partition: the task's {@code encode()} bytes (which name the table URI
 * and the version planned, so an executor reads exactly that version), and what the driver knew of it.
 *
 * @param task the encoded {@link io.quiver.dataset.ScanTask}
 * @param fragmentId the fragment it reads (the {@code _fragment} value of its rows)
 * @param version the version planned
 * @param rowCount live rows before the filter
 * @param bytesEstimate estimated bytes fetched
 */
record QuiverInputPartition(byte[] task, long fragmentId, long version, long rowCount, long bytesEstimate)
    implements InputPartition {
  private static final long serialVersionUID = 1L;
}
