package io.quiver.exceptions;

/**
 * A file of the table could not be decoded: truncated, bit-flipped, or not what its name says. The
 * message names the file. Nothing was written because of it.
 */
public class CorruptFileException extends QuiverException {
  private static final long serialVersionUID = 1L;
  private final String path;

  public CorruptFileException(String path, String detail) {
    super("corrupt file " + path + ": " + detail);
    this.path = path;
  }

  public CorruptFileException(String path, String detail, Throwable cause) {
    super("corrupt file " + path + ": " + detail, cause);
    this.path = path;
  }

  /** The path (store location) of the unreadable file. */
  public String path() {
    return path;
  }
}
