package io.quiver.exceptions;

/**
 * A file was written by a newer (or unknown) format version, or requires a feature this reader does not
 * implement. Upgrade Quiver to read it.
 */
public class UnsupportedFormatException extends QuiverException {
  private static final long serialVersionUID = 1L;

  public UnsupportedFormatException(String message) {
    super(message);
  }
}
