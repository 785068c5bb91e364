package io.quiver.store.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.StoreAccessDeniedException;
import io.quiver.exceptions.StoreException;
import io.quiver.exceptions.StoreNotFoundException;
import io.quiver.exceptions.StoreUnreachableException;
import io.quiver.store.support.Failure.Call;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

class S3ErrorsTest {
  private static S3Exception s3(int status, String code) {
    return (S3Exception) S3Exception.builder()
        .statusCode(status)
        .requestId("REQ1")
        .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage("msg of " + code).build())
        .build();
  }

  /** A read when {@code idempotent}, else the conditional create of {@code putIfAbsent}. */
  private static StoreException map(SdkException e, boolean idempotent) {
    return (StoreException) S3Errors.map(idempotent ? Call.READ : Call.CREATE, "read", "s3://b/t", "k", e);
  }

  @Test
  void authFailuresAreAccessDenied() {
    for (int status : new int[] {401, 403}) {
      StoreException e = map(s3(status, "AccessDenied"), true);
      assertThat(e).isInstanceOf(StoreAccessDeniedException.class);
      assertThat(e.isTransient()).isFalse();
      assertThat(e.getMessage()).contains("s3://b/t/k").contains("AccessDenied").contains("REQ1")
          .contains("s3.access-key-id");
    }
  }

  @Test
  void throttlingIsTransientEvenForNonIdempotentCalls() {
    assertThat(map(s3(503, "SlowDown"), false).isTransient()).isTrue();
    assertThat(map(s3(429, "TooManyRequests"), false).isTransient()).isTrue();
    assertThat(S3Errors.refusedBeforeActing(s3(503, "SlowDown"))).isTrue();
  }

  @Test
  void serverErrorsAreTransientOnlyWhenRepeatingIsHarmless() {
    assertThat(map(s3(500, "InternalError"), true).isTransient()).isTrue();
    StoreException unknown = map(s3(500, "InternalError"), false);
    assertThat(unknown).isInstanceOf(CommitStateUnknownException.class);
    assertThat(((CommitStateUnknownException) unknown).key()).contains("k");
    assertThat(unknown.isTransient()).isFalse();
    assertThat(unknown.getMessage()).contains("s3://b/t/k").contains("may or may not have been created");
    assertThat(S3Errors.refusedBeforeActing(s3(500, "InternalError"))).isFalse();
  }

  @Test
  void connectionFailuresVersusTimeouts() {
    SdkClientException refused = SdkClientException.create("Unable to execute HTTP request", new ConnectException("refused"));
    assertThat(S3Errors.refusedBeforeActing(refused)).isTrue();
    assertThat(map(refused, false).isTransient()).isTrue();
    assertThat(map(refused, false)).isInstanceOf(StoreUnreachableException.class);
    SdkClientException timeout = SdkClientException.create("Unable to execute HTTP request", new SocketTimeoutException("Read timed out"));
    assertThat(S3Errors.refusedBeforeActing(timeout)).isFalse();
    assertThat(map(timeout, true).isTransient()).isTrue();
    assertThat(map(timeout, false).isTransient()).isFalse();
    assertThat(map(timeout, false)).isInstanceOf(CommitStateUnknownException.class);
    assertThat(map(timeout, true)).isNotInstanceOf(StoreUnreachableException.class);
  }

  @Test
  void missingBucketIsNotAMissingObject() {
    assertThat(S3Errors.isMissingObject(s3(404, "NoSuchKey"))).isTrue();
    assertThat(S3Errors.isMissingObject(s3(404, "NoSuchBucket"))).isFalse();
    StoreException noBucket = map(s3(404, "NoSuchBucket"), true);
    assertThat(noBucket).isInstanceOf(StoreNotFoundException.class);
    assertThat(noBucket.getMessage()).contains("bucket does not exist");
  }

  @Test
  void missingCredentialsAreAccessDeniedWithAShortMessage() {
    SdkClientException none = SdkClientException.create("Unable to load credentials from any of the providers in the"
        + " chain AwsCredentialsProviderChain(credentialsProviders=[SystemPropertyCredentialsProvider(), ...]) : [...]");
    StoreException e = map(none, true);
    assertThat(e).isInstanceOf(StoreAccessDeniedException.class);
    assertThat(e.getMessage()).contains("no AWS credentials found").contains("s3.access-key-id")
        .doesNotContain("AwsCredentialsProviderChain");
    assertThat(e.getCause()).isSameAs(none);
  }

  @Test
  void aConflictingOperationInProgressIsARefusal() {
    StoreException e = map(s3(409, "ConditionalRequestConflict"), false);
    assertThat(e.isTransient()).as("S3 did not act").isTrue();
    assertThat(e).isNotInstanceOf(CommitStateUnknownException.class);
    assertThat(e.getMessage()).contains("conflicting operation").contains("retry");
  }

  @Test
  void otherClientErrorsAreFinal() {
    StoreException e = map(s3(400, "InvalidRequest"), true);
    assertThat(e.isTransient()).isFalse();
    assertThat(e).isNotInstanceOf(StoreAccessDeniedException.class);
  }
}
