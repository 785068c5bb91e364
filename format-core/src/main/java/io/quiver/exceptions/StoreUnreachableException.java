package io.quiver.exceptions;

/**
 * The store's endpoint could not be reached: the host name did not resolve, the connection was refused,
 * no route to the host, or connecting timed out. The request was never sent, so it did not take effect
 * ({@link #isTransient()} is true). Check the endpoint option and the network, then retry.
 */
public class StoreUnreachableException extends StoreException {
  private static final long serialVersionUID = 1L;

  public StoreUnreachableException(String message, Throwable cause) {
    super(message, cause, true);
  }
}
