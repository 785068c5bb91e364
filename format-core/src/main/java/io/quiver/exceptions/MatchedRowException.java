package io.quiver.exceptions;

/**
 * A merge-insert with {@code whenMatchedFail()} found a source row whose key a live table row already holds.
 * Nothing was committed.
 */
public class MatchedRowException extends QuiverException {
  private static final long serialVersionUID = 1L;

  private final String key;

  public MatchedRowException(String message, String key) {
    super(message);
    this.key = key;
  }

  /** The matched key, in readable form ({@code 7}, {@code 'abc'}, {@code (1, 'x')} for several columns). */
  public String key() {
    return key;
  }
}
