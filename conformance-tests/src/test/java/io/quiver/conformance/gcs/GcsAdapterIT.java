package io.quiver.conformance.gcs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.sun.net.httpserver.HttpServer;
import io.quiver.conformance.emulator.EmulatorProcess;
import io.quiver.conformance.emulator.FakeGcsEmulator;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.StoreAccessDeniedException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.ObjectStore.ObjectWriter;
import io.quiver.store.ObjectStore.PutResult;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.gcs.GcsObjectStore;
import io.quiver.store.gcs.GcsObjectStoreProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * What only GCS can get wrong, on fake-gcs-server (one emulator for the class, a fresh prefix per test):
 * the upload token of conditional creates, credentials in messages, and error mapping. The store contract,
 * the resumable-upload path included, runs on the GCS fixture in the matrix ({@code ObjectStoreContractIT},
 * {@code ObjectStoreCapabilityContractIT}).
 */
class GcsAdapterIT {
  private static final String BUCKET = "quiver-contract";
  private static final String SECRET = "ya29.quiver-test-SECRET-token-0123456789";
  private static FakeGcsEmulator emulator;

  @BeforeAll
  static void startEmulator() {
    emulator = FakeGcsEmulator.start();
    emulator.createBucket(BUCKET);
  }

  @AfterAll
  static void stopEmulator() {
    if (emulator != null) {
      emulator.close();
    }
  }

  private ObjectStore store;

