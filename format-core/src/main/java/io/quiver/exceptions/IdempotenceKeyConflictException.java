package io.quiver.exceptions;

/**
 * A commit carried an idempotence key that an earlier commit of the table already used, but the two
 * commits' operations differ (their digests do not match). Nothing was committed: the earlier commit is
 * not silently taken for this one. Use a new key for new content, or retry with exactly the same content.
 */
public class IdempotenceKeyConflictException extends QuiverException {
  private static final long serialVersionUID = 1L;

  private final String key;
  private final long committedVersion;

  public IdempotenceKeyConflictException(String key, long committedVersion, String message) {
    super(message);
    this.key = key;
    this.committedVersion = committedVersion;
  }

  /** The idempotence key. */
  public String key() {
    return key;
  }

  /** The version that was committed earlier under the key. */
  public long committedVersion() {
    return committedVersion;
  }
}
