package io.quiver.exceptions;

/** {@code create} found a committed table at the location. Open it instead, or overwrite it. */
public class TableAlreadyExistsException extends QuiverException {
  private static final long serialVersionUID = 1L;

  public TableAlreadyExistsException(String message) {
    super(message);
  }
}
