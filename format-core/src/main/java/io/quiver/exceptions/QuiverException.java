package io.quiver.exceptions;

/**
 * Base of every error Quiver raises on purpose. Messages say what was expected, what was found and,
 * where there is something to do, what to do.
 */
public class QuiverException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public QuiverException(String message) {
    super(message);
  }

  public QuiverException(String message, Throwable cause) {
    super(message, cause);
  }
}
