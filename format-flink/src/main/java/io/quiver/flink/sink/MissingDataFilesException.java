package io.quiver.flink.sink;

import io.quiver.exceptions.ValidationException;
import java.util.List;

/**
 * A {@link QuiverSink} checkpoint cannot be committed: data files its write results name no longer exist in
 * the table's store. Nothing of the checkpoint was committed (a version referring to missing files would
 * corrupt the table) and the job fails with this error. The usual cause is a {@code Dataset.cleanup} whose
 * safety window is shorter than checkpoint interval + restart time + commit time, which removed the files
 * as orphans before the committer published them. The rows of the checkpoint are not in the table: they must
 * be ingested again from the source. {@link #problems()} has one line per missing file.
 */
public class MissingDataFilesException extends ValidationException {
  private static final long serialVersionUID = 1L;

  private final String table;
  private final String applicationId;
  private final long checkpointId;
  private final List<String> missingFiles;

  /**
   * @param table the table's URI
   * @param applicationId the sink's application id ({@code jobId/operatorUid})
   * @param checkpointId the checkpoint whose results name the files
   * @param missingFiles the missing files' keys, relative to the table's location
   * @param totalFiles how many files the checkpoint's results name
   * @param rows how many rows the checkpoint's results hold
   */
  public MissingDataFilesException(String table, String applicationId, long checkpointId, List<String> missingFiles,
      int totalFiles, long rows) {
    super(message(table, applicationId, checkpointId, missingFiles, totalFiles, rows),
        missingFiles.stream().map(f -> "MISSING_FILE " + f + ": written for checkpoint " + checkpointId
            + ", absent before its commit").toList());
    this.table = table;
    this.applicationId = applicationId;
    this.checkpointId = checkpointId;
    this.missingFiles = List.copyOf(missingFiles);
  }

  private static String message(String table, String app, long checkpointId, List<String> missing, int total,
      long rows) {
    return "cannot commit checkpoint " + checkpointId + " of the Quiver sink " + app + " to table " + table
        + ": its write results name " + total + " data file(s), and " + missing.size() + (missing.size() == 1 ? " no longer exists " : " no longer exist ")
        + (missing.size() == 1 ? "(" : "(first: ") + missing.get(0) + "). Nothing of the checkpoint was committed:"
        + " a version referring to missing files would corrupt the table. A cleanup most likely removed them as"
        + " orphans: the cleanup's safety window (CleanupOptions.safetyWindow) must exceed checkpoint interval +"
        + " restart time + commit time. The " + rows + " row(s) of checkpoint " + checkpointId + " are not in the"
        + " table and must be re-ingested from the source (a restart from this checkpoint re-delivers the same"
        + " results and fails again): start the job from a state or source position before that checkpoint.";
  }

  /** The table's URI. */
  public String table() {
    return table;
  }

  /** The sink's application id in the table's ledger ({@code jobId/operatorUid}). */
  public String applicationId() {
    return applicationId;
  }

  /** The checkpoint that was not committed. */
  public long checkpointId() {
    return checkpointId;
  }

  /** The missing files' keys, relative to the table's location ({@code data/...}). */
  public List<String> missingFiles() {
    return missingFiles;
  }
}
