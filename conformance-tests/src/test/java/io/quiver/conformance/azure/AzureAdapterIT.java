package io.quiver.conformance.azure;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    private final AtomicBoolean lost = new AtomicBoolean();

    LoseFirstConditionalResponse(String blobPath) {
      this.blobPath = blobPath;
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
          return Mono.error(new IOException("simulated connection reset after the request was served"));
        });
      }
      return next.process();
    }

    @Override
    public HttpResponse processSync(HttpPipelineCallContext context, HttpPipelineNextSyncPolicy next) {
      if (target(context)) {
        next.processSync().close();
        throw new UncheckedIOException(new IOException("simulated connection reset after the request was served"));
      }
      return next.processSync();
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
      assertEquals(PutResult.CREATED, s.putIfAbsent("lost/ours", data), "the resend's 409 is our own blob");
      assertTrue(fault.fired(), "the first response was lost");
    }
    assertArrayEquals(data, store.read("lost/ours"));
  }

  @Test
  void resentLargePutIfAbsentRecognisesItsOwnCreation() {
    byte[] data = random(3 * MIB, 20);
    try (ObjectStore s = storeLosingFirstResponse("lost/large", SMALL_BLOCKS)) {
      assertEquals(PutResult.CREATED, s.putIfAbsent("lost/large", data));
      assertTrue(fault.fired(), "the first response was lost");
    }
    assertArrayEquals(data, store.read("lost/large"));
  }

  @Test
  void putIfAbsentWithoutRetriesResolvesALostResponseByItsToken() {
    byte[] data = "mine".getBytes(UTF_8);
    try (ObjectStore s = storeLosingFirstResponse("lost/no-retry", Map.of("azure.max-retries", "0"))) {
      assertEquals(PutResult.CREATED, s.putIfAbsent("lost/no-retry", data));
      assertTrue(fault.fired(), "the first response was lost");
    }
    assertArrayEquals(data, store.read("lost/no-retry"));
  }

  @Test
  void resentPutIfAbsentStillLosesToAnotherWriter() {
    store.write("lost/theirs", "theirs".getBytes(UTF_8));
    try (ObjectStore s = storeLosingFirstResponse("lost/theirs", Map.of())) {
      assertEquals(PutResult.ALREADY_EXISTS, s.putIfAbsent("lost/theirs", "mine".getBytes(UTF_8)));
      assertTrue(fault.fired(), "the first response was lost");
    }
    assertArrayEquals("theirs".getBytes(UTF_8), store.read("lost/theirs"));
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
    assertEquals(utf16, serviceOrder, "Azurite's own order");

    List<String> utf8 = new ArrayList<>(written);
    utf8.sort(io.quiver.store.Keys.ORDER);
    assertNotEquals(utf16, utf8, "the two orders differ on these keys");
    assertEquals(utf8, keys(store).stream().filter(k -> k.startsWith("m/")).toList());
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
      assertEquals(List.of(), s.deleteAll(doomed));
      assertEquals(List.of("keep"), keys(s));
      assertEquals(List.of(202, 202), watch.statuses, "two batches (256 + 46), none refused");
    }
  }

  // ---- URIs, credentials and errors

  @Test
  void containerRootAndAbfssUrisServeTheSameBlobs() {
    try (ObjectStore root = freshContainerStore(Map.of())) {
      String name = root.location().substring("az://".length());
      root.write("a/b", "x".getBytes(UTF_8));
      assertEquals(List.of("a/b"), keys(root));
      try (ObjectStore abfss = open("abfss://" + name + "@" + AzuriteEmulator.ACCOUNT + ".dfs.core.windows.net/a", Map.of())) {
        assertEquals("abfss://" + name + "@" + AzuriteEmulator.ACCOUNT + ".dfs.core.windows.net/a", abfss.location());
        assertArrayEquals("x".getBytes(UTF_8), abfss.read("b"));
        assertEquals(List.of("b"), keys(abfss));
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
      assertTrue(s.toString().contains(blobContainer));
      assertFalse(s.toString().contains(AzuriteEmulator.KEY));
    }
    String sas = c.generateSas(new BlobServiceSasSignatureValues(
        OffsetDateTime.now().plusHours(1), BlobContainerSasPermission.parse("racwdl")));
    Map<String, String> bySas = Map.of("azure.endpoint", azurite.endpoint(), "azure.sas-token", sas);
    try (ObjectStore s = ObjectStores.defaultRegistry().open("az://" + blobContainer + "/p", bySas)) {
      assertArrayEquals("v".getBytes(UTF_8), s.read("k"));
      assertEquals(PutResult.CREATED, s.putIfAbsent("new", new byte[1]));
      assertEquals(List.of("k", "new"), keys(s));
      assertFalse(s.toString().contains(sas));
      ObjectNotFoundException missing = assertThrows(ObjectNotFoundException.class, () -> s.read("missing"));
      assertNoSecret(missing, sas);
    }
    String readOnly = c.generateSas(new BlobServiceSasSignatureValues(
        OffsetDateTime.now().plusHours(1), BlobContainerSasPermission.parse("rl")));
    try (ObjectStore s = ObjectStores.defaultRegistry().open(
        "az://" + blobContainer + "/p", Map.of("azure.endpoint", azurite.endpoint(), "azure.sas-token", readOnly))) {
      assertArrayEquals("v".getBytes(UTF_8), s.read("k"));
      StoreAccessDeniedException denied = assertThrows(StoreAccessDeniedException.class, () -> s.write("k", new byte[1]));
      assertNoSecret(denied, readOnly);
      StoreAccessDeniedException deniedCreate = assertThrows(StoreAccessDeniedException.class, () -> s.putIfAbsent("other", new byte[1]));
      assertNoSecret(deniedCreate, readOnly);
    }
  }

  @Test
  void wrongKeyIsAccessDeniedAndNoMessageShowsAKey() {
    String wrongKey = java.util.Base64.getEncoder().encodeToString(random(64, 21));
    Map<String, String> options = Map.of(
        "azure.endpoint", azurite.endpoint(), "azure.account-name", AzuriteEmulator.ACCOUNT, "azure.account-key", wrongKey);
    try (ObjectStore s = ObjectStores.defaultRegistry().open(store.location(), options)) {
      assertFalse(s.toString().contains(wrongKey));
      List<Runnable> calls = List.of(
          () -> s.read("k"), () -> s.readRange("k", 0, 10), () -> s.head("k"), () -> s.write("k", new byte[1]),
          () -> s.putIfAbsent("k", new byte[1]), () -> s.list("", Optional.empty(), 10), () -> s.delete("k"));
      for (Runnable call : calls) {
        StoreAccessDeniedException e = assertThrows(StoreAccessDeniedException.class, call::run);
        assertTrue(e.getMessage().contains(store.location()), e.getMessage());
        assertNoSecret(e, wrongKey);
        assertNoSecret(e, AzuriteEmulator.KEY);
      }
      assertEquals(List.of("k"), s.deleteAll(List.of("k")), "a denied delete is reported as failed");
    }
  }

  @Test
  void openingWithoutCredentialsSaysWhatToSet() {
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
        () -> ObjectStores.defaultRegistry().open("az://c/p", Map.of("azure.endpoint", azurite.endpoint())));
    assertTrue(e.getMessage().contains("azure.account-key"), e.getMessage());
    assertThrows(InvalidArgumentException.class, () -> ObjectStores.defaultRegistry().open("az://c/p", Map.of()));
  }

  private static void assertNoSecret(Throwable e, String secret) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      assertFalse(String.valueOf(t.getMessage()).contains(secret), "secret in the message of " + t);
      assertFalse(t.toString().contains(secret), "secret in " + t);
      for (Throwable s : t.getSuppressed()) {
        assertNoSecret(s, secret);
      }
    }
  }

  @Test
  void missingContainerIsAClearStoreError() {
    try (ObjectStore s = open("az://no-such-container/p", Map.of())) {
      StoreException e = assertThrows(StoreException.class, () -> s.write("k", new byte[1]));
      assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
      assertThrows(StoreException.class, () -> s.putIfAbsent("k", new byte[1]));
      assertThrows(ObjectNotFoundException.class, () -> s.read("k"));
      assertEquals(Optional.empty(), s.head("k"));
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
      StoreException read = assertThrows(StoreException.class, () -> s.read("k"));
      assertTrue(read.isTransient(), read.getMessage());
      StoreException write = assertThrows(StoreException.class, () -> s.write("k", new byte[1]));
      assertTrue(write.isTransient(), "the connection never opened: " + write.getMessage());
      assertInstanceOf(StoreException.class, assertThrows(StoreException.class, () -> s.putIfAbsent("k", new byte[1])));
    }
  }
}
