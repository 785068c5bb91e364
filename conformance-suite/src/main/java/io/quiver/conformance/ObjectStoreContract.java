package io.quiver.conformance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.store.CommitStore.ClaimResult;
import io.quiver.store.CommitStore;
import io.quiver.store.Keys;
import io.quiver.store.ListPage;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore.ObjectWriter;
import io.quiver.store.ObjectStore.PutResult;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The {@link ObjectStore} contract, run against every adapter through the port only, on a fresh, empty
 * store per test ({@link StoreFixture#newStore}). The suite never makes one key the "directory" of another
 * ({@code a} and {@code a/b}): file systems cannot hold both. What needs a capability some stores lack
 * (large objects, non-ASCII keys in depth) is {@link ObjectStoreCapabilityContract}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class ObjectStoreContract extends StoreSuite {

  /** A fresh, empty store; {@code name} is unique per test and safe as a path segment. */
  protected ObjectStore newStore(String name) {
    return fixture().newStore(name);
  }

  protected ObjectStore store;

  @BeforeEach
  void openStore(TestInfo info) {
    String method = info.getTestMethod().map(m -> m.getName()).orElse("test");
    store = newStore(method + "-" + Long.toHexString(new Random().nextLong() & Long.MAX_VALUE));
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private List<String> keys(String prefix) {
    return store.listAll(prefix).stream().map(ObjectInfo::key).toList();
  }

  // ---- read / write / head

  @Test
  void writeThenReadRoundTrips() {
    byte[] data = random(10_000, 1);
    store.write("dir/sub/obj.bin", data);
    assertArrayEquals(data, store.read("dir/sub/obj.bin"));
    store.write("empty", new byte[0]);
    assertArrayEquals(new byte[0], store.read("empty"));
  }

  @Test
  void writeCopiesTheCallersArray() {
    byte[] data = bytes("abc");
    store.write("k", data);
    data[0] = 'x';
    assertArrayEquals(bytes("abc"), store.read("k"));
  }

  @Test
  void readOfMissingKeyNamesTheKey() {
    ObjectNotFoundException e = assertThrows(ObjectNotFoundException.class, () -> store.read("no/such/key"));
    assertTrue(e.getMessage().contains("no/such/key"), e.getMessage());
    assertEquals(store.locationOf("no/such/key"), e.location());
    assertThrows(ObjectNotFoundException.class, () -> store.readRange("no/such/key", 0, 10));
  }

  @Test
  void headReportsSizeOrEmpty() {
    assertEquals(Optional.empty(), store.head("h"));
    store.write("h", random(1234, 2));
    ObjectInfo info = store.head("h").orElseThrow();
    assertEquals("h", info.key());
    assertEquals(1234, info.size());
    assertTrue(info.lastModified().toEpochMilli() > 0);
  }

  @Test
  void writeReplaces() {
    store.write("k", bytes("first, and longer"));
    store.write("k", bytes("second"));
    assertArrayEquals(bytes("second"), store.read("k"));
    assertEquals(6, store.head("k").orElseThrow().size());
    assertEquals(List.of("k"), keys(""));
  }

  // ---- readRange

  @Test
  void readRangeCoversStartMiddleEndAndBeyond() {
    byte[] data = random(1000, 3);
    store.write("r", data);
    assertArrayEquals(Arrays.copyOfRange(data, 0, 10), store.readRange("r", 0, 10));
    assertArrayEquals(Arrays.copyOfRange(data, 500, 620), store.readRange("r", 500, 120));
    assertArrayEquals(Arrays.copyOfRange(data, 990, 1000), store.readRange("r", 990, 10), "exactly to the end");
    assertArrayEquals(Arrays.copyOfRange(data, 900, 1000), store.readRange("r", 900, Integer.MAX_VALUE));
    assertArrayEquals(data, store.readRange("r", 0, Integer.MAX_VALUE));
    assertArrayEquals(new byte[0], store.readRange("r", 1000, 10), "offset at the end");
    assertArrayEquals(new byte[0], store.readRange("r", 5000, 10), "offset past the end");
    assertArrayEquals(new byte[0], store.readRange("r", Long.MAX_VALUE - 1, Integer.MAX_VALUE));
    assertArrayEquals(new byte[0], store.readRange("r", 10, 0), "zero length");
  }

  @Test
  void readRangeIntoFillsDirectBuffersAndStopsAtTheEnd() {
    byte[] data = random(1000, 6);
    store.write("r", data);
    java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(130);
    direct.position(10);
    assertEquals(120, store.readRangeInto("r", 500, direct));
    assertEquals(130, direct.position(), "the position advances by the bytes read");
    byte[] got = new byte[120];
    direct.position(10);
    direct.get(got);
    assertArrayEquals(Arrays.copyOfRange(data, 500, 620), got);

    java.nio.ByteBuffer tail = java.nio.ByteBuffer.allocateDirect(100);
    assertEquals(10, store.readRangeInto("r", 990, tail), "fewer bytes when the object ends first");
    assertEquals(0, store.readRangeInto("r", 1000, java.nio.ByteBuffer.allocate(10)), "offset at the end");
    assertThrows(ObjectNotFoundException.class, () -> store.readRangeInto("no/such/key", 0, java.nio.ByteBuffer.allocate(4)));
    assertThrows(InvalidArgumentException.class, () -> store.readRangeInto("r", -1, java.nio.ByteBuffer.allocate(4)));
  }

  @Test
  void readRangeRejectsNegativeArguments() {
    store.write("r", random(10, 4));
    assertThrows(InvalidArgumentException.class, () -> store.readRange("r", -1, 5));
    assertThrows(InvalidArgumentException.class, () -> store.readRange("r", 0, -5));
  }

  // ---- streaming writer

  @Test
  void writerStreamsMultipleMebibytesByteExact() throws IOException {
    byte[] data = random(5 * 1024 * 1024 + 17, 5);
    int[] chunks = {1, 7, 4093, 65_537, 13, 1_000_003, 3};
    try (ObjectWriter w = store.openWriter("big/stream.bin")) {
      int pos = 0;
      int i = 0;
      while (pos < data.length) {
        int n = Math.min(chunks[i++ % chunks.length], data.length - pos);
        if (n == 1) {
          w.write(data[pos] & 0xff);
        } else {
          w.write(data, pos, n);
        }
        pos += n;
        assertEquals(pos, w.position());
      }
    }
    assertEquals(data.length, store.head("big/stream.bin").orElseThrow().size());
    assertArrayEquals(data, store.read("big/stream.bin"));
  }

  @Test
  void writerPublishesNothingBeforeClose() throws IOException {
    ObjectWriter w = store.openWriter("pending/obj");
    w.write(random(100_000, 6));
    w.flush();
    assertEquals(Optional.empty(), store.head("pending/obj"));
    assertEquals(List.of(), keys(""));
    w.close();
    assertEquals(100_000, store.head("pending/obj").orElseThrow().size());
    w.close(); // idempotent
  }

  @Test
  void writerOfEmptyObject() throws IOException {
    store.openWriter("zero").close();
    assertArrayEquals(new byte[0], store.read("zero"));
  }

  @Test
  void abortLeavesNothingAndCloseAfterAbortDoesNothing() throws IOException {
    ObjectWriter w = store.openWriter("aborted/obj");
    w.write(random(300_000, 7));
    w.abort();
    w.close();
    assertEquals(Optional.empty(), store.head("aborted/obj"));
    assertEquals(List.of(), keys(""));
    assertThrows(IllegalStateException.class, () -> w.write(1));
  }

  @Test
  void abortKeepsThePreviousObject() throws IOException {
    store.write("k", bytes("old"));
    ObjectWriter w = store.openWriter("k");
    w.write(bytes("new"));
    w.abort();
    assertArrayEquals(bytes("old"), store.read("k"));
  }

  @Test
  void failedProducerNeverPublishesAPartialObject() {
    // The usual pattern: abort in the catch, then try-with-resources closes the writer.
    assertThrows(IllegalStateException.class, () -> {
      try (ObjectWriter w = store.openWriter("partial")) {
        try {
          w.write(random(50_000, 8));
          throw new IllegalStateException("producer failed mid-stream");
        } catch (RuntimeException e) {
          w.abort();
          throw e;
        }
      }
    });
    assertEquals(Optional.empty(), store.head("partial"));
    assertEquals(List.of(), keys(""));
  }

  @Test
  void writerReplacesLikeWrite() throws IOException {
    store.write("k", bytes("old"));
    try (ObjectWriter w = store.openWriter("k")) {
      w.write(bytes("newer"));
    }
    assertArrayEquals(bytes("newer"), store.read("k"));
  }

  // ---- putIfAbsent

  @Test
  void putIfAbsentCreatesOnceAndLeavesContentUntouched() {
    assertEquals(PutResult.CREATED, store.putIfAbsent("once", bytes("winner")));
    assertEquals(PutResult.ALREADY_EXISTS, store.putIfAbsent("once", bytes("loser, longer bytes")));
    assertArrayEquals(bytes("winner"), store.read("once"));
    assertEquals(List.of("once"), keys(""));
  }

  @Test
  void putIfAbsentSeesObjectsFromWrite() {
    store.write("w", bytes("x"));
    assertEquals(PutResult.ALREADY_EXISTS, store.putIfAbsent("w", bytes("y")));
    assertArrayEquals(bytes("x"), store.read("w"));
  }

  @Test
  void putIfAbsentAfterDeleteCreatesAgain() {
    assertEquals(PutResult.CREATED, store.putIfAbsent("d", bytes("1")));
    store.delete("d");
    assertEquals(PutResult.CREATED, store.putIfAbsent("d", bytes("2")));
    assertArrayEquals(bytes("2"), store.read("d"));
  }

  @Test
  void putIfAbsentHasExactlyOneWinnerAmongRacingThreads() throws Exception {
    int threads = 16;
    int rounds = 50;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < rounds; round++) {
        String key = "race/round-" + round;
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<PutResult>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          byte[] payload = bytes("thread-" + t + "-round-" + round);
          results.add(pool.submit(() -> {
            ready.countDown();
            go.await();
            return store.putIfAbsent(key, payload);
          }));
        }
        ready.await();
        go.countDown();
        List<Integer> winners = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          if (results.get(t).get(60, TimeUnit.SECONDS) == PutResult.CREATED) {
            winners.add(t);
          }
        }
        assertEquals(1, winners.size(), "round " + round + " winners " + winners);
        assertArrayEquals(bytes("thread-" + winners.get(0) + "-round-" + round), store.read(key));
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(rounds, keys("race/").size());
  }

  // ---- listing

  @Test
  void listOfEmptyStoreOrUnknownPrefixIsEmpty() {
    assertEquals(new ListPage(List.of(), false), store.list("", Optional.empty(), 10));
    store.write("a/b", bytes("x"));
    assertEquals(new ListPage(List.of(), false), store.list("nothing/", Optional.empty(), 10));
    assertEquals(new ListPage(List.of(), false), store.list("a/b/", Optional.empty(), 10));
    assertEquals(new ListPage(List.of(), false), store.list("", Optional.of("a/b"), 10));
  }

  @Test
  void listRejectsNonPositiveMaxKeys() {
    assertThrows(InvalidArgumentException.class, () -> store.list("", Optional.empty(), 0));
  }

  @Test
  void listReportsSizes() {
    store.write("s/one", random(1, 9));
    store.write("s/three", random(3, 9));
    List<ObjectInfo> all = store.listAll("s/");
    assertEquals(List.of("s/one", "s/three"), all.stream().map(ObjectInfo::key).toList());
    assertEquals(List.of(1L, 3L), all.stream().map(ObjectInfo::size).toList());
  }

  /** Names chosen so that '/'-aware order differs from per-segment order: '-' and '.' sort before '/'. */
  @Test
  void listOrderIsByteOrderOfWholeKeys() {
    List<String> written = List.of("p0", "p/z/y", "p.r", "p/a", "p-r", "p/r.s", "p/r-s", "p/r/t", "q", "P", "p/r0");
    for (String k : written) {
      store.write(k, bytes(k));
    }
    List<String> expected = new ArrayList<>(written);
    expected.sort(Keys.ORDER);
    assertEquals(List.of("P", "p-r", "p.r", "p/a", "p/r-s", "p/r.s", "p/r/t", "p/r0", "p/z/y", "p0", "q"), expected);
    assertEquals(expected, keys(""));
    assertEquals(pageThrough("", 1), expected);
    assertEquals(List.of("p/a", "p/r-s", "p/r.s", "p/r/t", "p/r0", "p/z/y"), keys("p/"));
    assertEquals(List.of("p/r-s", "p/r.s", "p/r/t", "p/r0"), keys("p/r"), "a prefix that is not a directory");
    assertEquals(List.of("p-r", "p.r", "p/a", "p/r-s", "p/r.s", "p/r/t", "p/r0", "p/z/y", "p0"), keys("p"));
  }

  @Test
  void listOrderOfNonAsciiKeysIsUtf8ByteOrder() {
    assumeCapable(Capability.NON_ASCII_KEYS);
    assumeCapable(Capability.UTF8_LISTING_ORDER);
    // U+E000 encodes as EE 80 80 and sorts before U+1F600 (F0 9F 98 80), although its UTF-16 unit is larger.
    List<String> expected = List.of("u/z", "u/\u00e9", "u/\ue000", "u/\uD83D\uDE00");
    for (String k : List.of("u/\uD83D\uDE00", "u/\ue000", "u/z", "u/\u00e9")) {
      store.write(k, bytes(k));
    }
    assertEquals(expected, keys("u/"));
    assertEquals(List.of("u/\uD83D\uDE00"), store.list("u/", Optional.of("u/\ue000"), 10).objects().stream().map(ObjectInfo::key).toList());
  }

  @Test
  void listPagesThroughThousandsOfKeys() throws Exception {
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 2500; i++) {
      // Spread over directories, with numbering that does not sort numerically.
      expected.add("t/" + (i % 7) + "/k" + i);
    }
    expected.add("t-sibling");
    expected.add("u/outside");
    writeInParallel(expected);
    expected.sort(Keys.ORDER);
    List<String> underT = expected.stream().filter(k -> k.startsWith("t/")).toList();

    assertEquals(underT, pageThrough("t/", 1000));
    assertEquals(underT, pageThrough("t/", 7));
    assertEquals(underT, pageThrough("t/", 1));
    assertEquals(expected, pageThrough("", 1000));
    assertEquals(expected.subList(0, expected.size() - 1), keys("t"));
    List<String> underT3 = underT.stream().filter(k -> k.startsWith("t/3/k1")).toList();
    assertEquals(underT3, pageThrough("t/3/k1", 7));

    // startAfter: strictly after, whether or not the key exists, and may sort before the prefix.
    String mid = underT.get(1234);
    assertEquals(underT.subList(1235, 1245), names(store.list("t/", Optional.of(mid), 10)));
    assertEquals(underT.subList(0, 5), names(store.list("t/", Optional.of("a"), 5)));
    assertEquals(underT.subList(0, 5), names(store.list("t/", Optional.of("t/"), 5)));
    assertEquals(underT.subList(1235, 1240), names(store.list("t/", Optional.of(mid + "\u0000"), 5)));
    ListPage last = store.list("t/", Optional.of(underT.get(underT.size() - 2)), 5);
    assertEquals(List.of(underT.get(underT.size() - 1)), names(last));
    assertFalse(last.hasMore());
    assertEquals(new ListPage(List.of(), false), store.list("t/", Optional.of("t0"), 5));
  }

  private static List<String> names(ListPage page) {
    return page.objects().stream().map(ObjectInfo::key).toList();
  }

  /** Pages with a fixed size, checking each page's size and the hasMore flag. */
  private List<String> pageThrough(String prefix, int pageSize) {
    List<String> all = new ArrayList<>();
    Optional<String> after = Optional.empty();
    while (true) {
      ListPage page = store.list(prefix, after, pageSize);
      assertTrue(page.objects().size() <= pageSize);
      all.addAll(names(page));
      if (!page.hasMore()) {
        return all;
      }
      assertFalse(page.objects().isEmpty(), "hasMore with an empty page");
      after = Optional.of(all.get(all.size() - 1));
    }
  }

  /** Writes key -> key bytes from a few threads; remote stores would take minutes one by one. */
  private void writeInParallel(List<String> keys) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (String k : keys) {
        done.add(pool.submit(() -> store.write(k, bytes(k))));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void listNeverEscapesTheRoot() {
    store.write("in", bytes("x"));
    for (String prefix : List.of("../", "..", "/", "./")) {
      try {
        ListPage page = store.list(prefix, Optional.empty(), 10);
        assertEquals(List.of(), page.objects(), "prefix " + prefix);
      } catch (InvalidArgumentException expected) {
        // also acceptable
      }
    }
  }

  // ---- delete

  @Test
  void deleteRemovesAndMissingKeyIsFine() {
    store.write("x/y", bytes("1"));
    store.delete("x/y");
    assertEquals(Optional.empty(), store.head("x/y"));
    assertThrows(ObjectNotFoundException.class, () -> store.read("x/y"));
    store.delete("x/y");
    store.delete("never/existed");
    assertEquals(List.of(), keys(""));
  }

  @Test
  void deleteAllRemovesPresentAndIgnoresMissing() {
    for (String k : List.of("a/1", "a/2", "b/3", "keep")) {
      store.write(k, bytes(k));
    }
    assertEquals(List.of(), store.deleteAll(List.of("a/1", "missing", "b/3", "a/2", "also/missing")));
    assertEquals(List.of("keep"), keys(""));
    assertEquals(List.of(), store.deleteAll(List.of()));
  }

  // ---- key validation

  @Test
  void invalidKeysAreRejectedByEveryMethod() {
    for (String bad : List.of("../x", "/abs", "a//b", "s3://x", "a/../b", "a/./b", "", "a\\b", "a/")) {
      rejects(bad, "read", () -> store.read(bad));
      rejects(bad, "readRange", () -> store.readRange(bad, 0, 1));
      rejects(bad, "head", () -> store.head(bad));
      rejects(bad, "write", () -> store.write(bad, bytes("x")));
      rejects(bad, "openWriter", () -> store.openWriter(bad).close());
      rejects(bad, "putIfAbsent", () -> store.putIfAbsent(bad, bytes("x")));
      rejects(bad, "delete", () -> store.delete(bad));
      rejects(bad, "deleteAll", () -> store.deleteAll(List.of(bad)));
    }
    assertEquals(List.of(), keys(""));
  }

  private static void rejects(String key, String method, org.junit.jupiter.api.function.Executable call) {
    try {
      call.execute();
      fail(method + " accepted invalid key '" + key + "'");
    } catch (InvalidArgumentException expected) {
      assertTrue(expected.getMessage().contains("invalid object key"), expected.getMessage());
    } catch (Throwable other) {
      fail(method + " threw " + other + " instead of InvalidArgumentException for '" + key + "'", other);
    }
  }

  // ---- null and out-of-range arguments: one behaviour on every store (io.quiver.store.StoreArgs)

  /**
   * Every method refuses a null argument with {@link InvalidArgumentException}, before any I/O: never a
   * NullPointerException, never a store error, and nothing is written.
   */
  @Test
  void nullArgumentsAreRefusedByEveryMethod() {
    store.write("k", bytes("x"));
    refuses("read(null)", () -> store.read(null));
    refuses("readRange(null, ...)", () -> store.readRange(null, 0, 1));
    refuses("readRangeInto(null, ...)", () -> store.readRangeInto(null, 0, java.nio.ByteBuffer.allocate(1)));
    refuses("readRangeInto(k, 0, null)", () -> store.readRangeInto("k", 0, null));
    refuses("head(null)", () -> store.head(null));
    refuses("write(null, ...)", () -> store.write(null, bytes("x")));
    refuses("write(k, null)", () -> store.write("k", null));
    refuses("openWriter(null)", () -> store.openWriter(null).close());
    refuses("putIfAbsent(null, ...)", () -> store.putIfAbsent(null, bytes("x")));
    refuses("putIfAbsent(n, null)", () -> store.putIfAbsent("n", null));
    refuses("list(null, ...)", () -> store.list(null, Optional.empty(), 10));
    refuses("list(\"\", null, 10)", () -> store.list("", null, 10));
    refuses("listAll(null)", () -> store.listAll(null));
    refuses("delete(null)", () -> store.delete(null));
    refuses("deleteAll(null)", () -> store.deleteAll(null));
    refuses("deleteAll([k, null])", () -> store.deleteAll(Arrays.asList("k", null)));
    refuses("abandonedTemporaries(null)", () -> store.abandonedTemporaries(null));
    refuses("deleteAbandonedTemporaries(null)", () -> store.deleteAbandonedTemporaries(null));
    assertArrayEquals(bytes("x"), store.read("k"), "a refused call changed nothing");
    assertEquals(List.of("k"), keys(""));
  }

  /** Negative offsets and lengths and a {@code maxKeys} below 1 are {@link InvalidArgumentException}s. */
  @Test
  void outOfRangeArgumentsAreRefusedByEveryMethod() {
    store.write("r", random(10, 4));
    refuses("readRange offset -1", () -> store.readRange("r", -1, 1));
    refuses("readRange offset Long.MIN_VALUE", () -> store.readRange("r", Long.MIN_VALUE, 1));
    refuses("readRange length -1", () -> store.readRange("r", 0, -1));
    refuses("readRange length Integer.MIN_VALUE", () -> store.readRange("r", 0, Integer.MIN_VALUE));
    refuses("readRange of a missing key, offset -1", () -> store.readRange("missing", -1, 1));
    refuses("readRangeInto offset -1", () -> store.readRangeInto("r", -1, java.nio.ByteBuffer.allocate(1)));
    refuses("list maxKeys 0", () -> store.list("", Optional.empty(), 0));
    refuses("list maxKeys -1", () -> store.list("", Optional.empty(), -1));
    refuses("list maxKeys Integer.MIN_VALUE", () -> store.list("", Optional.of("a"), Integer.MIN_VALUE));
  }

  /**
   * A list prefix is the start of a key: one that no valid key can start with ({@code ../}, {@code /},
   * {@code a//}) is refused like an invalid key, while any start of a valid key lists normally.
   */
  @Test
  void listRejectsPrefixesNoKeyCanStartWith() {
    store.write("a/.b", bytes("x"));
    for (String bad : List.of("../", "/", "./", "a//", "a/../", "a\\", "s3:", "a/\u0000")) {
      refuses("list prefix '" + bad + "'", () -> store.list(bad, Optional.empty(), 10));
      refuses("listAll prefix '" + bad + "'", () -> store.listAll(bad));
    }
    assertEquals(List.of("a/.b"), keys("a/."));
    assertEquals(List.of("a/.b"), keys("a"));
    assertEquals(List.of(), keys(".."), "keys such as '..x' would match; there are none");
  }

  @Test
  void deleteAllChecksEveryKeyBeforeDeletingAny() {
    store.write("a/1", bytes("1"));
    store.write("a/2", bytes("2"));
    InvalidArgumentException e =
        assertThrows(InvalidArgumentException.class, () -> store.deleteAll(List.of("a/1", "../escape", "a/2")));
    assertTrue(e.getMessage().contains("invalid object key '../escape'"), e.getMessage());
    assertEquals(List.of("a/1", "a/2"), keys("a/"), "nothing was deleted");
  }

  @Test
  void zeroLengthReadOfAMissingKeyIsNotFound() {
    assertThrows(ObjectNotFoundException.class, () -> store.readRange("no/such", 0, 0));
    assertThrows(ObjectNotFoundException.class, () -> store.readRangeInto("no/such", 0, java.nio.ByteBuffer.allocate(0)));
  }

  private static void refuses(String call, org.junit.jupiter.api.function.Executable executable) {
    try {
      executable.execute();
      fail(call + " was accepted");
    } catch (InvalidArgumentException expected) {
      assertFalse(expected.getMessage() == null || expected.getMessage().isBlank(), call + ": no message");
    } catch (Throwable other) {
      fail(call + " threw " + other + " instead of InvalidArgumentException", other);
    }
  }

  // ---- the store's own temporaries

  /** Writes that finished, failed or were aborted leave no temporary behind: only a killed writer does. */
  @Test
  void finishedWritesLeaveNoTemporaries() throws IOException {
    store.write("t/written", random(1000, 11));
    store.putIfAbsent("t/put", random(10, 12));
    store.putIfAbsent("t/put", random(10, 13));
    try (ObjectWriter w = store.openWriter("t/streamed")) {
      w.write(random(70_000, 14));
    }
    ObjectWriter aborted = store.openWriter("t/aborted");
    aborted.write(random(70_000, 15));
    aborted.abort();
    java.time.Instant future = java.time.Instant.now().plusSeconds(3600);
    assertEquals(List.of(), store.abandonedTemporaries(future));
    assertEquals(List.of(), store.deleteAbandonedTemporaries(future));
    assertEquals(List.of("t/put", "t/streamed", "t/written"), keys("t/"));
  }

  // ---- commit store on top

  @Test
  void commitStoreClaimsAndListsVersions() {
    CommitStore commits = new ObjectStoreCommitStore(store);
    assertEquals(Optional.empty(), commits.latestVersion());
    assertEquals(List.of(), commits.listVersions(10));
    for (long v = 0; v <= 12; v++) {
      assertEquals(ClaimResult.CLAIMED, commits.claim(v, bytes("manifest " + v)));
    }
    assertEquals(ClaimResult.ALREADY_CLAIMED, commits.claim(7, bytes("rival")));
    assertArrayEquals(bytes("manifest 7"), commits.read(7).orElseThrow());
    assertEquals(Optional.empty(), commits.read(13));
    assertEquals(Optional.of(12L), commits.latestVersion());
    assertEquals(List.of(12L, 11L, 10L), commits.listVersions(3));
    assertEquals(13, commits.listVersions(100).size());
    assertEquals(List.of(10L, 11L, 12L), commits.versionsAfter(9));
    assertEquals(List.of(), commits.versionsAfter(12));

    store.write("_versions/not-a-manifest", bytes("noise"));
    commits.claim(1_000_000_000_000L, bytes("big"));
    assertEquals(Optional.of(1_000_000_000_000L), commits.latestVersion());
    commits.remove(3);
    assertEquals(Optional.empty(), commits.read(3));
    assertEquals(List.of(0L, 1L, 2L, 4L), commits.versionsAfter(-1).subList(0, 4));
  }

  /** Messages and caches name a version by the commit store's location of it: under the store, one per version. */
  @Test
  void commitStoreLocatesEachVersionUnderTheStore() {
    CommitStore commits = CommitStore.of(store);
    assertTrue(commits.location().startsWith(store.location()), commits.location());
    assertTrue(commits.locationOf(7).startsWith(commits.location()), commits.locationOf(7));
    assertFalse(commits.locationOf(7).equals(commits.locationOf(8)));
    commits.claim(7, bytes("m"));
    assertEquals(1, keys("").size());
    assertEquals(store.locationOf(keys("").get(0)), commits.locationOf(7));
  }
}
