package io.quiver.store.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.exceptions.InvalidArgumentException;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class S3StoreOptionsTest {
  private static final String SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

  @Test
  void defaults() {
    S3StoreOptions o = S3StoreOptions.from(Map.of());
    assertThat(o.endpoint()).isEmpty();
    assertThat(o.region()).isEmpty();
    assertThat(o.pathStyleAccess()).isFalse();
    assertThat(o.hasStaticCredentials()).isFalse();
    assertThat(o.multipartThreshold()).isEqualTo(32L << 20);
    assertThat(o.partSize()).isEqualTo(16 << 20);
    assertThat(o.parallelism()).isEqualTo(4);
    assertThat(o.connectionTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(o.socketTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(o.maxRetries()).isEmpty();
    assertThat(o.maxConnections()).isEqualTo(64);
    assertThat(o.checksumWhenRequiredOnly()).isFalse();
    assertThat(S3StoreOptions.from(null).partSize()).isEqualTo(16 << 20);
  }

  @Test
  void everyOptionIsRead() {
    Map<String, String> m = new HashMap<>();
    m.put("s3.endpoint", "http://127.0.0.1:9000");
    m.put("s3.region", "eu-west-3");
    m.put("s3.path-style-access", "TRUE");
    m.put("s3.access-key-id", "AKIDEXAMPLE");
    m.put("s3.secret-access-key", SECRET);
    m.put("s3.session-token", "token");
    m.put("s3.multipart.threshold-bytes", "0");
    m.put("s3.multipart.part-size-bytes", Long.toString(5L << 20));
    m.put("s3.multipart.parallelism", "8");
    m.put("s3.connection-timeout-ms", "1500");
    m.put("s3.socket-timeout-ms", "2500");
    m.put("s3.max-retries", "0");
    m.put("s3.max-connections", "7");
    m.put("s3.checksum-calculation", "when_required");
    m.put("gcs.project-id", "ignored");
    m.put("s3.unknown-option", "ignored");
    S3StoreOptions o = S3StoreOptions.from(m);
    assertThat(o.endpoint()).contains(URI.create("http://127.0.0.1:9000"));
    assertThat(o.region()).contains("eu-west-3");
    assertThat(o.pathStyleAccess()).isTrue();
    assertThat(o.hasStaticCredentials()).isTrue();
    assertThat(o.accessKeyId()).contains("AKIDEXAMPLE");
    assertThat(o.secretAccessKey()).contains(SECRET);
    assertThat(o.sessionToken()).contains("token");
    assertThat(o.multipartThreshold()).isZero();
    assertThat(o.partSize()).isEqualTo(5 << 20);
    assertThat(o.parallelism()).isEqualTo(8);
    assertThat(o.connectionTimeout()).isEqualTo(Duration.ofMillis(1500));
    assertThat(o.socketTimeout()).isEqualTo(Duration.ofMillis(2500));
    assertThat(o.maxRetries()).isEqualTo(Optional.of(0));
    assertThat(o.maxConnections()).isEqualTo(7);
    assertThat(o.checksumWhenRequiredOnly()).isTrue();
  }

  @Test
  void toStringNeverShowsCredentials() {
    S3StoreOptions o = S3StoreOptions.from(Map.of(
        "s3.access-key-id", "AKIDEXAMPLE", "s3.secret-access-key", SECRET, "s3.session-token", "the-token"));
    assertThat(o.toString()).doesNotContain(SECRET).doesNotContain("the-token").doesNotContain("AKIDEXAMPLE")
        .contains("credentials=(static)");
  }

  @Test
  void badValuesNameTheOption() {
    assertBad(Map.of("s3.path-style-access", "yes"), "s3.path-style-access");
    assertBad(Map.of("s3.multipart.part-size-bytes", "1048576"), "s3.multipart.part-size-bytes");
    assertBad(Map.of("s3.multipart.part-size-bytes", "lots"), "s3.multipart.part-size-bytes");
    assertBad(Map.of("s3.multipart.threshold-bytes", "-1"), "s3.multipart.threshold-bytes");
    assertBad(Map.of("s3.multipart.parallelism", "0"), "s3.multipart.parallelism");
    assertBad(Map.of("s3.max-retries", "-1"), "s3.max-retries");
    assertBad(Map.of("s3.checksum-calculation", "always"), "s3.checksum-calculation");
    assertBad(Map.of("s3.endpoint", "ftp://host"), "s3.endpoint");
    assertBad(Map.of("s3.endpoint", "not a uri"), "s3.endpoint");
    assertBad(Map.of("s3.access-key-id", "AKID"), "s3.secret-access-key");
    assertBad(Map.of("s3.secret-access-key", SECRET), "s3.access-key-id");
    assertBad(Map.of("s3.session-token", "t"), "s3.access-key-id");
  }

  @Test
  void endpointWithUserInfoIsRefusedWithoutEchoingIt() {
    assertThatThrownBy(() -> S3StoreOptions.from(Map.of("s3.endpoint", "http://id:" + SECRET + "@host:9000")))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageNotContaining(SECRET);
  }

  private static void assertBad(Map<String, String> options, String named) {
    assertThatThrownBy(() -> S3StoreOptions.from(options))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining(named)
        .hasMessageNotContaining(SECRET);
  }
}
