package io.quiver.exceptions;

/**
 * A task staged results for a checkpoint that already holds different results for the same task. The
 * first results stand; nothing was changed. A task re-run that produced new files must not re-stage
 * under the same checkpoint: skip tasks whose results are already staged, or stage under a new checkpoint.
 */
public class StagedResultConflictException extends QuiverException {
  private static final long serialVersionUID = 1L;

  public StagedResultConflictException(String message) {
    super(message);
  }
}
