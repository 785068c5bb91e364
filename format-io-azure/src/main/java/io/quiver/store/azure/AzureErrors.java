package io.quiver.store.azure;

import com.azure.storage.blob.models.BlobStorageException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.support.Failure;
import io.quiver.store.support.Failure.Call;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;

/**
 * Classifies azure-storage-blob failures ({@link Failure}) and builds the core's exceptions for them.
 * Messages name the call and the location and say what to do; they carry the HTTP status and the service
 * error code, never the SDK's message (which can quote request details) nor any credential.
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

  /** True when the service refused before acting (429, 503) or the connection never opened. */
  static boolean refusedBeforeActing(Throwable e) {
    return classify(e).refusedBeforeActing();
  }

  private static boolean isIoOrTimeout(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException || t instanceof TimeoutException) {
        return true;
      }
    }
    return false;
  }

  /** What a failure means. 503 is the service's "server busy", a refusal like 429. */
  static Failure classify(Throwable e) {
    int status = status(e);
    if (status == 401 || status == 403) {
      return Failure.ACCESS_DENIED;
    }
    if (status == 404) {
      return "ContainerNotFound".equals(errorCode(e)) ? Failure.STORE_NOT_FOUND : Failure.NOT_FOUND;
    }
    if (status == 429 || status == 503) {
      return Failure.REFUSED;
    }
    if (status == 408 || status >= 500) {
      return Failure.TRANSIENT;
    }
    if (status >= 0) {
      return Failure.PERMANENT;
    }
    if (neverSent(e)) {
      return Failure.UNREACHABLE;
    }
    return isIoOrTimeout(e) ? Failure.TRANSIENT : Failure.PERMANENT;
  }

  /**
   * The core exception for a failed call other than "not found" (callers that can tell a missing object
   * handle 404 first).
   *
   * @param call the kind of call: decides whether a transient failure is reported transient
   * @param location the store's location
   * @param key the key, or a prefix, or null for the store
   */
  static StoreException failure(Call call, String action, String location, String key, Throwable e) {
    Failure kind = classify(e);
    int status = status(e);
    String code = errorCode(e);
    String http = "HTTP " + status + (code.isEmpty() ? "" : " " + code);
    String detail;
    String advice;
    switch (kind) {
      case ACCESS_DENIED -> {
        detail = "access denied (" + http + ")";
        advice = "check the credential in the azure.* options (key, SAS permissions and expiry, role assignment)"
            + " and the container's access policy";
      }
      case STORE_NOT_FOUND -> {
        detail = "the container does not exist (" + http + ")";
        advice = "create it first";
      }
      case UNREACHABLE -> {
        detail = "could not connect (" + Failure.rootMessage(e) + ") after the configured retries ("
            + AzureStoreOptions.MAX_RETRIES + ")";
        advice = "check " + AzureStoreOptions.ENDPOINT + " (or the account name) and connectivity, then retry";
      }
      default -> {
        if (status >= 0) {
          detail = http + (kind.retryable() ? " after the configured retries (" + AzureStoreOptions.MAX_RETRIES + ")" : "");
          advice = kind.retryable() ? "try again later" : "";
        } else if (kind == Failure.TRANSIENT) {
          detail = "network failure or timeout (" + simpleName(e) + ") after the configured retries";
          advice = "check " + AzureStoreOptions.ENDPOINT + " and connectivity, or raise azure.*-timeout-ms";
        } else {
          detail = simpleName(e);
          advice = "";
        }
      }
    }
    return (kind == Failure.NOT_FOUND ? Failure.PERMANENT : kind).storeException(call, action, location, key, detail,
        advice, e);
  }

  /** Status and code, or the kind of client failure: for the unknown-outcome message of a conditional put. */
  static String describe(Throwable e) {
    int status = status(e);
    if (status >= 0) {
      String code = errorCode(e);
      return "HTTP " + status + (code.isEmpty() ? "" : " " + code);
    }
    return neverSent(e) ? "could not connect (" + Failure.rootMessage(e) + ")" : simpleName(e);
  }

  private static String simpleName(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName();
  }
}
