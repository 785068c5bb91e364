package io.quiver.conformance.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.conformance.ObjectStoreContractTest;
import io.quiver.conformance.emulator.S3ProxyEmulator;
import io.quiver.exceptions.StoreAccessDeniedException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore.ObjectWriter;
import io.quiver.store.ObjectStore.PutResult;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.s3.S3ObjectStore;
import io.quiver.store.s3.S3ObjectStoreProvider;
import io.quiver.store.s3.S3StoreOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/**
 * The store contract on S3Proxy, each test under a fresh prefix of one bucket, plus what only S3 can get
 * wrong: multipart uploads, their abort, authentication and the secrecy of credentials.
 */
class S3ObjectStoreContractIT extends ObjectStoreContractTest {
  private static final String BUCKET = "quiver-contract";
  /** Small multipart settings so that a test-sized object takes the multipart path. */
  private static final int PART = (int) S3StoreOptions.MIN_PART_SIZE;

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

  /**
   * A fresh bucket per contract test (S3Proxy's listing cost grows with the objects in a bucket), with the
   * store rooted at a prefix inside it.
   */
  @Override
  protected ObjectStore newStore(String name) {
    String bucket = "contract-" + Long.toHexString(new Random().nextLong() & Long.MAX_VALUE);
    s3proxy.createBucket(bucket);
    return provider.open(URI.create("s3://" + bucket + "/table/" + name), s3proxy.storeOptions());
  }

  /**
   * S3 lists in UTF-8 byte order, but S3Proxy (4.1.0, both jclouds backends) sorts keys as Java strings
   * (UTF-16 order), which puts U+1F600 before U+E000. The adapter passes S3's order through untouched, so the
   * contract's order check for non-ASCII keys cannot pass on this emulator: it is switched off here and
   * {@link #nonAsciiKeysRoundTrip()} checks everything else about such keys.
   */
  @Override
  protected boolean supportsNonAsciiKeys() {
    return false;
  }

