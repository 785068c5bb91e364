package io.quiver.exceptions;

/**
 * A merge-insert source holds two rows with one key: which of them should win is not defined, so the merge
 * refuses the source. Nothing was written or committed; remove the duplicates (or aggregate them) and run the
 * merge again.
 */
public class DuplicateSourceKeyException extends InvalidArgumentException {
  private static final long serialVersionUID = 1L;

  private final String key;

  public DuplicateSourceKeyException(String message, String key) {
    super(message);
    this.key = key;
  }

  /** The duplicated key, in readable form ({@code 7}, {@code 'abc'}, {@code (1, 'x')} for several columns). */
  public String key() {
    return key;
  }
}
