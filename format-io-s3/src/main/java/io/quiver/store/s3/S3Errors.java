package io.quiver.store.s3;

import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.support.Failure;
import io.quiver.store.support.Failure.Call;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * Classifies AWS SDK failures ({@link Failure}) and builds the core's exceptions for them. Messages name
 * the call and the location, say what to do, and quote only S3's status, error code, message and request
 * id (which never carry credentials), never the request.
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
   * conditional create: throttling (429, 503 SlowDown) or a connection that was never established.
   */
  static boolean refusedBeforeActing(SdkException e) {
    return classify(e).refusedBeforeActing();
  }

  /** Whether {@code e} is a throttling answer of the service (503 SlowDown, 429, the SDK's throttling codes). */
  static boolean throttled(SdkException e) {
    return e instanceof AwsServiceException a && throttled(a);
  }

  private static boolean throttled(AwsServiceException a) {
    int status = a.statusCode();
    return a.isThrottlingException() || status == 429 || status == 503 || "SlowDown".equals(code(a));
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

  private static String message(SdkException e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  /**
   * What a failure means. 409 is {@link Failure#REFUSED}: S3 answers ConditionalRequestConflict (and
   * OperationAborted) when a conflicting operation on the key was in progress and it did not act on this
   * request; it does not say that the key exists.
   */
  static Failure classify(SdkException e) {
    if (e instanceof AwsServiceException a) {
      int status = a.statusCode();
      String code = code(e);
      if (status == 401 || status == 403) {
        return Failure.ACCESS_DENIED;
      }
      if ("NoSuchBucket".equals(code)) {
        return Failure.STORE_NOT_FOUND;
      }
      if (status == 404) {
        return Failure.NOT_FOUND;
      }
      if (throttled(a) || status == 409) {
        return Failure.REFUSED;
      }
      if (status >= 500 || status == 408) {
        return Failure.TRANSIENT;
      }
      return Failure.PERMANENT;
    }
    if (e instanceof SdkClientException && neverConnected(e)) {
      return Failure.UNREACHABLE;
    }
    String message = message(e);
    if (message.contains("Unable to load credentials")) {
      return Failure.ACCESS_DENIED;
    }
    if (message.contains("Unable to load region")) {
      return Failure.PERMANENT;
    }
    // Timeouts, resets, broken responses: the request may have reached S3.
    return Failure.TRANSIENT;
  }

  /**
   * The core's exception for a failed call.
   *
   * @param call what kind of call failed (decides whether a transient failure is reported transient)
   * @param action what was attempted, e.g. "read" (the message says "could not read &lt;location&gt;")
   * @param location the store's location
   * @param key the key, or a prefix for listings, or null for the store itself
   */
  static QuiverException map(Call call, String action, String location, String key, SdkException e) {
    Failure kind = classify(e);
    String detail;
    String advice = "";
    if (e instanceof AwsServiceException a) {
      String d = detail(a);
      switch (kind) {
        case ACCESS_DENIED -> {
          detail = "S3 denied access" + d;
          advice = "check the credentials (" + S3StoreOptions.ACCESS_KEY_ID + " / " + S3StoreOptions.SECRET_ACCESS_KEY
              + ", or the AWS SDK default chain) and the bucket policy";
        }
        case STORE_NOT_FOUND -> {
          detail = "the bucket does not exist" + d;
          advice = "check the bucket in the store URI (and " + S3StoreOptions.ENDPOINT + " / " + S3StoreOptions.REGION + ")";
        }
        case REFUSED -> {
          if (a.statusCode() == 409) {
            detail = "S3 reported a conflicting operation on the key in progress" + d;
            advice = "nothing was written; retry";
          } else {
            detail = "S3 is throttling" + d;
            advice = "retry later, with backoff";
          }
        }
        case TRANSIENT -> detail = "S3 failed" + d;
        default -> {
          detail = a.isClockSkewException() ? "S3 rejected the request time" + d : "S3 rejected the request" + d;
          advice = a.isClockSkewException() ? "fix this machine's clock" : "";
        }
      }
    } else {
      switch (kind) {
        case UNREACHABLE -> {
          detail = "could not connect to S3 (" + Failure.rootMessage(e) + ")";
          advice = "check " + S3StoreOptions.ENDPOINT + " and the network, then retry";
        }
        case ACCESS_DENIED -> {
          // The SDK's message lists every provider of its chain and why each failed: the cause keeps it.
          detail = "no AWS credentials found (not in the store options, nor in the AWS SDK default chain:"
              + " system properties, environment, profile, web identity, container or instance metadata)";
          advice = "set " + S3StoreOptions.ACCESS_KEY_ID + " and " + S3StoreOptions.SECRET_ACCESS_KEY
              + ", or configure the AWS SDK default chain";
        }
        case PERMANENT -> {
          detail = message(e);
          advice = "set " + S3StoreOptions.REGION + ", or configure the AWS SDK default chain";
        }
        default -> detail = message(e);
      }
    }
    return kind.exception(call, action, location, key, detail, advice, e);
  }

  /** Like {@link #map}, for failures that cannot mean "no such object" (writes, lists, deletes). */
  static StoreException mapStore(Call call, String action, String location, String key, SdkException e) {
    QuiverException mapped = map(call, action, location, key, e);
    return mapped instanceof StoreException s ? s
        : Failure.PERMANENT.storeException(call, action, location, key, detail(e), "", e);
  }

  /** Status, code and request id, for the unknown-outcome message of a conditional put. */
  static String describe(SdkException e) {
    if (e instanceof AwsServiceException a) {
      String d = detail(a);
      return d.substring(2, d.length() - 1); // without the parentheses
    }
    return Failure.rootMessage(e);
  }

  private static String detail(SdkException e) {
    return e instanceof AwsServiceException a ? detail(a) : " (" + Failure.rootMessage(e) + ")";
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
}
