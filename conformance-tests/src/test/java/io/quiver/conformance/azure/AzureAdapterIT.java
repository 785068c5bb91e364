package io.quiver.conformance.azure;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.HttpPipelineNextPolicy;
import com.azure.core.http.HttpPipelineNextSyncPolicy;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.policy.HttpPipelinePolicy;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.blob.sas.BlobContainerSasPermission;
import com.azure.storage.blob.sas.BlobServiceSasSignatureValues;
import io.quiver.conformance.emulator.AzuriteEmulator;
import io.quiver.conformance.emulator.EmulatorProcess;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.exceptions.StoreAccessDeniedException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore.PutResult;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.azure.AzureObjectStoreProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import reactor.core.publisher.Mono;

/**
 * What only the Azure adapter can get wrong, against Azurite (each test in a fresh prefix of one container,
 * opened by URI through ServiceLoader): resends of a conditional create, Azurite's own listing order, batch
 * deletes, URI forms, credentials and error mapping. The store contract, the staged-block path of large
 * writes and conditional creates included, runs on the Azure fixture in the matrix ({@code
 * ObjectStoreContractIT}, {@code ObjectStoreCapabilityContractIT}).
 */
class AzureAdapterIT {
  private static final String CONTAINER = "contract";
  private static final int KIB = 1024;
  private static final int MIB = 1024 * KIB;
  private static AzuriteEmulator azurite;
  private static BlobContainerClient container;
  private static final AtomicInteger CONTAINERS = new AtomicInteger();

  @BeforeAll
  static void startAzurite() {
    azurite = AzuriteEmulator.start();
    container = azurite.createContainer(CONTAINER);
  }

  @AfterAll
  static void stopAzurite() {
    if (azurite != null) {
      azurite.close();
    }
  }

  private ObjectStore store;

