package io.quiver.exceptions;

/**
 * The commit loop lost the race for the next version more often than its configured attempts or time
 * allow. Nothing was published. Retry later or raise {@code CommitOptions.maxAttempts}/{@code timeout}.
 */
public class CommitRetriesExhaustedException extends RetryableConflictException {
  private static final long serialVersionUID = 1L;

  public CommitRetriesExhaustedException(String message) {
    super(message);
  }
}
