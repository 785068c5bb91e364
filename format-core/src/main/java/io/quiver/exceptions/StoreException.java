package io.quiver.exceptions;

/**
 * An object store call failed for a reason other than "not found" or "already exists". Whether the
 * call took effect is unknown unless {@link #isTransient()} says the store rejected it before acting.
 */
public class StoreException extends QuiverException {
  private static final long serialVersionUID = 1L;
  private final boolean transientFailure;

  public StoreException(String message, Throwable cause) {
    this(message, cause, false);
  }

  public StoreException(String message, Throwable cause, boolean transientFailure) {
    super(message, cause);
    this.transientFailure = transientFailure;
  }

  /** True when the same call may succeed if repeated (throttling, timeouts, 5xx). */
  public boolean isTransient() {
    return transientFailure;
  }
}
