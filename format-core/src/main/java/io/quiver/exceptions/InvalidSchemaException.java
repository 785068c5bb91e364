package io.quiver.exceptions;

/** A schema is not acceptable as a table schema (reserved or duplicate names, bad ids, ...). */
public class InvalidSchemaException extends QuiverException {
  private static final long serialVersionUID = 1L;

  public InvalidSchemaException(String message) {
    super(message);
  }
}
