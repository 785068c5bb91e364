package io.quiver.exceptions;

/** Data offered to a table does not match the table's schema. Nothing was committed. */
public class SchemaMismatchException extends QuiverException {
  private static final long serialVersionUID = 1L;

  public SchemaMismatchException(String message) {
    super(message);
  }
}