  @Test
  void nonAsciiKeysRoundTrip() {
    List<String> keys = List.of("u/z", "u/\u00e9", "u/\ue000", "u/\uD83D\uDE00", "u/sp ace+plus%25&amp");
    for (String k : keys) {
      store.write(k, k.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    for (String k : keys) {
      assertArrayEquals(k.getBytes(java.nio.charset.StandardCharsets.UTF_8), store.read(k), k);
      assertEquals(PutResult.ALREADY_EXISTS, store.putIfAbsent(k, new byte[1]), k);
    }
    assertEquals(new java.util.HashSet<>(keys),
        new java.util.HashSet<>(store.listAll("u/").stream().map(ObjectInfo::key).toList()));
    assertEquals(List.of(), store.deleteAll(keys));
    assertEquals(List.of(), store.listAll(""));
  }

  private ObjectStore open(String prefix, Map<String, String> extra) {
    Map<String, String> options = new HashMap<>(s3proxy.storeOptions());
    options.putAll(extra);
    return provider.open(URI.create("s3://" + BUCKET + "/" + prefix), options);
  }

  private ObjectStore smallPartStore(String prefix) {
    return open(prefix, Map.of(
        S3StoreOptions.MULTIPART_THRESHOLD, Integer.toString(PART),
        S3StoreOptions.MULTIPART_PART_SIZE, Integer.toString(PART),
        S3StoreOptions.MULTIPART_PARALLELISM, "3"));
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** Multipart uploads in progress under a bucket prefix, seen with a plain client. */
  private static List<MultipartUpload> uploadsUnder(String prefix) {
    return raw.listMultipartUploads(r -> r.bucket(BUCKET).prefix(prefix)).uploads();
  }

  private static String prefixOf(ObjectStore s) {
    return ((S3ObjectStore) s).rootPrefix();
  }

  private static void writeInOddChunks(ObjectWriter w, byte[] data) throws IOException {
    int[] chunks = {1, 999_983, 7, 3_000_017, 65_521, 13};
    int pos = 0;
    for (int i = 0; pos < data.length; i++) {
      int n = Math.min(chunks[i % chunks.length], data.length - pos);
      if (n == 1) {
        w.write(data[pos] & 0xff);
      } else {
        w.write(data, pos, n);
      }
      pos += n;
      assertEquals(pos, w.position());
    }
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
  void largeStreamingWriteGoesMultipartAndRoundTripsByteExact() throws IOException {
    byte[] data = random(3 * PART + 1_234_567, 11);
    try (ObjectStore s = smallPartStore("multipart-" + System.nanoTime())) {
      ObjectWriter w = s.openWriter("big/object.bin");
      writeInOddChunks(w, data);
      List<MultipartUpload> inProgress = uploadsUnder(prefixOf(s));
      assertEquals(1, inProgress.size(), "a multipart upload is under way before close: " + inProgress);
      assertEquals(Optional.empty(), s.head("big/object.bin"), "nothing is visible before close");
      w.close();
      assertEquals(List.of(), uploadsUnder(prefixOf(s)), "the upload was completed");
      assertEquals(data.length, s.head("big/object.bin").orElseThrow().size());
      assertArrayEquals(data, s.read("big/object.bin"));
      assertArrayEquals(java.util.Arrays.copyOfRange(data, PART - 10, PART + 10), s.readRange("big/object.bin", PART - 10, 20),
          "a range across a part boundary");
      String etag = raw.headObject(r -> r.bucket(BUCKET).key(prefixOf(s) + "big/object.bin")).eTag();
      assertTrue(etag.contains("-"), "a multipart ETag ends in -<parts>: " + etag);
    }
  }

  @Test
  void largeArrayWriteGoesMultipart() {
    byte[] data = random(2 * PART + 3, 12);
    try (ObjectStore s = smallPartStore("multipart-array-" + System.nanoTime())) {
      s.write("a.bin", data);
      assertArrayEquals(data, s.read("a.bin"));
      String etag = raw.headObject(r -> r.bucket(BUCKET).key(prefixOf(s) + "a.bin")).eTag();
      assertTrue(etag.contains("-"), "a multipart ETag ends in -<parts>: " + etag);
    }
  }

  @Test
  void abortedLargeWriterLeavesNothingBehind() throws IOException {
    try (ObjectStore s = smallPartStore("multipart-abort-" + System.nanoTime())) {
      s.write("keep", new byte[] {1});
      ObjectWriter w = s.openWriter("big/aborted.bin");
      writeInOddChunks(w, random(3 * PART + 17, 13));
      assertEquals(1, uploadsUnder(prefixOf(s)).size(), "parts were uploaded before the abort");
      w.abort();
      w.close();
      assertEquals(List.of(), uploadsUnder(prefixOf(s)), "the multipart upload was aborted");
      assertEquals(Optional.empty(), s.head("big/aborted.bin"));
      assertEquals(List.of("keep"), s.listAll("").stream().map(ObjectInfo::key).toList());
      assertThrows(IllegalStateException.class, () -> w.write(1));
    }
  }

  @Test
  void largeWriterReplacesAnExistingObjectOnlyOnClose() throws IOException {
    byte[] data = random(2 * PART + 99, 14);
    try (ObjectStore s = smallPartStore("multipart-replace-" + System.nanoTime())) {
      s.write("k", new byte[] {7});
      ObjectWriter w = s.openWriter("k");
      writeInOddChunks(w, data);
      assertArrayEquals(new byte[] {7}, s.read("k"));
      w.close();
      assertArrayEquals(data, s.read("k"));
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

  @Test
  void putIfAbsentNeverOverwritesAMultipartObject() throws IOException {
    byte[] data = random(PART + 5, 15);
    try (ObjectStore s = smallPartStore("pia-" + System.nanoTime())) {
      try (ObjectWriter w = s.openWriter("k")) {
        w.write(data);
      }
      assertEquals(PutResult.ALREADY_EXISTS, s.putIfAbsent("k", new byte[] {1}));
      assertArrayEquals(data, s.read("k"));
    }
  }

  /** The secret appears nowhere in the exception, its causes or its stack trace text. */
  private static void assertNoSecret(Throwable e, String secret) {
    StringWriter text = new StringWriter();
    e.printStackTrace(new PrintWriter(text));
    assertFalse(text.toString().contains(secret), "secret leaked in: " + text);
  }
}