  @BeforeEach
  void openStore(TestInfo info) {
    String name = info.getTestMethod().map(m -> m.getName()).orElse("test") + "-"
        + Long.toHexString(new Random().nextLong() & Long.MAX_VALUE);
    store = ObjectStores.defaultRegistry().open("az://" + CONTAINER + "/" + name, azurite.options());
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  private static ObjectStore open(String uri, Map<String, String> extra) {
    Map<String, String> options = new HashMap<>(azurite.options());
    options.putAll(extra);
    return ObjectStores.defaultRegistry().open(uri, options);
  }

  /** A store on its own new container, rooted at the container (no prefix). */
  private static ObjectStore freshContainerStore(Map<String, String> extra) {
    String name = "fresh-" + CONTAINERS.incrementAndGet();
    azurite.createContainer(name);
    return open("az://" + name, extra);
  }

  /** Thresholds low enough that a few MiB go through staged blocks. */
  private static final Map<String, String> SMALL_BLOCKS =
      Map.of("azure.block-size-bytes", Integer.toString(MIB), "azure.max-single-upload-bytes", Integer.toString(2 * MIB));

  private String blobName(ObjectStore s, String key) {
    String root = s.location().substring(("az://" + CONTAINER).length()).replaceAll("^/", "");
    return root.isEmpty() ? key : root + "/" + key;
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static List<String> keys(ObjectStore s) {
    return s.listAll("").stream().map(ObjectInfo::key).toList();
  }

  // ---- a conditional create whose response is lost and that the SDK resends

  /**
   * Lets the first conditional Put of {@code key} reach the service, then reports a lost connection in
   * its place, so the SDK's retry policy resends it and gets "already exists" for our own blob.
   */
  private static final class LoseFirstConditionalResponse implements HttpPipelinePolicy {
    private final String blobPath;
    private final boolean busyInstead;
    private final AtomicBoolean lost = new AtomicBoolean();

    LoseFirstConditionalResponse(String blobPath) {
      this(blobPath, false);
    }

    /** @param busyInstead answer 503 ServerBusy in place of the served response, instead of a reset */
    LoseFirstConditionalResponse(String blobPath, boolean busyInstead) {
      this.blobPath = blobPath;
      this.busyInstead = busyInstead;
    }

    boolean fired() {
      return lost.get();
    }

    private boolean target(HttpPipelineCallContext context) {
      var request = context.getHttpRequest();
      return request.getHttpMethod().name().equals("PUT")
          && "*".equals(request.getHeaders().getValue("If-None-Match"))
          // The SDK sends '/' in blob names as %2F.
          && java.net.URLDecoder.decode(request.getUrl().getPath(), UTF_8).endsWith(blobPath)
          && lost.compareAndSet(false, true);
    }

    @Override
    public Mono<HttpResponse> process(HttpPipelineCallContext context, HttpPipelineNextPolicy next) {
      if (target(context)) {
        return next.process().flatMap(r -> {
          r.close();
          return busyInstead ? Mono.just(new ServerBusy(r.getRequest()))
              : Mono.error(new IOException("simulated connection reset after the request was served"));
        });
      }
      return next.process();
    }

    @Override
    public HttpResponse processSync(HttpPipelineCallContext context, HttpPipelineNextSyncPolicy next) {
      if (target(context)) {
        HttpResponse served = next.processSync();
        served.close();
        if (busyInstead) {
          return new ServerBusy(served.getRequest());
        }
        throw new UncheckedIOException(new IOException("simulated connection reset after the request was served"));
      }
      return next.processSync();
    }
  }

  /** The 503 a busy front end answers, in place of the service's answer to a request it served. */
  private static final class ServerBusy extends HttpResponse {
    private static final byte[] BODY = ("<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>ServerBusy</Code>"
        + "<Message>The server is busy.</Message></Error>").getBytes(UTF_8);
    private final com.azure.core.http.HttpHeaders headers = new com.azure.core.http.HttpHeaders()
        .set(com.azure.core.http.HttpHeaderName.CONTENT_TYPE, "application/xml")
        .set(com.azure.core.http.HttpHeaderName.fromString("x-ms-error-code"), "ServerBusy")
        .set(com.azure.core.http.HttpHeaderName.CONTENT_LENGTH, Integer.toString(BODY.length));

    ServerBusy(com.azure.core.http.HttpRequest request) {
      super(request);
    }

    @Override
    public int getStatusCode() {
      return 503;
    }

    @Override
    @Deprecated
    public String getHeaderValue(String name) {
      return headers.getValue(com.azure.core.http.HttpHeaderName.fromString(name));
    }

    @Override
    public com.azure.core.http.HttpHeaders getHeaders() {
      return headers;
    }

    @Override
    public reactor.core.publisher.Flux<java.nio.ByteBuffer> getBody() {
      return reactor.core.publisher.Flux.just(java.nio.ByteBuffer.wrap(BODY));
    }

    @Override
    public Mono<byte[]> getBodyAsByteArray() {
      return Mono.just(BODY.clone());
    }

    @Override
    public Mono<String> getBodyAsString() {
      return Mono.just(new String(BODY, UTF_8));
    }

    @Override
    public Mono<String> getBodyAsString(java.nio.charset.Charset charset) {
      return Mono.just(new String(BODY, charset));
    }
  }

  private LoseFirstConditionalResponse fault;

  private ObjectStore storeLosingFirstResponse(String key, Map<String, String> extra) {
    Map<String, String> options = new HashMap<>(azurite.options());
    options.put("azure.retry-delay-ms", "10");
    options.put("azure.max-retry-delay-ms", "50");
    options.putAll(extra);
    fault = new LoseFirstConditionalResponse("/" + blobName(store, key));
    return new AzureObjectStoreProvider().open(URI.create(store.location()), options, b -> b.addPolicy(fault));
  }

  @Test
  void resentPutIfAbsentRecognisesItsOwnCreation() {
    byte[] data = "mine".getBytes(UTF_8);
    try (ObjectStore s = storeLosingFirstResponse("lost/ours", Map.of())) {
      assertThat(s.putIfAbsent("lost/ours", data)).as("the resend's 409 is our own blob").isEqualTo(PutResult.CREATED);
      assertThat(fault.fired()).as("the first response was lost").isTrue();
    }
    assertThat(store.read("lost/ours")).containsExactly(data);
  }

  @Test
  void resentLargePutIfAbsentRecognisesItsOwnCreation() {
    byte[] data = random(3 * MIB, 20);
    try (ObjectStore s = storeLosingFirstResponse("lost/large", SMALL_BLOCKS)) {
      assertThat(s.putIfAbsent("lost/large", data)).isEqualTo(PutResult.CREATED);
      assertThat(fault.fired()).as("the first response was lost").isTrue();
    }
    assertThat(store.read("lost/large")).containsExactly(data);
  }

  @Test
  void putIfAbsentWithoutRetriesResolvesALostResponseByItsToken() {
    byte[] data = "mine".getBytes(UTF_8);
    try (ObjectStore s = storeLosingFirstResponse("lost/no-retry", Map.of("azure.max-retries", "0"))) {
      assertThat(s.putIfAbsent("lost/no-retry", data)).isEqualTo(PutResult.CREATED);
      assertThat(fault.fired()).as("the first response was lost").isTrue();
    }
    assertThat(store.read("lost/no-retry")).containsExactly(data);
  }

  /** A 503 ServerBusy after the service created the blob (no SDK retry): doubt, settled by the token. */
  @Test
  void aServerBusyAnswerAfterTheCreateIsSettledByItsToken() {
    byte[] data = "mine".getBytes(UTF_8);
    Map<String, String> options = new HashMap<>(azurite.options());
    options.put("azure.max-retries", "0");
    fault = new LoseFirstConditionalResponse("/" + blobName(store, "busy/ours"), true);
    try (ObjectStore s = new AzureObjectStoreProvider().open(URI.create(store.location()), options,
        b -> b.addPolicy(fault))) {
      assertThat(s.putIfAbsent("busy/ours", data)).as("the resend's 409 is our own blob").isEqualTo(PutResult.CREATED);
      assertThat(fault.fired()).as("the answer was replaced").isTrue();
    }
    assertThat(store.read("busy/ours")).containsExactly(data);
  }

  @Test
  void resentPutIfAbsentStillLosesToAnotherWriter() {
    store.write("lost/theirs", "theirs".getBytes(UTF_8));
    try (ObjectStore s = storeLosingFirstResponse("lost/theirs", Map.of())) {
      assertThat(s.putIfAbsent("lost/theirs", "mine".getBytes(UTF_8))).isEqualTo(PutResult.ALREADY_EXISTS);
      assertThat(fault.fired()).as("the first response was lost").isTrue();
    }
    assertThat(store.read("lost/theirs")).containsExactly("theirs".getBytes(UTF_8));
  }

  // ---- listing order

  /**
   * The service lists in UTF-16 order (Azurite compares JavaScript strings; Azure itself is documented by
   * users to do the same), where U+1F600 sorts before U+E000; the adapter must still page in UTF-8 order,
   * which {@code ObjectStoreCapabilityContract#nonAsciiKeysPageInUtf8OrderAtEveryPageSize} checks on the
   * Azure fixture. This shows that the service's order is the other one, so that check is not vacuous.
   */
  @Test
  void serviceListsInUtf16OrderWhichTheAdapterMustResort() {
    List<String> written = List.of("m/z", "m/\u00e9", "m/\ue000", "m/\ue000x", "m/\uD83D\uDE00", "m/\uD83D\uDE00a", "m/\ufffd", "m/a");
    for (String k : written) {
      store.write(k, k.getBytes(UTF_8));
    }
    String root = blobName(store, "");
    List<String> serviceOrder = new ArrayList<>();
    container.listBlobs(new ListBlobsOptions().setPrefix(root + "m/"), null)
        .forEach(b -> serviceOrder.add(b.getName().substring(root.length())));
    List<String> utf16 = new ArrayList<>(written);
    utf16.sort(String::compareTo);
    assertThat(serviceOrder).as("Azurite's own order").isEqualTo(utf16);

    List<String> utf8 = new ArrayList<>(written);
    utf8.sort(io.quiver.store.Keys.ORDER);
    assertThat(utf8).as("the two orders differ on these keys").isNotEqualTo(utf16);
    assertThat(keys(store).stream().filter(k -> k.startsWith("m/")).toList()).isEqualTo(utf8);
  }

  // ---- batch deletes

  /** Records the status of every Blob Batch request the SDK sends. */
  private static final class BatchWatch implements HttpPipelinePolicy {
    final List<Integer> statuses = java.util.Collections.synchronizedList(new ArrayList<>());

    private HttpResponse record(HttpResponse r) {
      String query = r.getRequest().getUrl().getQuery();
      if (query != null && query.contains("comp=batch")) {
        statuses.add(r.getStatusCode());
      }
      return r;
    }

    @Override
    public Mono<HttpResponse> process(HttpPipelineCallContext context, HttpPipelineNextPolicy next) {
      return next.process().map(this::record);
    }

    @Override
    public HttpResponse processSync(HttpPipelineCallContext context, HttpPipelineNextSyncPolicy next) {
      return record(next.processSync());
    }
  }

  @Test
  void deleteAllGoesThroughBlobBatchesOf256() throws Exception {
    BatchWatch watch = new BatchWatch();
    try (ObjectStore s = new AzureObjectStoreProvider().open(URI.create(store.location()), azurite.options(), b -> b.addPolicy(watch))) {
      List<String> present = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        present.add("batch/" + (i % 3) + "/k" + i);
      }
      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (String k : present) {
          done.add(pool.submit(() -> s.write(k, k.getBytes(UTF_8))));
        }
        for (Future<?> f : done) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      s.write("keep", new byte[1]);
      List<String> doomed = new ArrayList<>(present);
      doomed.add(100, "batch/missing-1");
      doomed.add("batch/missing-2");
      assertThat(s.deleteAll(doomed)).isEqualTo(List.of());
      assertThat(keys(s)).isEqualTo(List.of("keep"));
      assertThat(watch.statuses).as("two batches (256 + 46), none refused").isEqualTo(List.of(202, 202));
    }
  }

  // ---- URIs, credentials and errors

  @Test
  void containerRootAndAbfssUrisServeTheSameBlobs() {
    try (ObjectStore root = freshContainerStore(Map.of())) {
      String name = root.location().substring("az://".length());
      root.write("a/b", "x".getBytes(UTF_8));
      assertThat(keys(root)).isEqualTo(List.of("a/b"));
      try (ObjectStore abfss = open("abfss://" + name + "@" + AzuriteEmulator.ACCOUNT + ".dfs.core.windows.net/a", Map.of())) {
        assertThat(abfss.location()).isEqualTo("abfss://" + name + "@" + AzuriteEmulator.ACCOUNT + ".dfs.core.windows.net/a");
        assertThat(abfss.read("b")).containsExactly("x".getBytes(UTF_8));
        assertThat(keys(abfss)).isEqualTo(List.of("b"));
      }
    }
  }

  @Test
  void connectionStringAndSasTokenWork() {
    String blobContainer = "sas-" + CONTAINERS.incrementAndGet();
    BlobContainerClient c = azurite.createContainer(blobContainer);
    Map<String, String> byConnectionString = Map.of("azure.connection-string", azurite.connectionString());
    try (ObjectStore s = ObjectStores.defaultRegistry().open("az://" + blobContainer + "/p", byConnectionString)) {
      s.write("k", "v".getBytes(UTF_8));
      assertThat(s.toString().contains(blobContainer)).isTrue();
      assertThat(s.toString().contains(AzuriteEmulator.KEY)).isFalse();
    }
    String sas = c.generateSas(new BlobServiceSasSignatureValues(
        OffsetDateTime.now().plusHours(1), BlobContainerSasPermission.parse("racwdl")));
    Map<String, String> bySas = Map.of("azure.endpoint", azurite.endpoint(), "azure.sas-token", sas);
    try (ObjectStore s = ObjectStores.defaultRegistry().open("az://" + blobContainer + "/p", bySas)) {
      assertThat(s.read("k")).containsExactly("v".getBytes(UTF_8));
      assertThat(s.putIfAbsent("new", new byte[1])).isEqualTo(PutResult.CREATED);
      assertThat(keys(s)).isEqualTo(List.of("k", "new"));
      assertThat(s.toString().contains(sas)).isFalse();
      ObjectNotFoundException missing = assertThatExceptionOfType(ObjectNotFoundException.class).isThrownBy(() -> s.read("missing")).actual();
      assertNoSecret(missing, sas);
    }
    String readOnly = c.generateSas(new BlobServiceSasSignatureValues(
        OffsetDateTime.now().plusHours(1), BlobContainerSasPermission.parse("rl")));
    try (ObjectStore s = ObjectStores.defaultRegistry().open(
        "az://" + blobContainer + "/p", Map.of("azure.endpoint", azurite.endpoint(), "azure.sas-token", readOnly))) {
      assertThat(s.read("k")).containsExactly("v".getBytes(UTF_8));
      StoreAccessDeniedException denied = assertThatExceptionOfType(StoreAccessDeniedException.class).isThrownBy(() -> s.write("k", new byte[1])).actual();
      assertNoSecret(denied, readOnly);
      StoreAccessDeniedException deniedCreate = assertThatExceptionOfType(StoreAccessDeniedException.class).isThrownBy(() -> s.putIfAbsent("other", new byte[1])).actual();
      assertNoSecret(deniedCreate, readOnly);
    }
  }

  @Test
  void wrongKeyIsAccessDeniedAndNoMessageShowsAKey() {
    String wrongKey = java.util.Base64.getEncoder().encodeToString(random(64, 21));
    Map<String, String> options = Map.of(
        "azure.endpoint", azurite.endpoint(), "azure.account-name", AzuriteEmulator.ACCOUNT, "azure.account-key", wrongKey);
    try (ObjectStore s = ObjectStores.defaultRegistry().open(store.location(), options)) {
      assertThat(s.toString().contains(wrongKey)).isFalse();
      List<Runnable> calls = List.of(
          () -> s.read("k"), () -> s.readRange("k", 0, 10), () -> s.head("k"), () -> s.write("k", new byte[1]),
          () -> s.putIfAbsent("k", new byte[1]), () -> s.list("", Optional.empty(), 10), () -> s.delete("k"));
      for (Runnable call : calls) {
        StoreAccessDeniedException e = assertThatExceptionOfType(StoreAccessDeniedException.class).isThrownBy(call::run).actual();
        assertThat(e.getMessage().contains(store.location())).as(e.getMessage()).isTrue();
        assertNoSecret(e, wrongKey);
        assertNoSecret(e, AzuriteEmulator.KEY);
      }
      assertThat(s.deleteAll(List.of("k"))).as("a denied delete is reported as failed").isEqualTo(List.of("k"));
    }
  }

  @Test
  void openingWithoutCredentialsSaysWhatToSet() {
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ObjectStores.defaultRegistry().open("az://c/p", Map.of("azure.endpoint", azurite.endpoint()))).actual();
    assertThat(e.getMessage().contains("azure.account-key")).as(e.getMessage()).isTrue();
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ObjectStores.defaultRegistry().open("az://c/p", Map.of()));
  }

  private static void assertNoSecret(Throwable e, String secret) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      assertThat(String.valueOf(t.getMessage()).contains(secret)).as("secret in the message of " + t).isFalse();
      assertThat(t.toString().contains(secret)).as("secret in " + t).isFalse();
      for (Throwable s : t.getSuppressed()) {
        assertNoSecret(s, secret);
      }
    }
  }

  @Test
  void missingContainerIsAClearStoreError() {
    try (ObjectStore s = open("az://no-such-container/p", Map.of())) {
      StoreException e = assertThatExceptionOfType(StoreException.class).isThrownBy(() -> s.write("k", new byte[1])).actual();
      assertThat(e.getMessage().contains("does not exist")).as(e.getMessage()).isTrue();
      assertThatExceptionOfType(StoreException.class).isThrownBy(() -> s.putIfAbsent("k", new byte[1]));
      assertThatExceptionOfType(ObjectNotFoundException.class).isThrownBy(() -> s.read("k"));
      assertThat(s.head("k")).isEqualTo(Optional.empty());
      s.delete("k");
    }
  }

  @Test
  void unreachableEndpointIsATransientStoreError() {
    Map<String, String> options = Map.of(
        "azure.endpoint", "http://127.0.0.1:" + EmulatorProcess.freePort() + "/" + AzuriteEmulator.ACCOUNT,
        "azure.account-name", AzuriteEmulator.ACCOUNT, "azure.account-key", AzuriteEmulator.KEY,
        "azure.max-retries", "0", "azure.connect-timeout-ms", "2000");
    try (ObjectStore s = ObjectStores.defaultRegistry().open("az://c/p", options)) {
      StoreException read = assertThatExceptionOfType(StoreException.class).isThrownBy(() -> s.read("k")).actual();
      assertThat(read.isTransient()).as(read.getMessage()).isTrue();
      StoreException write = assertThatExceptionOfType(StoreException.class).isThrownBy(() -> s.write("k", new byte[1])).actual();
      assertThat(write.isTransient()).as("the connection never opened: " + write.getMessage()).isTrue();
      assertThatThrownBy(() -> s.putIfAbsent("k", new byte[1])).isInstanceOf(StoreException.class);
    }
  }
}
