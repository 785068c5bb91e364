package io.quiver.exceptions;

/** A caller passed an argument Quiver cannot act on; the message says which and why. */
public class InvalidArgumentException extends QuiverException {
  private static final long serialVersionUID = 1L;

  public InvalidArgumentException(String message) {
    super(message);
  }
}
