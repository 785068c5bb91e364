package io.quiver.exceptions;

/**
 * An object store call failed for a reason other than "not found" or "already exists". Whether the
 * call took effect is unknown unless {@link #isTransient()} says the store rejected it before acting.
 * Subclasses name the causes a caller handles differently: {@link StoreNotFoundException} (no such bucket,
 * container or directory), {@link StoreAccessDeniedException} (permission or credentials), {@link
 * StoreUnreachableException} (the endpoint could not be reached) and {@link CommitStateUnknownException}
 * (a create, or a commit, that may or may not have happened).
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
