package io.quiver.exceptions;

/** A requested table version was never committed or has been cleaned up. */
public class VersionNotFoundException extends NotFoundException {
  private static final long serialVersionUID = 1L;
  private final long version;

  public VersionNotFoundException(long version, String message) {
    super(message);
    this.version = version;
  }

  public long version() {
    return version;
  }
}