  @BeforeEach
  void openStore(TestInfo info) {
    String name = info.getTestMethod().map(m -> m.getName()).orElse("test") + "-"
        + Long.toHexString(new Random().nextLong() & Long.MAX_VALUE);
    // Through the registry, as Quiver opens tables.
    store = ObjectStores.defaultRegistry().open("gs://" + BUCKET + "/" + name, emulator.storeOptions());
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  private static ObjectStore open(String uri, Map<String, String> extra) {
    Map<String, String> options = new HashMap<>(emulator.storeOptions());
    options.putAll(extra);
    return new GcsObjectStoreProvider().open(URI.create(uri), options);
  }

  @Test
  void openedThroughTheRegistryAsAGcsStore() {
    assertThat(store).as(store.getClass().getName()).isInstanceOf(GcsObjectStore.class);
    assertThat(store.location().startsWith("gs://" + BUCKET + "/")).as(store.location()).isTrue();
    assertThat(store.location().endsWith("/")).isFalse();
  }

  @Test
  void putIfAbsentRecordsItsUploadToken() {
    // The token lets a retried putIfAbsent recognise its own earlier (unacknowledged) create.
    assertThat(store.putIfAbsent("claimed", "x".getBytes(UTF_8))).isEqualTo(PutResult.CREATED);
    assertThat(store.putIfAbsent("claimed", "y".getBytes(UTF_8))).isEqualTo(PutResult.ALREADY_EXISTS);
    assertThat(store.read("claimed")).containsExactly("x".getBytes(UTF_8));
  }

  /**
   * A lost acknowledgement: a proxy forwards the conditional upload to the emulator (which creates the
   * object) and answers 503. The retry then sees 412, and the adapter must recognise its own object by its
   * upload token: CREATED, not a false ALREADY_EXISTS that would make the committer rebase onto itself.
   */
  @Test
  void putIfAbsentRecognisesItsOwnCreateAfterALostAnswer() throws Exception {
    try (FaultProxy proxy = new FaultProxy(emulator.endpoint())) {
      Map<String, String> options = new HashMap<>(emulator.storeOptions());
      options.put("gcs.endpoint", proxy.endpoint());
      String uri = store.location();
      try (ObjectStore s = new GcsObjectStoreProvider().open(URI.create(uri), options)) {
        proxy.failNextConditionalUpload(true);
        assertThat(s.putIfAbsent("lost-ack", "mine".getBytes(UTF_8))).isEqualTo(PutResult.CREATED);
        assertThat(proxy.pendingFaults()).as("the fault fired").isEqualTo(0);
        assertThat(store.read("lost-ack")).containsExactly("mine".getBytes(UTF_8));

        // A 429 after GCS created the object is doubt too, never a lost race.
        proxy.failNextConditionalUpload(true, 429);
        assertThat(s.putIfAbsent("throttled-ack", "mine".getBytes(UTF_8))).isEqualTo(PutResult.CREATED);
        assertThat(proxy.pendingFaults()).as("the fault fired").isEqualTo(0);
        assertThat(store.read("throttled-ack")).containsExactly("mine".getBytes(UTF_8));

        // Refused before forwarding: the retry creates it.
        proxy.failNextConditionalUpload(false);
        assertThat(s.putIfAbsent("refused", "r".getBytes(UTF_8))).isEqualTo(PutResult.CREATED);
        assertThat(proxy.pendingFaults()).isEqualTo(0);

        // A rival's object after an ambiguous attempt is still ALREADY_EXISTS.
        store.write("rival", "theirs".getBytes(UTF_8));
        proxy.failNextConditionalUpload(false);
        assertThat(s.putIfAbsent("rival", "mine".getBytes(UTF_8))).isEqualTo(PutResult.ALREADY_EXISTS);
        assertThat(store.read("rival")).containsExactly("theirs".getBytes(UTF_8));
      }
      options.put("gcs.max-attempts", "1");
      try (ObjectStore s = new GcsObjectStoreProvider().open(URI.create(uri), options)) {
        proxy.failNextConditionalUpload(true);
        StoreException e = assertThatExceptionOfType(StoreException.class).isThrownBy(() -> s.putIfAbsent("unknown", new byte[1])).actual();
        assertThat(e.isTransient()).as("the object may exist: the outcome is unknown, " + e.getMessage()).isFalse();
        assertThat(e.getMessage().contains("outcome is unknown")).as(e.getMessage()).isTrue();
        assertThat(store.head("unknown").isPresent()).as("it was in fact created").isTrue();
      }
    }
  }

  /** HTTP proxy to the emulator that can turn the answer of the next ifGenerationMatch=0 upload into an error. */
  private static final class FaultProxy implements AutoCloseable {
    private static final Set<String> HOP_HEADERS =
        Set.of("connection", "content-length", "expect", "host", "upgrade", "transfer-encoding", "keep-alive");
    private final HttpServer server;
    private final java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
    private final java.util.concurrent.atomic.AtomicReference<Boolean> fault = new java.util.concurrent.atomic.AtomicReference<>();
    private volatile int status = 503;

    FaultProxy(String target) throws IOException {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.createContext("/", exchange -> {
        try {
          byte[] body = exchange.getRequestBody().readAllBytes();
          String query = exchange.getRequestURI().getRawQuery();
          boolean conditional = query != null && query.contains("ifGenerationMatch=0");
          Boolean forwardFirst = conditional ? fault.getAndSet(null) : null;
          if (Boolean.FALSE.equals(forwardFirst)) {
            reply(exchange, 503, new byte[0], Map.of());
            return;
          }
          java.net.http.HttpRequest.Builder request = java.net.http.HttpRequest.newBuilder(
                  URI.create(target + exchange.getRequestURI().getRawPath() + (query == null ? "" : "?" + query)))
              .method(exchange.getRequestMethod(), java.net.http.HttpRequest.BodyPublishers.ofByteArray(body));
          exchange.getRequestHeaders().forEach((name, values) -> {
            if (!HOP_HEADERS.contains(name.toLowerCase(java.util.Locale.ROOT))) {
              values.forEach(v -> request.header(name, v));
            }
          });
          java.net.http.HttpResponse<byte[]> response =
              client.send(request.build(), java.net.http.HttpResponse.BodyHandlers.ofByteArray());
          if (Boolean.TRUE.equals(forwardFirst)) {
            reply(exchange, status, new byte[0], Map.of()); // the object exists; the client never hears so
            return;
          }
          reply(exchange, response.statusCode(), response.body(), response.headers().map());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          reply(exchange, 500, new byte[0], Map.of());
        }
      });
      server.start();
    }

    private static void reply(com.sun.net.httpserver.HttpExchange exchange, int status, byte[] body,
        Map<String, List<String>> headers) throws IOException {
      headers.forEach((name, values) -> {
        if (!HOP_HEADERS.contains(name.toLowerCase(java.util.Locale.ROOT)) && !name.startsWith(":")) {
          exchange.getResponseHeaders().put(name, values);
        }
      });
      exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }

    /** @param forward true: the request reaches the emulator first; false: refused without forwarding */
    void failNextConditionalUpload(boolean forward) {
      failNextConditionalUpload(forward, 503);
    }

    /** As {@link #failNextConditionalUpload(boolean)}, answering {@code httpStatus} after forwarding. */
    void failNextConditionalUpload(boolean forward, int httpStatus) {
      status = httpStatus;
      fault.set(forward);
    }

    int pendingFaults() {
      return fault.get() == null ? 0 : 1;
    }

    String endpoint() {
      return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  @Test
  void secretsNeverAppearInToStringOrMessages() {
    try (ObjectStore s = open(store.location(), Map.of("gcs.no-auth", "", "gcs.oauth2-token", SECRET))) {
      assertThat(s.toString().contains(SECRET)).as(s.toString()).isFalse();
      assertThat(s.location().contains(SECRET)).isFalse();
      assertThat(((GcsObjectStore) s).options().toString().contains(SECRET)).isFalse();
      // The emulator ignores the token, so these calls work; their failures must not echo it either.
      s.write("a", new byte[1]);
      Exception missing = assertThatExceptionOfType(Exception.class).isThrownBy(() -> s.read("missing")).actual();
      assertThat(String.valueOf(missing.getMessage()).contains(SECRET)).isFalse();
    }
    // A dead endpoint: the connection error must not carry the token.
    int dead = EmulatorProcess.freePort();
    Map<String, String> options = Map.of(
        "gcs.endpoint", "http://127.0.0.1:" + dead, "gcs.project-id", "p", "gcs.oauth2-token", SECRET,
        "gcs.max-attempts", "1", "gcs.connect-timeout-ms", "2000");
    try (ObjectStore s = new GcsObjectStoreProvider().open(URI.create("gs://" + BUCKET + "/x"), options)) {
      StoreException e = assertThatExceptionOfType(StoreException.class).isThrownBy(() -> s.read("k")).actual();
      assertMessageClean(e);
      assertThat(e.isTransient()).as("a refused connection is transient: " + e.getMessage()).isTrue();
      StoreException put = assertThatExceptionOfType(StoreException.class).isThrownBy(() -> s.putIfAbsent("k", new byte[1])).actual();
      assertMessageClean(put);
      assertThat(put.isTransient()).as("nothing was sent, so the outcome is known: " + put.getMessage()).isTrue();
    }
  }

  private static void assertMessageClean(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      assertThat(String.valueOf(c.getMessage()).contains(SECRET)).as("secret in " + c).isFalse();
    }
  }

  /**
   * fake-gcs-server accepts any credentials, so the wrong-credential path runs against a local HTTP server
   * that checks the bearer token like GCS does (401 for a bad token, 403 for a good token without
   * permission), with the real SDK and adapter in between.
   */
  @Test
  void wrongCredentialsAreAccessDenied() throws Exception {
    Set<String> seenAuth = ConcurrentHashMap.newKeySet();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      String auth = String.valueOf(exchange.getRequestHeaders().getFirst("Authorization"));
      seenAuth.add(auth);
      exchange.getRequestBody().readAllBytes();
      boolean permitted = auth.equals("Bearer good-token-without-permission");
      int status = permitted ? 403 : 401;
      String reason = permitted ? "caller does not have storage.objects.get access" : "Invalid Credentials";
      byte[] body = ("{\"error\":{\"code\":" + status + ",\"message\":\"" + reason + "\",\"errors\":[{\"message\":\""
          + reason + "\",\"domain\":\"global\",\"reason\":\"" + (permitted ? "forbidden" : "authError") + "\"}]}}")
          .getBytes(UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json; charset=UTF-8");
      exchange.sendResponseHeaders(status, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    try {
      String endpoint = "http://127.0.0.1:" + server.getAddress().getPort();
      for (String token : List.of(SECRET, "good-token-without-permission")) {
        Map<String, String> options = Map.of("gcs.endpoint", endpoint, "gcs.project-id", "p", "gcs.oauth2-token", token);
        try (ObjectStore s = new GcsObjectStoreProvider().open(URI.create("gs://" + BUCKET + "/t"), options)) {
          List<ThrowingCallable> calls = List.of(
              () -> s.read("k"),
              () -> s.readRange("k", 0, 10),
              () -> s.head("k"),
              () -> s.write("k", new byte[3]),
              () -> s.putIfAbsent("k", new byte[3]),
              () -> s.list("", Optional.empty(), 10),
              () -> s.delete("k"),
              () -> {
                try (ObjectWriter w = s.openWriter("k")) {
                  w.write(new byte[5]);
                }
              });
          for (ThrowingCallable call : calls) {
            StoreAccessDeniedException e = assertThatExceptionOfType(StoreAccessDeniedException.class).isThrownBy(call).actual();
            assertThat(e.getMessage().contains("gs://" + BUCKET + "/t")).as(e.getMessage()).isTrue();
            assertThat(e.getMessage().contains("credentials")).as(e.getMessage()).isTrue();
            assertThat(e.isTransient()).isFalse();
            assertMessageClean(e);
          }
          assertThat(s.deleteAll(List.of("k"))).as("deleteAll reports the key it could not delete").isEqualTo(List.of("k"));
        }
      }
      assertThat(seenAuth.contains("Bearer " + SECRET)).as("the token was sent: " + seenAuth).isTrue();
    } finally {
      server.stop(0);
    }
  }

  @Test
  void missingBucketIsAStoreErrorNamingTheBucket() {
    try (ObjectStore s = open("gs://no-such-bucket-quiver/t", Map.of())) {
      StoreException e = assertThatExceptionOfType(StoreException.class).isThrownBy(() -> s.write("k", new byte[1])).actual();
      assertThat(e.getMessage().contains("no-such-bucket-quiver")).as(e.getMessage()).isTrue();
      assertThatExceptionOfType(StoreException.class).isThrownBy(() -> s.list("", Optional.empty(), 10));
    }
  }

  @Test
  void badUrisAndOptionsAreRefusedWithAMessage() {
    GcsObjectStoreProvider provider = new GcsObjectStoreProvider();
    for (String bad : List.of("gs:///path", "gs://UPPER/x", "gs://b/a/../c", "gs://bucket/x?y=1")) {
      assertThatExceptionOfType(InvalidArgumentException.class).as(bad).isThrownBy(() -> provider.open(URI.create(bad), emulator.storeOptions()));
    }
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> open("gs://b/x", Map.of("gcs.write-threshold-bytes", "lots")));
    assertThatExceptionOfType(InvalidArgumentException.class).as("no-auth and a token at once").isThrownBy(() -> open("gs://b/x", Map.of("gcs.oauth2-token", "t")));
    try (ObjectStore s = provider.open(URI.create("gs://" + BUCKET), emulator.storeOptions())) {
      assertThat(s.location()).isEqualTo("gs://" + BUCKET);
    }
  }
}
