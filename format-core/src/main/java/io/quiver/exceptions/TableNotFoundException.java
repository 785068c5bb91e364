package io.quiver.exceptions;

/** No Quiver table (no committed version) exists at the given location. */
public class TableNotFoundException extends NotFoundException {
  private static final long serialVersionUID = 1L;

  public TableNotFoundException(String message) {
    super(message);
  }
}
