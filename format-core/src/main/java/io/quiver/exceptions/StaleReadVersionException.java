package io.quiver.exceptions;

/**
 * A commit cannot be checked for conflicts because versions committed after its read version have been
 * removed by cleanup. Nothing was published. Re-open the latest version, recompute the change against it
 * and commit again (or keep read versions younger than the cleanup retention).
 */
public class StaleReadVersionException extends RetryableConflictException {
  private static final long serialVersionUID = 1L;
  private final long readVersion;
  private final long oldestAvailable;

  public StaleReadVersionException(long readVersion, long oldestAvailable, String message) {
    super(message);
    this.readVersion = readVersion;
    this.oldestAvailable = oldestAvailable;
  }

  /** The version the transaction was computed from (or the newest version the commit had seen). */
  public long readVersion() {
    return readVersion;
  }

  /** The oldest version after the read version that is still present. */
  public long oldestAvailable() {
    return oldestAvailable;
  }
}
