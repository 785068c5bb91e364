package io.quiver.store.gcs;

import com.google.cloud.storage.StorageException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.support.Failure;
import io.quiver.store.support.Failure.Call;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;

/**
 * Classifies google-cloud-storage failures ({@link Failure}) and builds the core's exceptions for them.
 * Messages name the call, the location and the bucket, and quote the HTTP status and the first line of
 * the service's message (at most 300 characters), never a credential.
 */
final class GcsErrors {
  private GcsErrors() {}

  /** The HTTP status of the first {@link StorageException} in the cause chain, or -1 when there is none. */
  static int status(Throwable t) {
    StorageException se = storageCause(t);
    return se == null ? -1 : se.getCode();
  }

  private static StorageException storageCause(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof StorageException se && se.getCode() > 0) {
        return se;
      }
    }
    return null;
  }

  /** Whether the connection was never opened (refused, unknown host): nothing was sent. */
  static boolean refusedToConnect(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ConnectException || c instanceof UnknownHostException) {
        return true;
      }
    }
    return false;
  }

  /** Throttling, server errors, timeouts and broken connections: the same call may succeed later. */
  static boolean isRetryable(Throwable t) {
    return classify(t, false).retryable();
  }

  /**
   * What a failure means.
   *
   * @param notFoundIsObject whether 404 means "no such object" (reads) rather than "no such bucket"
   */
  static Failure classify(Throwable e, boolean notFoundIsObject) {
    int status = status(e);
    if (status == 404) {
      return notFoundIsObject ? Failure.NOT_FOUND : Failure.STORE_NOT_FOUND;
    }
    if (status == 401 || status == 403) {
      return Failure.ACCESS_DENIED;
    }
    if (status < 0 && refusedToConnect(e)) {
      return Failure.UNREACHABLE;
    }
    if (status == 429) {
      return Failure.REFUSED;
    }
    if (status == 408 || status >= 500) {
      return Failure.TRANSIENT;
    }
    if (status > 0) {
      return Failure.PERMANENT;
    }
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof IOException) {
        return Failure.TRANSIENT;
      }
    }
    return Failure.PERMANENT;
  }

  /**
   * The core's exception for a failed call.
   *
   * @param location the store's location
   * @param bucket the bucket, for advice
   * @param key the key, or a prefix, or null for the store
   * @param notFoundIsObject whether 404 means "no such object" (reads) rather than "no such bucket"
   */
  static QuiverException map(Call call, String action, String location, String bucket, String key, Throwable e,
      boolean notFoundIsObject) {
    Failure kind = classify(e, notFoundIsObject);
    String reason = describe(e);
    String detail;
    String advice;
    switch (kind) {
      case STORE_NOT_FOUND -> {
        detail = "GCS answered 404 (" + reason + ")";
        advice = "check that bucket " + bucket + " exists and the endpoint is right";
      }
      case ACCESS_DENIED -> {
        detail = "GCS refused (" + reason + ")";
        advice = "check the credentials (" + GcsStoreOptions.CREDENTIALS_FILE + ", " + GcsStoreOptions.OAUTH2_TOKEN
            + " or the application default credentials) and the IAM permissions on bucket " + bucket;
      }
      case UNREACHABLE -> {
        detail = reason;
        advice = "check " + GcsStoreOptions.ENDPOINT + " and the network, then retry";
      }
      case REFUSED -> {
        detail = reason;
        advice = "GCS is throttling; retry later, with backoff";
      }
      case TRANSIENT -> {
        detail = reason;
        advice = "the call may succeed if repeated";
      }
      default -> {
        detail = reason;
        advice = "";
      }
    }
    return kind.exception(call, action, location, key, detail, advice, e);
  }

  /** Like {@link #map} for calls where 404 is the bucket's: always a {@link StoreException}. */
  static StoreException mapStore(Call call, String action, String location, String bucket, String key, Throwable e) {
    return (StoreException) map(call, action, location, bucket, key, e, false);
  }

  /** The status and the first line of the message, or how the connection failed. */
  static String describe(Throwable e) {
    int status = status(e);
    StorageException se = storageCause(e);
    Throwable source = se != null ? se : e;
    String message = source.getMessage();
    if (message == null || message.isBlank()) {
      message = source.getClass().getSimpleName();
    } else {
      message = message.strip();
      int nl = message.indexOf('\n');
      if (nl > 0) {
        message = message.substring(0, nl);
      }
      if (message.length() > 300) {
        message = message.substring(0, 300) + "...";
      }
    }
    if (status < 0 && refusedToConnect(e)) {
      return "could not connect (" + message + ")";
    }
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof SocketTimeoutException) {
        return "timed out (" + message + ")";
      }
    }
    return status > 0 ? "HTTP " + status + " " + message : message;
  }
}
