package io.quiver.exceptions;

/**
 * A concurrent commit made this transaction meaningless (for example an overwrite replaced the table it
 * was appending to). Nothing was published; retrying the same change will not help without a decision
 * by the caller.
 */
public class IncompatibleTransactionException extends CommitConflictException {
  private static final long serialVersionUID = 1L;

  public IncompatibleTransactionException(String message) {
    super(message);
  }

  @Override
  public boolean isRetryable() {
    return false;
  }
}
