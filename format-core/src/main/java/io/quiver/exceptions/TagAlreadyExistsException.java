package io.quiver.exceptions;

/** A tag with the requested name already exists; tags are never overwritten. Delete it first or pick another name. */
public class TagAlreadyExistsException extends QuiverException {
  private static final long serialVersionUID = 1L;
  private final String tag;

  public TagAlreadyExistsException(String tag, String message) {
    super(message);
    this.tag = tag;
  }

  /** The name that is taken. */
  public String tag() {
    return tag;
  }
}
