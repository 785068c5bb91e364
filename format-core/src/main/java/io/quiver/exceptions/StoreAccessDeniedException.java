package io.quiver.exceptions;

/**
 * The store refused the call for lack of permission (HTTP 401/403 and equivalents, a file system's
 * "permission denied"), or no credentials could be found to make it with. Retrying will not help; check
 * the credentials and the policy on the bucket or container.
 */
public class StoreAccessDeniedException extends StoreException {
  private static final long serialVersionUID = 1L;

  public StoreAccessDeniedException(String message, Throwable cause) {
    super(message, cause, false);
  }
}
