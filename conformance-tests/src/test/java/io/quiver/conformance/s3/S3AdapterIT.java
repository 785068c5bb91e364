package io.quiver.conformance.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.conformance.emulator.S3ProxyEmulator;
import io.quiver.exceptions.StoreAccessDeniedException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.s3.S3ObjectStore;
import io.quiver.store.s3.S3ObjectStoreProvider;
import io.quiver.store.s3.S3StoreOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What only S3 can get wrong, on S3Proxy: opening by URI, authentication, the secrecy of credentials and
 * a missing bucket. The store contract, multipart uploads and their abort included, runs on the S3 fixture
 * in the matrix ({@code ObjectStoreContractIT}, {@code ObjectStoreCapabilityContractIT}).
 */
class S3AdapterIT {
  private static final String BUCKET = "quiver-contract";

  private static S3ProxyEmulator s3proxy;
  private static S3Client raw;
  private final S3ObjectStoreProvider provider = new S3ObjectStoreProvider();

  @BeforeAll
  static void startEmulator() {
    s3proxy = S3ProxyEmulator.start();
    s3proxy.createBucket(BUCKET);
    raw = s3proxy.newClient();
  }

  @AfterAll
  static void stopEmulator() {
    if (raw != null) {
      raw.close();
    }
    if (s3proxy != null) {
      s3proxy.close();
    }
  }

  private ObjectStore open(String prefix, Map<String, String> extra) {
    Map<String, String> options = new HashMap<>(s3proxy.storeOptions());
    options.putAll(extra);
    return provider.open(URI.create("s3://" + BUCKET + "/" + prefix), options);
  }

  @Test
  void openedByUriThroughServiceLoader() {
    try (ObjectStore s = ObjectStores.defaultRegistry().open("s3://" + BUCKET + "/by-uri/t", s3proxy.storeOptions())) {
      assertThat(s).isInstanceOf(S3ObjectStore.class);
      assertThat(s.location()).isEqualTo("s3://" + BUCKET + "/by-uri/t");
      s.write("k", new byte[] {1});
      assertThat(raw.listObjectsV2(r -> r.bucket(BUCKET).prefix("by-uri/")).contents().stream().map(o -> o.key()).toList()).isEqualTo(List.of("by-uri/t/k"));
    }
  }

  @Test
  void wrongSecretIsAccessDeniedAndNeverShown() {
    String wrong = "definitely-not-the-secret-" + System.nanoTime();
    try (ObjectStore s = open("denied", Map.of(S3StoreOptions.SECRET_ACCESS_KEY, wrong))) {
      List<ThrowingCallable> calls = List.of(
          () -> s.read("k"),
          () -> s.readRange("k", 0, 10),
          () -> s.head("k"),
          () -> s.write("k", new byte[] {1}),
          () -> s.putIfAbsent("k", new byte[] {1}),
          () -> s.list("", Optional.empty(), 10),
          () -> s.delete("k"));
      for (ThrowingCallable call : calls) {
        StoreAccessDeniedException e = assertThatExceptionOfType(StoreAccessDeniedException.class).isThrownBy(call).actual();
        assertThat(e.isTransient()).isFalse();
        assertThat(e.getMessage().contains(s.location())).as(e.getMessage()).isTrue();
        assertNoSecret(e, wrong);
        assertNoSecret(e, s3proxy.secretAccessKey());
      }
      assertThat(s.deleteAll(List.of("k"))).as("deleteAll reports the keys it could not delete").isEqualTo(List.of("k"));
      assertThat(s.toString().contains(wrong)).as(s.toString()).isFalse();
    }
  }

  @Test
  void unknownAccessKeyIsAccessDenied() {
    try (ObjectStore s = open("denied", Map.of(S3StoreOptions.ACCESS_KEY_ID, "nobody"))) {
      assertThatExceptionOfType(StoreAccessDeniedException.class).isThrownBy(() -> s.read("k"));
    }
  }

  @Test
  void credentialsNeverAppearInToStringOrMessages() {
    String secret = s3proxy.secretAccessKey();
    String id = s3proxy.accessKeyId();
    String token = "session-token-" + System.nanoTime();
    try (ObjectStore s = open("secrets", Map.of())) {
      assertThat(s.toString().contains(secret)).as(s.toString()).isFalse();
      assertThat(s.toString().contains(id)).as(s.toString()).isFalse();
      assertNoSecret(assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> s.read("missing")).actual(), secret);
    }
    try (ObjectStore s = open("secrets", Map.of(S3StoreOptions.SESSION_TOKEN, token))) {
      assertThat(s.toString().contains(token)).as(s.toString()).isFalse();
      // S3Proxy does not know session tokens; whatever it says, the token and secret stay out of it.
      RuntimeException e = assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> s.read("missing")).actual();
      assertNoSecret(e, token);
      assertNoSecret(e, secret);
    }
    Map<String, String> options = new HashMap<>(s3proxy.storeOptions());
    options.put(S3StoreOptions.ENDPOINT, "http://127.0.0.1:1");
    options.put(S3StoreOptions.MAX_RETRIES, "0");
    try (ObjectStore s = provider.open(URI.create("s3://" + BUCKET + "/unreachable"), options)) {
      StoreException e = assertThatExceptionOfType(StoreException.class).isThrownBy(() -> s.read("k")).actual();
      assertThat(e.isTransient()).as("a refused connection never reached S3: " + e.getMessage()).isTrue();
      assertNoSecret(e, secret);
      StoreException p = assertThatExceptionOfType(StoreException.class).isThrownBy(() -> s.putIfAbsent("k", new byte[1])).actual();
      assertThat(p.isTransient()).as("a conditional put that never connected did nothing: " + p.getMessage()).isTrue();
      assertNoSecret(p, secret);
    }
  }

  @Test
  void missingBucketIsAStoreErrorNamingTheBucket() {
    try (ObjectStore s = provider.open(URI.create("s3://no-such-bucket-here/t"), s3proxy.storeOptions())) {
      StoreException e = assertThatExceptionOfType(StoreException.class).isThrownBy(() -> s.read("k")).actual();
      assertThat(e.getMessage().contains("bucket does not exist")).as(e.getMessage()).isTrue();
      assertThat(s.head("k")).isEqualTo(Optional.empty());
      assertThatExceptionOfType(StoreException.class).isThrownBy(() -> s.list("", Optional.empty(), 10));
    }
  }

  /** The secret appears nowhere in the exception, its causes or its stack trace text. */
  private static void assertNoSecret(Throwable e, String secret) {
    StringWriter text = new StringWriter();
    e.printStackTrace(new PrintWriter(text));
    assertThat(text.toString().contains(secret)).as("secret leaked in: " + text).isFalse();
  }
}
