package io.quiver.store.s3;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.store.ObjectStore.PutResult;
import io.quiver.store.support.ConditionalPut;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A conditional put whose answer is lost is settled by the token in the object's metadata, with the real
 * SDK against a local HTTP server that answers like S3 (S3Proxy cannot lose an answer on purpose): a 500
 * after the object was created is our creation ({@code CREATED}, not a false {@code ALREADY_EXISTS}), a
 * rival's object stays {@code ALREADY_EXISTS}, and doubt that cannot be settled is a {@link
 * CommitStateUnknownException}.
 */
class S3PutIfAbsentSettlesTest {
  /** What the server does with the next conditional PUT. */
  private enum Fault { NONE, CREATE_THEN_500, CREATE_THEN_SLOW_DOWN, CREATE_THEN_429, REFUSE_500 }

  private record Stored(byte[] body, String token) {}

  private HttpServer server;
  private final Map<String, Stored> objects = new ConcurrentHashMap<>();
  private final Deque<Fault> faults = new ArrayDeque<>();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private volatile boolean headFails;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    String method = exchange.getRequestMethod();
    byte[] body = exchange.getRequestBody().readAllBytes();
    requests.add(method + " " + path);
    if (method.equals("PUT")) {
      String token = exchange.getRequestHeaders().getFirst("x-amz-meta-" + ConditionalPut.TOKEN_METADATA_KEY);
      boolean conditional = "*".equals(exchange.getRequestHeaders().getFirst("If-None-Match"));
      Fault fault;
      synchronized (faults) {
        fault = conditional && !faults.isEmpty() ? faults.removeFirst() : Fault.NONE;
      }
      if (fault == Fault.REFUSE_500) {
        error(exchange, 500, "InternalError");
        return;
      }
      if (conditional && objects.containsKey(path)) {
        error(exchange, 412, "PreconditionFailed");
        return;
      }
      objects.put(path, new Stored(body, token));
      if (fault == Fault.CREATE_THEN_500) {
        error(exchange, 500, "InternalError"); // created; the client never hears so
        return;
      }
      if (fault == Fault.CREATE_THEN_SLOW_DOWN || fault == Fault.CREATE_THEN_429) {
        // created; a throttling front end answers in its place
        error(exchange, fault == Fault.CREATE_THEN_429 ? 429 : 503, fault == Fault.CREATE_THEN_429
            ? "TooManyRequests" : "SlowDown");
        return;
      }
      exchange.getResponseHeaders().add("ETag", "\"etag\"");
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
      return;
    }
    if (method.equals("HEAD")) {
      Stored o = objects.get(path);
      if (headFails) {
        exchange.sendResponseHeaders(500, -1);
      } else if (o == null) {
        exchange.sendResponseHeaders(404, -1);
      } else {
        if (o.token() != null) {
          exchange.getResponseHeaders().add("x-amz-meta-" + ConditionalPut.TOKEN_METADATA_KEY, o.token());
        }
        exchange.getResponseHeaders().add("ETag", "\"etag\"");
        exchange.getResponseHeaders().add("Last-Modified", "Wed, 01 Jan 2025 00:00:00 GMT");
        exchange.getResponseHeaders().add("Content-Length", Integer.toString(o.body().length));
        exchange.sendResponseHeaders(200, -1);
      }
      exchange.close();
      return;
    }
    error(exchange, 400, "NotImplemented");
  }

  private static void error(HttpExchange exchange, int status, String code) throws IOException {
    byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>stub " + code
        + "</Message><RequestId>stub-1</RequestId></Error>").getBytes(UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/xml");
    exchange.sendResponseHeaders(status, xml.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(xml);
    }
  }

  private S3ObjectStore open() {
    Map<String, String> options = Map.of(
        "s3.endpoint", "http://127.0.0.1:" + server.getAddress().getPort(),
        "s3.path-style-access", "true",
        "s3.region", "us-east-1",
        "s3.access-key-id", "AKIDEXAMPLE",
        "s3.secret-access-key", "secret",
        "s3.checksum-calculation", "when_required",
        "s3.max-retries", "2");
    return (S3ObjectStore) new S3ObjectStoreProvider().open(URI.create("s3://bucket/t"), options);
  }

  private void fault(Fault... next) {
    synchronized (faults) {
      faults.addAll(List.of(next));
    }
  }

  @Test
  void aLostAnswerToOurCreateIsCreated() {
    try (S3ObjectStore s = open()) {
      fault(Fault.CREATE_THEN_500);
      assertThat(s.putIfAbsent("_versions/1", "mine".getBytes(UTF_8))).isEqualTo(PutResult.CREATED);
      assertThat(requests).as("the resend answers 412, and the token says whose object it is").isEqualTo(List.of("PUT /bucket/t/_versions/1", "PUT /bucket/t/_versions/1", "HEAD /bucket/t/_versions/1"));
      assertThat(objects.get("/bucket/t/_versions/1").token()).isNotBlank();
    }
  }

  @Test
  void aThrottlingAnswerToOurCreateIsDoubtSettledByTheToken() {
    for (Fault throttled : List.of(Fault.CREATE_THEN_SLOW_DOWN, Fault.CREATE_THEN_429)) {
      requests.clear();
      try (S3ObjectStore s = open()) {
        fault(throttled);
        String key = "_versions/" + throttled.ordinal();
        assertThat(s.putIfAbsent(key, "mine".getBytes(UTF_8))).as(throttled.name()).isEqualTo(PutResult.CREATED);
        assertThat(requests).as("%s: resent, 412, read back", throttled).containsExactly("PUT /bucket/t/" + key,
            "PUT /bucket/t/" + key, "HEAD /bucket/t/" + key);
      }
    }
  }

  @Test
  void aRivalsObjectAfterAnAmbiguousAnswerIsAlreadyExists() {
    try (S3ObjectStore s = open()) {
      objects.put("/bucket/t/k", new Stored("theirs".getBytes(UTF_8), null));
      fault(Fault.REFUSE_500);
      assertThat(s.putIfAbsent("k", "mine".getBytes(UTF_8))).isEqualTo(PutResult.ALREADY_EXISTS);
      assertThat(new String(objects.get("/bucket/t/k").body(), UTF_8)).isEqualTo("theirs");
    }
  }

  @Test
  void nothingCreatedIsSentAgainAndAPlainLossIsAnsweredAtOnce() {
    try (S3ObjectStore s = open()) {
      fault(Fault.REFUSE_500);
      assertThat(s.putIfAbsent("k", "mine".getBytes(UTF_8))).isEqualTo(PutResult.CREATED);
      assertThat(requests).isEqualTo(List.of("PUT /bucket/t/k", "PUT /bucket/t/k"));
      requests.clear();
      assertThat(s.putIfAbsent("k", "again".getBytes(UTF_8))).isEqualTo(PutResult.ALREADY_EXISTS);
      assertThat(requests).as("a 412 without doubt needs no read-back").isEqualTo(List.of("PUT /bucket/t/k"));
    }
  }

  @Test
  void doubtThatCannotBeSettledIsAnUnknownOutcome() {
    try (S3ObjectStore s = open()) {
      fault(Fault.REFUSE_500, Fault.REFUSE_500, Fault.REFUSE_500);
      CommitStateUnknownException e =
          assertThatExceptionOfType(CommitStateUnknownException.class).isThrownBy(() -> s.putIfAbsent("k", "mine".getBytes(UTF_8))).actual();
      assertThat(e.location()).isEqualTo("s3://bucket/t");
      assertThat(e.key()).contains("k");
      assertThat(e.isTransient()).isFalse();
      assertThat(e.getMessage()).contains("s3://bucket/t/k").contains("outcome is unknown").contains("3 attempts")
          .contains("InternalError").doesNotContain("secret");
    }
  }

  @Test
  void aFailedReadBackLeavesTheDoubt() {
    try (S3ObjectStore s = open()) {
      headFails = true;
      fault(Fault.CREATE_THEN_500);
      CommitStateUnknownException e =
          assertThatExceptionOfType(CommitStateUnknownException.class).isThrownBy(() -> s.putIfAbsent("k", "mine".getBytes(UTF_8))).actual();
      assertThat(e.getMessage()).contains("reading the object's token back failed");
      assertThat(objects).containsKey("/bucket/t/k");
    }
  }
}
