package io.quiver.exceptions;

/** No tag with the requested name exists. */
public class TagNotFoundException extends NotFoundException {
  private static final long serialVersionUID = 1L;
  private final String tag;

  public TagNotFoundException(String tag, String message) {
    super(message);
    this.tag = tag;
  }

  /** The name that was not found. */
  public String tag() {
    return tag;
  }
}
