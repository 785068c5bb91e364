package io.quiver.exceptions;

/**
 * A checkpoint is not in the state an operation needs: staging into a sealed checkpoint, reading or
 * finalizing one that is not sealed, or naming one that does not exist. Nothing was changed.
 */
public class CheckpointStateException extends QuiverException {
  private static final long serialVersionUID = 1L;

  public CheckpointStateException(String message) {
    super(message);
  }
}
