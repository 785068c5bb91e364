package io.quiver.exceptions;

/**
 * A concurrent commit changed what this transaction depends on. Nothing was published. Re-open the
 * latest version, recompute the change against it and commit again.
 */
public class RetryableConflictException extends CommitConflictException {
  private static final long serialVersionUID = 1L;

  public RetryableConflictException(String message) {
    super(message);
  }

  public RetryableConflictException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public boolean isRetryable() {
    return true;
  }
}
