package io.quiver.store.support;

import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.StoreAccessDeniedException;
import io.quiver.exceptions.StoreException;
import io.quiver.exceptions.StoreNotFoundException;
import io.quiver.exceptions.StoreUnreachableException;

/**
 * What a failed store call means for its caller: the one classification every adapter maps its SDK's
 * failures onto (in its {@code XxxErrors}), and the typed exception, with one message style, for each.
 * Whether a failure is {@link StoreException#isTransient() transient} follows from the kind and from the
 * {@link Call} that failed, never from a flag each adapter spells its own way:
 *
 * <table>
 *   <caption>Kinds, exceptions and transience</caption>
 *   <tr><th>kind</th><th>typical causes</th><th>exception</th><th>transient</th></tr>
 *   <tr><td>{@link #NOT_FOUND}</td><td>404 on an object read</td><td>{@link ObjectNotFoundException}</td>
 *       <td>—</td></tr>
 *   <tr><td>{@link #STORE_NOT_FOUND}</td><td>no such bucket, container or root</td>
 *       <td>{@link StoreNotFoundException}</td><td>no</td></tr>
 *   <tr><td>{@link #ACCESS_DENIED}</td><td>401, 403, permission denied, no credentials found</td>
 *       <td>{@link StoreAccessDeniedException}</td><td>no</td></tr>
 *   <tr><td>{@link #UNREACHABLE}</td><td>unknown host, connection refused, no route, connect timeout: nothing
 *       was sent</td><td>{@link StoreUnreachableException}</td><td>yes</td></tr>
 *   <tr><td>{@link #REFUSED}</td><td>the store refused before acting: throttling (429, 503 SlowDown), a
 *       conflicting operation in progress</td><td>{@link StoreException}</td><td>yes</td></tr>
 *   <tr><td>{@link #TRANSIENT}</td><td>5xx, 408, read timeout, reset connection: the store may have
 *       acted</td><td>{@link StoreException}; for a {@link Call#CREATE} a {@link
 *       CommitStateUnknownException}</td><td>for {@link Call#READ} and {@link Call#WRITE}</td></tr>
 *   <tr><td>{@link #PERMANENT}</td><td>a request the store rejects (400, clock skew, unsupported)</td>
 *       <td>{@link StoreException}</td><td>no</td></tr>
 *   <tr><td>{@link #OUTCOME_UNKNOWN}</td><td>a conditional create that may or may not have happened and
 *       could not be settled</td><td>{@link CommitStateUnknownException}</td><td>no</td></tr>
 * </table>
 *
 * <p>Messages read {@code could not <action> <location>: <detail>; <advice>}: the detail is what the store
 * answered (status, error code, request id; never a credential), the advice what to do (the options to
 * check). An adapter passes its own advice where it can name its options; otherwise the kind's default
 * advice is used.
 */
public enum Failure {
  NOT_FOUND(""),
  STORE_NOT_FOUND("check the store URI and the endpoint; the bucket or container must exist"),
  ACCESS_DENIED("check the credentials and the permissions on the bucket or container"),
  UNREACHABLE("check the endpoint and the network, then retry"),
  REFUSED("nothing was done; retry later, with backoff"),
  TRANSIENT("retrying may succeed"),
  PERMANENT(""),
  OUTCOME_UNKNOWN("");

  /** What kind of call failed: decides whether repeating it is harmless. */
  public enum Call {
    /** No effect on the store (read, head, list): repeating is harmless. */
    READ,
    /** An unconditional write, replace or delete: repeating it has the same effect, so it is harmless. */
    WRITE,
    /** A conditional create ({@code putIfAbsent}): a repeat after it took effect would answer "exists". */
    CREATE
  }

  private final String defaultAdvice;

  Failure(String defaultAdvice) {
    this.defaultAdvice = defaultAdvice;
  }

  /** True when the store did not act, so that repeating any call, a create included, is safe. */
  public boolean refusedBeforeActing() {
    return this == UNREACHABLE || this == REFUSED;
  }

  /** True when the same call may succeed if repeated. */
  public boolean retryable() {
    return this == UNREACHABLE || this == REFUSED || this == TRANSIENT;
  }

  /** True when a {@link Call#CREATE} that failed so may have created the object. */
  public boolean mayHaveActed() {
    return this == TRANSIENT || this == OUTCOME_UNKNOWN;
  }

  /** This kind's advice when the adapter has none more precise. */
  public String defaultAdvice() {
    return defaultAdvice;
  }

  /**
   * The exception for this failure.
   *
   * @param call the kind of call that failed
   * @param action what was attempted, as in "could not {@code read} …"
   * @param location the store's location ({@code ObjectStore.location()})
   * @param key the key the call was about, or null for the store (or a prefix given in {@code action})
   * @param detail what the store answered, never a credential; may be empty
   * @param advice what to do; empty for this kind's default
   * @param cause the SDK's exception
   */
  public QuiverException exception(Call call, String action, String location, String key, String detail,
      String advice, Throwable cause) {
    String where = key == null ? location : join(location, key);
    String tip = advice == null || advice.isEmpty() ? defaultAdvice : advice;
    String message = "could not " + action + " " + where + (detail == null || detail.isEmpty() ? "" : ": " + detail)
        + (tip.isEmpty() ? "" : "; " + tip);
    return switch (this) {
      case NOT_FOUND -> new ObjectNotFoundException(where);
      case STORE_NOT_FOUND -> new StoreNotFoundException(message, cause);
      case ACCESS_DENIED -> new StoreAccessDeniedException(message, cause);
      case UNREACHABLE -> new StoreUnreachableException(message, cause);
      case REFUSED -> new StoreException(message, cause, true);
      case TRANSIENT -> call == Call.CREATE && key != null
          ? new CommitStateUnknownException(location, key, action + " failed (" + detail + ")", cause)
          : new StoreException(message, cause, call != Call.CREATE);
      case PERMANENT -> new StoreException(message, cause, false);
      case OUTCOME_UNKNOWN -> key != null
          ? new CommitStateUnknownException(location, key, action + " failed (" + detail + ")", cause)
          : new StoreException(message + "; the call may or may not have taken effect", cause, false);
    };
  }

  /** Like {@link #exception}, for callers that need a {@link StoreException} (every kind but {@link #NOT_FOUND}). */
  public StoreException storeException(Call call, String action, String location, String key, String detail,
      String advice, Throwable cause) {
    QuiverException e = exception(call, action, location, key, detail, advice, cause);
    return e instanceof StoreException se ? se
        : new StoreException("could not " + action + " " + (key == null ? location : join(location, key))
            + ": it does not exist", cause, false);
  }

  /** {@code location + "/" + key}, as {@code ObjectStore.locationOf} does. */
  public static String join(String location, String key) {
    return location.endsWith("/") ? location + key : location + "/" + key;
  }

  /** The message of the innermost cause, or its class name: for details of client-side failures. */
  public static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage();
    return message == null || message.isBlank() ? root.getClass().getSimpleName()
        : root.getClass().getSimpleName() + ": " + message.strip().replace('\n', ' ');
  }
}
