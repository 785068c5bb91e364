package io.quiver.exceptions;

/** An object, table or version that the caller named does not exist. */
public class NotFoundException extends QuiverException {
  private static final long serialVersionUID = 1L;

  public NotFoundException(String message) {
    super(message);
  }

  public NotFoundException(String message, Throwable cause) {
    super(message, cause);
  }
}
