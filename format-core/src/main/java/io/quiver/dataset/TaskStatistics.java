package io.quiver.dataset;

import io.quiver.manifest.FieldBounds;
import java.util.List;
import java.util.Optional;

/**
 * What planning knows about a {@link ScanTask}'s rows, for an engine's cost model or statistics report
 * (Spark's {@code SupportsReportStatistics}, ...): from the manifest, no data file read.
 *
 * @param rowCount live rows in the task's range at the planned version, before the filter
 * @param bytesEstimate estimate of the bytes the task fetches ({@link ScanTask#bytesEstimate()})
 * @param fields per atomic field read whose bounds are known: the bounds of its values over the task's
 *     fragment (valid for the range, which holds a subset of the fragment's rows)
 */
public record TaskStatistics(long rowCount, long bytesEstimate, List<FieldBounds> fields) {
  public TaskStatistics {
    fields = List.copyOf(fields);
  }

  /** The bounds of {@code fieldId}, when known. */
  public Optional<FieldBounds> field(int fieldId) {
    return fields.stream().filter(f -> f.fieldId() == fieldId).findFirst();
  }
}
