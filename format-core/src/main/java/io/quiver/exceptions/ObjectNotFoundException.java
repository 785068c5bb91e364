package io.quiver.exceptions;

/** A key is absent from an object store. */
public class ObjectNotFoundException extends NotFoundException {
  private static final long serialVersionUID = 1L;
  private final String location;

  public ObjectNotFoundException(String location) {
    super("object not found: " + location);
    this.location = location;
  }

  /** The store location (URI and key) that was looked up. */
  public String location() {
    return location;
  }
}
