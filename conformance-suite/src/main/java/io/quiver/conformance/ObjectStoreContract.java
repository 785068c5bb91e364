package io.quiver.conformance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.fail;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.store.ByteRange;
import io.quiver.store.CommitStore.ClaimResult;
import io.quiver.store.CommitStore;
import io.quiver.store.FetchTuning;
import io.quiver.store.Keys;
import io.quiver.store.ListPage;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore.ObjectWriter;
import io.quiver.store.ObjectStore.PutResult;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
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
    assertThat(store.read("dir/sub/obj.bin")).containsExactly(data);
    store.write("empty", new byte[0]);
    assertThat(store.read("empty")).containsExactly(new byte[0]);
  }

  @Test
  void writeCopiesTheCallersArray() {
    byte[] data = bytes("abc");
    store.write("k", data);
    data[0] = 'x';
    assertThat(store.read("k")).containsExactly(bytes("abc"));
  }

  @Test
  void readOfMissingKeyNamesTheKey() {
    ObjectNotFoundException e = assertThatExceptionOfType(ObjectNotFoundException.class).isThrownBy(() -> store.read("no/such/key")).actual();
    assertThat(e.getMessage().contains("no/such/key")).as(e.getMessage()).isTrue();
    assertThat(e.location()).isEqualTo(store.locationOf("no/such/key"));
    assertThatExceptionOfType(ObjectNotFoundException.class).isThrownBy(() -> store.readRange("no/such/key", 0, 10));
  }

  @Test
  void headReportsSizeOrEmpty() {
    assertThat(store.head("h")).isEqualTo(Optional.empty());
    store.write("h", random(1234, 2));
    ObjectInfo info = store.head("h").orElseThrow();
    assertThat(info.key()).isEqualTo("h");
    assertThat(info.size()).isEqualTo(1234);
    assertThat(info.lastModified().toEpochMilli() > 0).isTrue();
  }

  @Test
  void writeReplaces() {
    store.write("k", bytes("first, and longer"));
    store.write("k", bytes("second"));
    assertThat(store.read("k")).containsExactly(bytes("second"));
    assertThat(store.head("k").orElseThrow().size()).isEqualTo(6);
    assertThat(keys("")).isEqualTo(List.of("k"));
  }

  // ---- readRange

  @Test
  void readRangeCoversStartMiddleEndAndBeyond() {
    byte[] data = random(1000, 3);
    store.write("r", data);
    assertThat(store.readRange("r", 0, 10)).containsExactly(Arrays.copyOfRange(data, 0, 10));
    assertThat(store.readRange("r", 500, 120)).containsExactly(Arrays.copyOfRange(data, 500, 620));
    assertThat(store.readRange("r", 990, 10)).as("exactly to the end").containsExactly(Arrays.copyOfRange(data, 990, 1000));
    assertThat(store.readRange("r", 900, Integer.MAX_VALUE)).containsExactly(Arrays.copyOfRange(data, 900, 1000));
    assertThat(store.readRange("r", 0, Integer.MAX_VALUE)).containsExactly(data);
    assertThat(store.readRange("r", 1000, 10)).as("offset at the end").containsExactly(new byte[0]);
    assertThat(store.readRange("r", 5000, 10)).as("offset past the end").containsExactly(new byte[0]);
    assertThat(store.readRange("r", Long.MAX_VALUE - 1, Integer.MAX_VALUE)).containsExactly(new byte[0]);
    assertThat(store.readRange("r", 10, 0)).as("zero length").containsExactly(new byte[0]);
  }

  @Test
  void readRangeIntoFillsDirectBuffersAndStopsAtTheEnd() {
    byte[] data = random(1000, 6);
    store.write("r", data);
    java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(130);
    direct.position(10);
    assertThat(store.readRangeInto("r", 500, direct)).isEqualTo(120);
    assertThat(direct.position()).as("the position advances by the bytes read").isEqualTo(130);
    byte[] got = new byte[120];
    direct.position(10);
    direct.get(got);
    assertThat(got).containsExactly(Arrays.copyOfRange(data, 500, 620));

    java.nio.ByteBuffer tail = java.nio.ByteBuffer.allocateDirect(100);
    assertThat(store.readRangeInto("r", 990, tail)).as("fewer bytes when the object ends first").isEqualTo(10);
    assertThat(store.readRangeInto("r", 1000, java.nio.ByteBuffer.allocate(10))).as("offset at the end").isEqualTo(0);
    assertThatExceptionOfType(ObjectNotFoundException.class).isThrownBy(() -> store.readRangeInto("no/such/key", 0, java.nio.ByteBuffer.allocate(4)));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> store.readRangeInto("r", -1, java.nio.ByteBuffer.allocate(4)));
  }

  @Test
  void readRangeRejectsNegativeArguments() {
    store.write("r", random(10, 4));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> store.readRange("r", -1, 5));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> store.readRange("r", 0, -5));
  }

  // ---- fetchTuning

  @Test
  void fetchTuningIsAValidStableAnswerThatTouchesNothing() {
    FetchTuning tuning = store.fetchTuning();
    assertThat(tuning).as("every read of a table on this store is shaped by it").isNotNull();
    // the record's constructor bounds each value; a scan builds its read options from them as they are
    assertThat(tuning.coalesceGapBytes()).isNotNegative();
    assertThat(tuning.requestBytes()).isPositive();
    assertThat(tuning.requestsInFlight()).isBetween(0, FetchTuning.MAX_REQUESTS_IN_FLIGHT);
    store.write("k", bytes("v"));
    assertThat(store.fetchTuning()).as("the same answer every time").isEqualTo(tuning);
    assertThat(keys("")).as("asking reads or writes nothing").isEqualTo(List.of("k"));
  }

  // ---- readRanges

  @Test
  void readRangesReturnsEachRangeInTheOrderAsked() {
    byte[] data = random(100_000, 7);
    store.write("v", data);
    List<ByteRange> ranges = List.of(new ByteRange(90_000, 16), new ByteRange(0, 8), new ByteRange(4, 8),
        new ByteRange(4, 8), new ByteRange(50_000, 0), new ByteRange(1, 99_999), new ByteRange(65_536, 3));
    List<byte[]> got = store.readRanges("v", ranges);
    assertThat(got).hasSize(ranges.size());
    for (int i = 0; i < ranges.size(); i++) {
      ByteRange r = ranges.get(i);
      assertThat(got.get(i)).as("range %d: %s (overlapping, repeated and empty ranges too)", i, r)
          .containsExactly(Arrays.copyOfRange(data, (int) r.offset(), (int) r.end()));
    }
  }

  @Test
  void readRangesOfOneRangeIsReadRange() {
    byte[] data = random(1000, 8);
    store.write("v", data);
    assertThat(store.readRanges("v", List.of(new ByteRange(10, 20)))).singleElement()
        .satisfies(b -> assertThat(b).containsExactly(Arrays.copyOfRange(data, 10, 30)));
  }

  @Test
  void readRangesOfManyRangesMatchesReadRange() {
    byte[] data = random(200_000, 9);
    store.write("v", data);
    Random random = new Random(10);
    List<ByteRange> ranges = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      ranges.add(new ByteRange(random.nextInt(data.length), random.nextInt(64)));
    }
    List<byte[]> got = store.readRanges("v", ranges);
    for (int i = 0; i < ranges.size(); i++) {
      ByteRange r = ranges.get(i);
      assertThat(got.get(i)).as("range %d", i).containsExactly(store.readRange("v", r.offset(), r.length()));
    }
  }

  @Test
  void readRangesPastTheEndAreShortOrEmptyLikeReadRange() {
    byte[] data = random(1000, 11);
    store.write("v", data);
    List<byte[]> got = store.readRanges("v", List.of(new ByteRange(990, 100), new ByteRange(1000, 5),
        new ByteRange(5000, 5), new ByteRange(Long.MAX_VALUE - 1, Integer.MAX_VALUE)));
    assertThat(got.get(0)).as("ends with the object").containsExactly(Arrays.copyOfRange(data, 990, 1000));
    assertThat(got.get(1)).as("at the end").isEmpty();
    assertThat(got.get(2)).as("past the end").isEmpty();
    assertThat(got.get(3)).as("far past the end").isEmpty();
  }

  @Test
  void readRangesOfNoRangesReadsNothing() {
    store.write("v", random(10, 12));
    assertThat(store.readRanges("v", List.of())).isEmpty();
    assertThat(store.readRanges("no/such/key", List.of())).as("no I/O, so no existence check").isEmpty();
  }

  @Test
  void readRangesOfMissingKeyIsObjectNotFound() {
    assertThatExceptionOfType(ObjectNotFoundException.class)
        .isThrownBy(() -> store.readRanges("no/such/key", List.of(new ByteRange(0, 4), new ByteRange(8, 4))));
    assertThatExceptionOfType(ObjectNotFoundException.class).as("a zero-length range still reads")
        .isThrownBy(() -> store.readRanges("no/such/key", List.of(new ByteRange(0, 0))));
  }

  @Test
  void readRangesRejectsBadArgumentsBeforeAnyRead() {
    store.write("v", random(10, 13));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> store.readRanges("v", null));
    assertThatExceptionOfType(InvalidArgumentException.class)
        .isThrownBy(() -> store.readRanges("v", Arrays.asList(new ByteRange(0, 1), null)));
    assertThatExceptionOfType(InvalidArgumentException.class)
        .isThrownBy(() -> store.readRanges("../v", List.of(new ByteRange(0, 1))));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> new ByteRange(-1, 1));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> new ByteRange(0, -1));
  }

  // ---- streaming writer

  @Test
  void writerStreamsMultipleMebibytesByteExact() throws Exception {
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
        assertThat(w.position()).isEqualTo(pos);
      }
    }
    assertThat(store.head("big/stream.bin").orElseThrow().size()).isEqualTo(data.length);
    assertThat(store.read("big/stream.bin")).containsExactly(data);
  }

  @Test
  void writerPublishesNothingBeforeClose() throws Exception {
    ObjectWriter w = store.openWriter("pending/obj");
    w.write(random(100_000, 6));
    w.flush();
    assertThat(store.head("pending/obj")).isEqualTo(Optional.empty());
    assertThat(keys("")).isEqualTo(List.of());
    w.close();
    assertThat(store.head("pending/obj").orElseThrow().size()).isEqualTo(100_000);
    w.close(); // idempotent
  }

  @Test
  void writerOfEmptyObject() throws Exception {
    store.openWriter("zero").close();
    assertThat(store.read("zero")).containsExactly(new byte[0]);
  }

  @Test
  void abortLeavesNothingAndCloseAfterAbortDoesNothing() throws Exception {
    ObjectWriter w = store.openWriter("aborted/obj");
    w.write(random(300_000, 7));
    w.abort();
    w.close();
    assertThat(store.head("aborted/obj")).isEqualTo(Optional.empty());
    assertThat(keys("")).isEqualTo(List.of());
    assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> w.write(1));
  }

  @Test
  void abortKeepsThePreviousObject() throws Exception {
    store.write("k", bytes("old"));
    ObjectWriter w = store.openWriter("k");
    w.write(bytes("new"));
    w.abort();
    assertThat(store.read("k")).containsExactly(bytes("old"));
  }

  @Test
  void failedProducerNeverPublishesAPartialObject() {
    // The usual pattern: abort in the catch, then try-with-resources closes the writer.
    assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> {
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
    assertThat(store.head("partial")).isEqualTo(Optional.empty());
    assertThat(keys("")).isEqualTo(List.of());
  }

  @Test
  void writerReplacesLikeWrite() throws Exception {
    store.write("k", bytes("old"));
    try (ObjectWriter w = store.openWriter("k")) {
      w.write(bytes("newer"));
    }
    assertThat(store.read("k")).containsExactly(bytes("newer"));
  }

  // ---- putIfAbsent

  @Test
  void putIfAbsentCreatesOnceAndLeavesContentUntouched() {
    assertThat(store.putIfAbsent("once", bytes("winner"))).isEqualTo(PutResult.CREATED);
    assertThat(store.putIfAbsent("once", bytes("loser, longer bytes"))).isEqualTo(PutResult.ALREADY_EXISTS);
    assertThat(store.read("once")).containsExactly(bytes("winner"));
    assertThat(keys("")).isEqualTo(List.of("once"));
  }

  @Test
  void putIfAbsentSeesObjectsFromWrite() {
    store.write("w", bytes("x"));
    assertThat(store.putIfAbsent("w", bytes("y"))).isEqualTo(PutResult.ALREADY_EXISTS);
    assertThat(store.read("w")).containsExactly(bytes("x"));
  }

  @Test
  void putIfAbsentAfterDeleteCreatesAgain() {
    assertThat(store.putIfAbsent("d", bytes("1"))).isEqualTo(PutResult.CREATED);
    store.delete("d");
    assertThat(store.putIfAbsent("d", bytes("2"))).isEqualTo(PutResult.CREATED);
    assertThat(store.read("d")).containsExactly(bytes("2"));
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
        assertThat(winners.size()).as("round " + round + " winners " + winners).isEqualTo(1);
        assertThat(store.read(key)).containsExactly(bytes("thread-" + winners.get(0) + "-round-" + round));
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(keys("race/").size()).isEqualTo(rounds);
  }

  // ---- listing

  @Test
  void listOfEmptyStoreOrUnknownPrefixIsEmpty() {
    assertThat(store.list("", Optional.empty(), 10)).isEqualTo(new ListPage(List.of(), false));
    store.write("a/b", bytes("x"));
    assertThat(store.list("nothing/", Optional.empty(), 10)).isEqualTo(new ListPage(List.of(), false));
    assertThat(store.list("a/b/", Optional.empty(), 10)).isEqualTo(new ListPage(List.of(), false));
    assertThat(store.list("", Optional.of("a/b"), 10)).isEqualTo(new ListPage(List.of(), false));
  }

  @Test
  void listRejectsNonPositiveMaxKeys() {
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> store.list("", Optional.empty(), 0));
  }

  @Test
  void listReportsSizes() {
    store.write("s/one", random(1, 9));
    store.write("s/three", random(3, 9));
    List<ObjectInfo> all = store.listAll("s/");
    assertThat(all.stream().map(ObjectInfo::key).toList()).isEqualTo(List.of("s/one", "s/three"));
    assertThat(all.stream().map(ObjectInfo::size).toList()).isEqualTo(List.of(1L, 3L));
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
    assertThat(expected).isEqualTo(List.of("P", "p-r", "p.r", "p/a", "p/r-s", "p/r.s", "p/r/t", "p/r0", "p/z/y", "p0", "q"));
    assertThat(keys("")).isEqualTo(expected);
    assertThat(expected).isEqualTo(pageThrough("", 1));
    assertThat(keys("p/")).isEqualTo(List.of("p/a", "p/r-s", "p/r.s", "p/r/t", "p/r0", "p/z/y"));
    assertThat(keys("p/r")).as("a prefix that is not a directory").isEqualTo(List.of("p/r-s", "p/r.s", "p/r/t", "p/r0"));
    assertThat(keys("p")).isEqualTo(List.of("p-r", "p.r", "p/a", "p/r-s", "p/r.s", "p/r/t", "p/r0", "p/z/y", "p0"));
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
    assertThat(keys("u/")).isEqualTo(expected);
    assertThat(store.list("u/", Optional.of("u/\ue000"), 10).objects().stream().map(ObjectInfo::key).toList()).isEqualTo(List.of("u/\uD83D\uDE00"));
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

    assertThat(pageThrough("t/", 1000)).isEqualTo(underT);
    assertThat(pageThrough("t/", 7)).isEqualTo(underT);
    assertThat(pageThrough("t/", 1)).isEqualTo(underT);
    assertThat(pageThrough("", 1000)).isEqualTo(expected);
    assertThat(keys("t")).isEqualTo(expected.subList(0, expected.size() - 1));
    List<String> underT3 = underT.stream().filter(k -> k.startsWith("t/3/k1")).toList();
    assertThat(pageThrough("t/3/k1", 7)).isEqualTo(underT3);

    // startAfter: strictly after, whether or not the key exists, and may sort before the prefix.
    String mid = underT.get(1234);
    assertThat(names(store.list("t/", Optional.of(mid), 10))).isEqualTo(underT.subList(1235, 1245));
    assertThat(names(store.list("t/", Optional.of("a"), 5))).isEqualTo(underT.subList(0, 5));
    assertThat(names(store.list("t/", Optional.of("t/"), 5))).isEqualTo(underT.subList(0, 5));
    assertThat(names(store.list("t/", Optional.of(mid + "\u0000"), 5))).isEqualTo(underT.subList(1235, 1240));
    ListPage last = store.list("t/", Optional.of(underT.get(underT.size() - 2)), 5);
    assertThat(names(last)).isEqualTo(List.of(underT.get(underT.size() - 1)));
    assertThat(last.hasMore()).isFalse();
    assertThat(store.list("t/", Optional.of("t0"), 5)).isEqualTo(new ListPage(List.of(), false));
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
      assertThat(page.objects().size() <= pageSize).isTrue();
      all.addAll(names(page));
      if (!page.hasMore()) {
        return all;
      }
      assertThat(page.objects().isEmpty()).as("hasMore with an empty page").isFalse();
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
        assertThat(page.objects()).as("prefix " + prefix).isEqualTo(List.of());
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
    assertThat(store.head("x/y")).isEqualTo(Optional.empty());
    assertThatExceptionOfType(ObjectNotFoundException.class).isThrownBy(() -> store.read("x/y"));
    store.delete("x/y");
    store.delete("never/existed");
    assertThat(keys("")).isEqualTo(List.of());
  }

  @Test
  void deleteAllRemovesPresentAndIgnoresMissing() {
    for (String k : List.of("a/1", "a/2", "b/3", "keep")) {
      store.write(k, bytes(k));
    }
    assertThat(store.deleteAll(List.of("a/1", "missing", "b/3", "a/2", "also/missing"))).isEqualTo(List.of());
    assertThat(keys("")).isEqualTo(List.of("keep"));
    assertThat(store.deleteAll(List.of())).isEqualTo(List.of());
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
    assertThat(keys("")).isEqualTo(List.of());
  }

  private static void rejects(String key, String method, org.junit.jupiter.api.function.Executable call) {
    try {
      call.execute();
      fail(method + " accepted invalid key '" + key + "'");
    } catch (InvalidArgumentException expected) {
      assertThat(expected.getMessage().contains("invalid object key")).as(expected.getMessage()).isTrue();
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
    assertThat(store.read("k")).as("a refused call changed nothing").containsExactly(bytes("x"));
    assertThat(keys("")).isEqualTo(List.of("k"));
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
    assertThat(keys("a/.")).isEqualTo(List.of("a/.b"));
    assertThat(keys("a")).isEqualTo(List.of("a/.b"));
    assertThat(keys("..")).as("keys such as '..x' would match; there are none").isEqualTo(List.of());
  }

  @Test
  void deleteAllChecksEveryKeyBeforeDeletingAny() {
    store.write("a/1", bytes("1"));
    store.write("a/2", bytes("2"));
    InvalidArgumentException e =
        assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> store.deleteAll(List.of("a/1", "../escape", "a/2"))).actual();
    assertThat(e.getMessage().contains("invalid object key '../escape'")).as(e.getMessage()).isTrue();
    assertThat(keys("a/")).as("nothing was deleted").isEqualTo(List.of("a/1", "a/2"));
  }

  @Test
  void zeroLengthReadOfAMissingKeyIsNotFound() {
    assertThatExceptionOfType(ObjectNotFoundException.class).isThrownBy(() -> store.readRange("no/such", 0, 0));
    assertThatExceptionOfType(ObjectNotFoundException.class).isThrownBy(() -> store.readRangeInto("no/such", 0, java.nio.ByteBuffer.allocate(0)));
  }

  private static void refuses(String call, org.junit.jupiter.api.function.Executable executable) {
    try {
      executable.execute();
      fail(call + " was accepted");
    } catch (InvalidArgumentException expected) {
      assertThat(expected.getMessage() == null || expected.getMessage().isBlank()).as(call + ": no message").isFalse();
    } catch (Throwable other) {
      fail(call + " threw " + other + " instead of InvalidArgumentException", other);
    }
  }

  // ---- the store's own temporaries

  /** Writes that finished, failed or were aborted leave no temporary behind: only a killed writer does. */
  @Test
  void finishedWritesLeaveNoTemporaries() throws Exception {
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
    assertThat(store.abandonedTemporaries(future)).isEqualTo(List.of());
    assertThat(store.deleteAbandonedTemporaries(future)).isEqualTo(List.of());
    assertThat(keys("t/")).isEqualTo(List.of("t/put", "t/streamed", "t/written"));
  }

  // ---- commit store on top

  @Test
  void commitStoreClaimsAndListsVersions() {
    CommitStore commits = new ObjectStoreCommitStore(store);
    assertThat(commits.latestVersion()).isEqualTo(Optional.empty());
    assertThat(commits.listVersions(10)).isEqualTo(List.of());
    for (long v = 0; v <= 12; v++) {
      assertThat(commits.claim(v, bytes("manifest " + v))).isEqualTo(ClaimResult.CLAIMED);
    }
    assertThat(commits.claim(7, bytes("rival"))).isEqualTo(ClaimResult.ALREADY_CLAIMED);
    assertThat(commits.read(7).orElseThrow()).containsExactly(bytes("manifest 7"));
    assertThat(commits.read(13)).isEqualTo(Optional.empty());
    assertThat(commits.latestVersion()).isEqualTo(Optional.of(12L));
    assertThat(commits.listVersions(3)).isEqualTo(List.of(12L, 11L, 10L));
    assertThat(commits.listVersions(100).size()).isEqualTo(13);
    assertThat(commits.versionsAfter(9)).isEqualTo(List.of(10L, 11L, 12L));
    assertThat(commits.versionsAfter(12)).isEqualTo(List.of());

    store.write("_versions/not-a-manifest", bytes("noise"));
    commits.claim(1_000_000_000_000L, bytes("big"));
    assertThat(commits.latestVersion()).isEqualTo(Optional.of(1_000_000_000_000L));
    commits.remove(3);
    assertThat(commits.read(3)).isEqualTo(Optional.empty());
    assertThat(commits.versionsAfter(-1).subList(0, 4)).isEqualTo(List.of(0L, 1L, 2L, 4L));
  }

  /** Messages and caches name a version by the commit store's location of it: under the store, one per version. */
  @Test
  void commitStoreLocatesEachVersionUnderTheStore() {
    CommitStore commits = CommitStore.of(store);
    assertThat(commits.location().startsWith(store.location())).as(commits.location()).isTrue();
    assertThat(commits.locationOf(7).startsWith(commits.location())).as(commits.locationOf(7)).isTrue();
    assertThat(commits.locationOf(8)).isNotEqualTo(commits.locationOf(7));
    commits.claim(7, bytes("m"));
    assertThat(keys("").size()).isEqualTo(1);
    assertThat(commits.locationOf(7)).isEqualTo(store.locationOf(keys("").get(0)));
  }
}
