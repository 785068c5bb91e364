package io.quiver.exceptions;

/**
 * An object store call failed for a reason other than "not found" or "already exists". Subclasses name the
 * causes a caller handles differently: {@link StoreNotFoundException} (no such bucket, container or
 * directory), {@link StoreAccessDeniedException} (permission or credentials), {@link
 * StoreUnreachableException} (the endpoint could not be reached) and {@link CommitStateUnknownException}
 * (a create, or a commit, that may or may not have happened). {@link #isTransient()} says whether the same
 * call may be repeated and may succeed: the store refused before acting, or the call is one whose repeat
 * has the same effect (a read, an unconditional write, a delete). A conditional create that failed after it
 * may have acted is never transient: it is a {@link CommitStateUnknownException}.
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

  /**
   * True when repeating the same call is harmless and may succeed: throttling and refused connections for
   * any call; timeouts and 5xx for reads, unconditional writes and deletes.
   */
  public boolean isTransient() {
    return transientFailure;
  }
}
