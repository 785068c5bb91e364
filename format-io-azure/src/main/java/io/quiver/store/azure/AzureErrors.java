package io.quiver.store.azure;

import com.azure.storage.blob.models.BlobStorageException;
import io.quiver.exceptions.StoreAccessDeniedException;
import io.quiver.exceptions.StoreException;
import io.quiver.exceptions.StoreNotFoundException;
import io.quiver.exceptions.StoreUnreachableException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;

/**
 * Maps SDK failures onto the core's exceptions. Messages name the call and the location and say what to
 * do; they carry the HTTP status and the service's error code, never the SDK's message (which can quote
 * request details) nor any credential.
 */
final class AzureErrors {
  private AzureErrors() {}

  /** HTTP status of a service error, or -1 when the failure is not a service response. */
  static int status(Throwable e) {
    BlobStorageException b = storageException(e);
    return b == null ? -1 : b.getStatusCode();
  }

  static String errorCode(Throwable e) {
    BlobStorageException b = storageException(e);
    return b == null || b.getErrorCode() == null ? "" : b.getErrorCode().toString();
  }

  static BlobStorageException storageException(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BlobStorageException b) {
        return b;
      }
    }
    return null;
  }

  /** True when the request never reached the service (so it cannot have taken effect). */
  static boolean neverSent(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException || t instanceof UnknownHostException) {
        return true;
      }
    }
    return false;
  }

  /** True for failures where repeating the same call may succeed. */
  static boolean refusedBeforeActing(Throwable e) {
    int status = status(e);
    return status == 429 || status == 503 || (status < 0 && neverSent(e));
  }

  private static boolean isIoOrTimeout(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException || t instanceof TimeoutException) {
        return true;
      }
    }
    return false;
  }

  /**
   * The core exception for a failed call other than "not found".
   *
   * @param mutating whether the call changes the store; a failed read is always safe to repeat, a failed
   *     write only when the service refused it before acting (429, 503, or the connection never opened)
   */
  static StoreException failure(String action, String location, RuntimeException e, boolean mutating) {
    int status = status(e);
    String code = errorCode(e);
    String what = "could not " + action + " " + location;
    if (status == 401 || status == 403) {
      return new StoreAccessDeniedException(
          what + ": access denied (HTTP " + status + (code.isEmpty() ? "" : " " + code) + "); check the"
              + " credential in the azure.* options (key, SAS permissions and expiry, role assignment) and the"
              + " container's access policy",
          e);
    }
    if (status == 404 && ("ContainerNotFound".equals(code))) {
      return new StoreNotFoundException(
          what + ": the container does not exist (HTTP 404 ContainerNotFound); create it first", e);
    }
    if (status >= 0) {
      boolean retryable = status == 408 || status == 429 || status >= 500;
      boolean transientFailure = status == 429 || status == 503 || (retryable && !mutating);
      return new StoreException(
          what + ": HTTP " + status + (code.isEmpty() ? "" : " " + code)
              + (retryable ? " after the configured retries (azure.max-retries); try again later" : ""),
          e,
          transientFailure);
    }
    if (neverSent(e)) {
      return new StoreUnreachableException(
          what + ": could not connect (" + rootMessage(e) + ") after the configured retries (azure.max-retries);"
              + " check azure.endpoint (or the account name) and connectivity, then retry",
          e);
    }
    boolean network = isIoOrTimeout(e) || neverSent(e);
    boolean transientFailure = neverSent(e) || (network && !mutating);
    return new StoreException(
        what + ": " + (network ? "network failure or timeout (" + simpleName(e) + ") after the configured retries;"
            + " check azure.endpoint and connectivity, or raise azure.*-timeout-ms" : simpleName(e)),
        e,
        transientFailure);
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage();
    return message == null || message.isBlank() ? root.getClass().getSimpleName()
        : root.getClass().getSimpleName() + ": " + message.strip().replace('\n', ' ');
  }

  private static String simpleName(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName();
  }
}
