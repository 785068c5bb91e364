package io.quiver.conformance.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
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
      assertInstanceOf(S3ObjectStore.class, s);
      assertEquals("s3://" + BUCKET + "/by-uri/t", s.location());
      s.write("k", new byte[] {1});
      assertEquals(List.of("by-uri/t/k"),
          raw.listObjectsV2(r -> r.bucket(BUCKET).prefix("by-uri/")).contents().stream().map(o -> o.key()).toList());
    }
  }

  @Test
  void wrongSecretIsAccessDeniedAndNeverShown() {
    String wrong = "definitely-not-the-secret-" + System.nanoTime();
    try (ObjectStore s = open("denied", Map.of(S3StoreOptions.SECRET_ACCESS_KEY, wrong))) {
      List<Executable> calls = List.of(
          () -> s.read("k"),
          () -> s.readRange("k", 0, 10),
          () -> s.head("k"),
          () -> s.write("k", new byte[] {1}),
          () -> s.putIfAbsent("k", new byte[] {1}),
          () -> s.list("", Optional.empty(), 10),
          () -> s.delete("k"));
      for (Executable call : calls) {
        StoreAccessDeniedException e = assertThrows(StoreAccessDeniedException.class, call);
        assertFalse(e.isTransient());
        assertTrue(e.getMessage().contains(s.location()), e.getMessage());
        assertNoSecret(e, wrong);
        assertNoSecret(e, s3proxy.secretAccessKey());
      }
      assertEquals(List.of("k"), s.deleteAll(List.of("k")), "deleteAll reports the keys it could not delete");
      assertFalse(s.toString().contains(wrong), s.toString());
    }
  }

  @Test
  void unknownAccessKeyIsAccessDenied() {
    try (ObjectStore s = open("denied", Map.of(S3StoreOptions.ACCESS_KEY_ID, "nobody"))) {
      assertThrows(StoreAccessDeniedException.class, () -> s.read("k"));
    }
  }

  @Test
  void credentialsNeverAppearInToStringOrMessages() {
    String secret = s3proxy.secretAccessKey();
    String id = s3proxy.accessKeyId();
    String token = "session-token-" + System.nanoTime();
    try (ObjectStore s = open("secrets", Map.of())) {
      assertFalse(s.toString().contains(secret), s.toString());
      assertFalse(s.toString().contains(id), s.toString());
      assertNoSecret(assertThrows(RuntimeException.class, () -> s.read("missing")), secret);
    }
    try (ObjectStore s = open("secrets", Map.of(S3StoreOptions.SESSION_TOKEN, token))) {
      assertFalse(s.toString().contains(token), s.toString());
      // S3Proxy does not know session tokens; whatever it says, the token and secret stay out of it.
      RuntimeException e = assertThrows(RuntimeException.class, () -> s.read("missing"));
      assertNoSecret(e, token);
      assertNoSecret(e, secret);
    }
    Map<String, String> options = new HashMap<>(s3proxy.storeOptions());
    options.put(S3StoreOptions.ENDPOINT, "http://127.0.0.1:1");
    options.put(S3StoreOptions.MAX_RETRIES, "0");
    try (ObjectStore s = provider.open(URI.create("s3://" + BUCKET + "/unreachable"), options)) {
      StoreException e = assertThrows(StoreException.class, () -> s.read("k"));
      assertTrue(e.isTransient(), "a refused connection never reached S3: " + e.getMessage());
      assertNoSecret(e, secret);
      StoreException p = assertThrows(StoreException.class, () -> s.putIfAbsent("k", new byte[1]));
      assertTrue(p.isTransient(), "a conditional put that never connected did nothing: " + p.getMessage());
      assertNoSecret(p, secret);
    }
  }

  @Test
  void missingBucketIsAStoreErrorNamingTheBucket() {
    try (ObjectStore s = provider.open(URI.create("s3://no-such-bucket-here/t"), s3proxy.storeOptions())) {
      StoreException e = assertThrows(StoreException.class, () -> s.read("k"));
      assertTrue(e.getMessage().contains("bucket does not exist"), e.getMessage());
      assertEquals(Optional.empty(), s.head("k"));
      assertThrows(StoreException.class, () -> s.list("", Optional.empty(), 10));
    }
  }

  /** The secret appears nowhere in the exception, its causes or its stack trace text. */
  private static void assertNoSecret(Throwable e, String secret) {
    StringWriter text = new StringWriter();
    e.printStackTrace(new PrintWriter(text));
    assertFalse(text.toString().contains(secret), "secret leaked in: " + text);
  }
}
