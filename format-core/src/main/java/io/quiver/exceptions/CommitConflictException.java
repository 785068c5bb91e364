package io.quiver.exceptions;

/** A commit could not be published because of transactions committed since its read version. */
public abstract class CommitConflictException extends QuiverException {
  private static final long serialVersionUID = 1L;

  protected CommitConflictException(String message) {
    super(message);
  }

  protected CommitConflictException(String message, Throwable cause) {
    super(message, cause);
  }

  /** True when re-reading the latest version and recomputing the change may succeed. */
  public abstract boolean isRetryable();
}
