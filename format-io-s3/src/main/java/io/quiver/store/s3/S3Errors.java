package io.quiver.store.s3;

import io.quiver.exceptions.StoreAccessDeniedException;
import io.quiver.exceptions.StoreException;
import io.quiver.exceptions.StoreNotFoundException;
import io.quiver.exceptions.StoreUnreachableException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * Maps AWS SDK failures onto Quiver's store exceptions. Messages name the call and the location, say what
 * to do, and quote only S3's error code and message (which never carry credentials), never the request.
 */
final class S3Errors {
  private S3Errors() {}

  /** HTTP status of a service error, or -1 for a client-side failure. */
  static int status(SdkException e) {
    return e instanceof SdkServiceException s ? s.statusCode() : -1;
  }

  /** S3's error code ({@code NoSuchKey}, {@code SlowDown}, ...), or null (HEAD responses have no body). */
  static String code(SdkException e) {
    if (e instanceof AwsServiceException a) {
      AwsErrorDetails d = a.awsErrorDetails();
      return d == null ? null : d.errorCode();
    }
    return null;
  }

  /** Whether S3 said the object (not the bucket) does not exist. */
  static boolean isMissingObject(SdkException e) {
    return status(e) == 404 && !"NoSuchBucket".equals(code(e));
  }

  /**
   * Whether S3 rejected the request before acting on it, so that sending it again is safe even for a
   * non-idempotent call: throttling (429, 503 SlowDown) or a connection that was never established.
   */
  static boolean refusedBeforeActing(SdkException e) {
    if (e instanceof AwsServiceException a) {
      int status = a.statusCode();
      return a.isThrottlingException() || status == 429 || status == 503 || "SlowDown".equals(code(e));
    }
    return e instanceof SdkClientException && neverConnected(e);
  }

  private static boolean neverConnected(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException || t instanceof UnknownHostException || t instanceof NoRouteToHostException) {
        return true;
      }
      String name = t.getClass().getName();
      // HttpClient 5's "connect to ... failed" and pool-acquisition timeouts: nothing was sent.
      if (name.endsWith("HttpHostConnectException") || name.endsWith("ConnectionRequestTimeoutException")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The store exception for a failed call.
   *
   * @param action what was attempted, e.g. "read" (the message says "could not read &lt;location&gt;")
   * @param location the object or prefix location
   * @param idempotent whether repeating the call is harmless, so that any transient failure may be
   *     reported as such; for a non-idempotent call only a refusal before acting is transient
   */
  static StoreException map(String action, String location, SdkException e, boolean idempotent) {
    String what = "could not " + action + " " + location;
    if (e instanceof AwsServiceException a) {
      int status = a.statusCode();
      String code = code(e);
      String detail = detail(a);
      if (status == 401 || status == 403) {
        return new StoreAccessDeniedException(
            what + ": S3 denied access" + detail + ". Check the credentials (" + S3StoreOptions.ACCESS_KEY_ID + " / "
                + S3StoreOptions.SECRET_ACCESS_KEY + ", or the AWS SDK default chain) and the bucket policy.",
            e);
      }
      if ("NoSuchBucket".equals(code)) {
        return new StoreNotFoundException(
            what + ": the bucket does not exist" + detail + ". Check the bucket in the store URI (and "
                + S3StoreOptions.ENDPOINT + " / " + S3StoreOptions.REGION + ").",
            e);
      }
      if (refusedBeforeActing(e)) {
        return new StoreException(what + ": S3 is throttling" + detail + "; retry later, with backoff.", e, true);
      }
      if (status >= 500) {
        return new StoreException(
            what + ": S3 failed" + detail + (idempotent
                ? "; retrying may succeed."
                : "; the call may or may not have taken effect, read the object back before retrying."),
            e, idempotent);
      }
      if (a.isClockSkewException()) {
        return new StoreException(what + ": S3 rejected the request time" + detail + "; fix this machine's clock.", e);
      }
      return new StoreException(what + ": S3 rejected the request" + detail + ".", e, false);
    }
    if (e instanceof SdkClientException && neverConnected(e)) {
      return new StoreUnreachableException(
          what + ": could not connect to S3 (" + rootMessage(e) + "); check " + S3StoreOptions.ENDPOINT
              + " and the network, then retry.",
          e);
    }
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    if (message.contains("Unable to load credentials")) {
      // The SDK's message lists every provider of its chain and why each failed: the cause keeps it.
      return new StoreAccessDeniedException(
          what + ": no AWS credentials found (not in the store options, nor in the AWS SDK default chain:"
              + " system properties, environment, profile, web identity, container or instance metadata). Set "
              + S3StoreOptions.ACCESS_KEY_ID + " and " + S3StoreOptions.SECRET_ACCESS_KEY
              + ", or configure the AWS SDK default chain.",
          e);
    }
    if (message.contains("Unable to load region")) {
      return new StoreException(
          what + ": " + message + ". Set " + S3StoreOptions.REGION + ", or configure the AWS SDK default chain.",
          e, false);
    }
    return new StoreException(
        what + ": " + message + (idempotent
            ? "; retrying may succeed."
            : "; the call may or may not have taken effect, read the object back before retrying."),
        e, idempotent);
  }

  private static String detail(AwsServiceException a) {
    StringBuilder b = new StringBuilder(" (HTTP ").append(a.statusCode());
    String code = code(a);
    if (code != null) {
      b.append(' ').append(code);
    }
    AwsErrorDetails d = a.awsErrorDetails();
    if (d != null && d.errorMessage() != null && !d.errorMessage().isBlank()) {
      b.append(": ").append(d.errorMessage());
    }
    if (a.requestId() != null) {
      b.append("; request id ").append(a.requestId());
    }
    return b.append(')').toString();
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }
}
