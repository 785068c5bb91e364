package io.quiver.cli;

/** A mistake in the command line or its input: printed as one line, exit code 1, no stack trace. */
final class UserException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UserException(String message) {
    super(message);
  }

  UserException(String message, Throwable cause) {
    super(message, cause);
  }
}
