package io.quiver.conformance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.store.Keys;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore.ObjectWriter;
import io.quiver.store.ObjectStore.PutResult;
import io.quiver.store.ObjectStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
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
 * The part of the {@link io.quiver.store.ObjectStore} contract that depends on what a store can do, each
 * test gated by a capability hook of the fixture and skipped, with the store's reason, where it is missing:
 *
 * <ul>
 *   <li>large objects ({@link StoreFixture#largeObjects()}): writes above the store's multipart threshold go
 *       through its parted path (multipart upload, resumable upload, staged blocks), byte-exact, invisible
 *       until closed, and leave nothing behind when aborted; conditional puts never overwrite large objects,
 *       and a conditional put that itself goes in parts still has exactly one winner;
 *   <li>non-ASCII keys ({@link Capability#NON_ASCII_KEYS}, {@link Capability#UTF8_LISTING_ORDER}): round trips of
 *       keys outside ASCII, and pages in UTF-8 byte order across keys above U+FFFF.
 * </ul>
 *
 * These were copies in each adapter's own test class; the store-specific part (how to see the parts behind
 * the adapter's back) is the fixture's {@link LargeObjects.Watch}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
public abstract class ObjectStoreCapabilityContract extends StoreSuite {
  /** Odd write sizes: single bytes, primes around a megabyte and a few bytes, so writes straddle parts. */
  private static final int[] CHUNKS = {1, 999_983, 7, 3_000_017, 65_521, 13};

  protected ObjectStore store;
  private String name;

  @BeforeEach
  void openStore(TestInfo info) {
    name = info.getTestMethod().map(m -> m.getName()).orElse("test") + "-"
        + Long.toHexString(new Random().nextLong() & Long.MAX_VALUE);
    store = fixture().newStore(name);
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

  private static List<String> keys(ObjectStore s, String prefix) {
    return s.listAll(prefix).stream().map(ObjectInfo::key).toList();
  }

  /** The store's large-object settings; skips the test when it writes every object in one request. */
  private LargeObjects large() {
    Optional<LargeObjects> large = fixture().largeObjects();
    org.junit.jupiter.api.Assumptions.assumeTrue(large.isPresent(),
        "the store writes every object in one request: no parted path to test");
    return large.get();
  }

  /** A second handle on the same root as {@link #store}, with the large-object options. */
  private ObjectStore largeStore(LargeObjects large) {
    return fixture().newStore(name + "-large", large.options());
  }

  /** Writes {@code data} in {@link #CHUNKS}-sized pieces, checking the position after each. */
  private static void writeInOddChunks(ObjectWriter w, byte[] data) throws IOException {
    int pos = 0;
    for (int i = 0; pos < data.length; i++) {
      int n = Math.min(CHUNKS[i % CHUNKS.length], data.length - pos);
      if (n == 1) {
        w.write(data[pos] & 0xff);
      } else {
        w.write(data, pos, n);
      }
      pos += n;
      assertEquals(pos, w.position());
    }
  }

  // ---- large objects

  @Test
  void largeStreamingWriteGoesInPartsAndRoundTripsByteExact() throws IOException {
    LargeObjects large = large();
    int part = large.partSize();
    byte[] data = random(large.threshold() + 2 * part + 12_345, 11);
    try (ObjectStore s = largeStore(large)) {
      LargeObjects.Watch watch = large.watch(s);
      ObjectWriter w = s.openWriter("big/object.bin");
      writeInOddChunks(w, data);
      watch.assertUploading("big/object.bin");
      assertEquals(Optional.empty(), s.head("big/object.bin"), "nothing is visible before close");
      w.close();
      watch.assertNothingPending();
      watch.assertWrittenInParts("big/object.bin", data.length);
      assertEquals(data.length, s.head("big/object.bin").orElseThrow().size());
      assertArrayEquals(data, s.read("big/object.bin"));
      assertArrayEquals(Arrays.copyOfRange(data, part - 5, 2 * part + 7), s.readRange("big/object.bin", part - 5, part + 12),
          "a range across part boundaries");
    }
  }

  @Test
  void largeArrayWriteGoesInPartsAndReplacesLikeAnyWrite() {
    LargeObjects large = large();
    byte[] data = random(large.threshold() + 2 * large.partSize() + 3, 12);
    byte[] smaller = random(large.threshold() + large.partSize() / 2, 13);
    try (ObjectStore s = largeStore(large)) {
      LargeObjects.Watch watch = large.watch(s);
      s.write("a.bin", data);
      watch.assertWrittenInParts("a.bin", data.length);
      assertArrayEquals(data, s.read("a.bin"));
      s.write("a.bin", smaller);
      watch.assertWrittenInParts("a.bin", smaller.length);
      assertArrayEquals(smaller, s.read("a.bin"));
      watch.assertNothingPending();
    }
  }

  @Test
  void abortedLargeWriterLeavesNothingAndKeepsThePreviousObject() throws IOException {
    LargeObjects large = large();
    try (ObjectStore s = largeStore(large)) {
      LargeObjects.Watch watch = large.watch(s);
      s.write("keep", bytes("old"));
      ObjectWriter replacing = s.openWriter("keep");
      writeInOddChunks(replacing, random(large.threshold() + 2 * large.partSize() + 3, 14));
      watch.assertUploading("keep");
      replacing.abort();
      replacing.close();
      assertArrayEquals(bytes("old"), s.read("keep"), "an aborted upload replaced the object");

      ObjectWriter fresh = s.openWriter("aborted/big");
      writeInOddChunks(fresh, random(large.threshold() + 3 * large.partSize() + 17, 15));
      watch.assertUploading("aborted/big");
      fresh.abort();
      fresh.close();
      watch.assertNothingPending();
      assertEquals(Optional.empty(), s.head("aborted/big"));
      assertThrows(ObjectNotFoundException.class, () -> s.read("aborted/big"));
      assertEquals(List.of("keep"), keys(s, ""));
      assertThrows(IllegalStateException.class, () -> fresh.write(1));
    }
  }

  @Test
  void largeWriterReplacesAnExistingObjectOnlyOnClose() throws IOException {
    LargeObjects large = large();
    byte[] data = random(large.threshold() + large.partSize() + 99, 16);
    try (ObjectStore s = largeStore(large)) {
      LargeObjects.Watch watch = large.watch(s);
      s.write("k", new byte[] {7});
      ObjectWriter w = s.openWriter("k");
      writeInOddChunks(w, data);
      assertArrayEquals(new byte[] {7}, s.read("k"));
      w.close();
      watch.assertWrittenInParts("k", data.length);
      assertArrayEquals(data, s.read("k"));
    }
  }

  @Test
  void putIfAbsentNeverOverwritesALargeObjectNorWritesOneOverAnObject() throws IOException {
    LargeObjects large = large();
    int above = large.threshold() + large.partSize() + 5;
    try (ObjectStore s = largeStore(large)) {
      LargeObjects.Watch watch = large.watch(s);
      byte[] streamed = random(above, 17);
      try (ObjectWriter w = s.openWriter("streamed")) {
        w.write(streamed);
      }
      watch.assertWrittenInParts("streamed", streamed.length);
      assertEquals(PutResult.ALREADY_EXISTS, s.putIfAbsent("streamed", new byte[] {1}), "small over large");
      assertEquals(PutResult.ALREADY_EXISTS, s.putIfAbsent("streamed", random(above + 1, 18)), "large over large");
      assertArrayEquals(streamed, s.read("streamed"));

      byte[] first = random(above, 19);
      assertEquals(PutResult.CREATED, s.putIfAbsent("once", first));
      if (large.partedPutIfAbsent()) {
        watch.assertWrittenInParts("once", first.length);
      }
      assertEquals(PutResult.ALREADY_EXISTS, s.putIfAbsent("once", random(above + 7, 20)));
      assertEquals(PutResult.ALREADY_EXISTS, s.putIfAbsent("once", new byte[10]), "small over large");
      assertArrayEquals(first, s.read("once"));

      s.write("written", new byte[3]);
      assertEquals(PutResult.ALREADY_EXISTS, s.putIfAbsent("written", random(above, 21)), "large over small");
      assertArrayEquals(new byte[3], s.read("written"));
      watch.assertNothingPending();
    }
  }

  /** Racing conditional creates that all take the parted path: exactly one commit may win. */
  @Test
  void racingLargePutIfAbsentHasExactlyOneWinner() throws Exception {
    LargeObjects large = large();
    org.junit.jupiter.api.Assumptions.assumeTrue(large.partedPutIfAbsent(),
        "the store's conditional put is one request at any size: no parted conditional create to race");
    int threads = 8;
    int rounds = 10;
    int size = large.threshold() + 6 * large.partSize() + 77;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (ObjectStore s = largeStore(large)) {
      LargeObjects.Watch watch = large.watch(s);
      for (int round = 0; round < rounds; round++) {
        String key = "race-large/round-" + round;
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<PutResult>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          byte[] payload = random(size, round * 100L + t);
          results.add(pool.submit(() -> {
            ready.countDown();
            go.await();
            return s.putIfAbsent(key, payload);
          }));
        }
        ready.await();
        go.countDown();
        List<Integer> winners = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          if (results.get(t).get(120, TimeUnit.SECONDS) == PutResult.CREATED) {
            winners.add(t);
          }
        }
        assertEquals(1, winners.size(), "round " + round + " winners " + winners);
        assertArrayEquals(random(size, round * 100L + winners.get(0)), s.read(key));
        watch.assertWrittenInParts(key, size);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- non-ASCII keys

  @Test
  void nonAsciiKeysRoundTrip() {
    assumeCapable(Capability.NON_ASCII_KEYS);
    List<String> keys = List.of("u/z", "u/\u00e9", "u/\ue000", "u/\uD83D\uDE00", "u/sp ace+plus%25&amp");
    for (String k : keys) {
      store.write(k, k.getBytes(UTF_8));
    }
    for (String k : keys) {
      assertArrayEquals(k.getBytes(UTF_8), store.read(k), k);
      assertEquals(PutResult.ALREADY_EXISTS, store.putIfAbsent(k, new byte[1]), k);
    }
    assertEquals(new HashSet<>(keys), new HashSet<>(keys(store, "u/")));
    assertEquals(List.of(), store.deleteAll(keys));
    assertEquals(List.of(), store.listAll(""));
  }

  /**
   * Keys above U+FFFF sort after U+E000-U+FFFF in UTF-8 but before them in UTF-16: whatever order the
   * service lists in, every page size gives UTF-8 byte order.
   */
  @Test
  void nonAsciiKeysPageInUtf8OrderAtEveryPageSize() {
    assumeCapable(Capability.NON_ASCII_KEYS);
    assumeCapable(Capability.UTF8_LISTING_ORDER);
    List<String> written = List.of("m/z", "m/\u00e9", "m/\ue000", "m/\ue000x", "m/\uD83D\uDE00", "m/\uD83D\uDE00a", "m/\ufffd", "m/a");
    for (String k : written) {
      store.write(k, k.getBytes(UTF_8));
    }
    List<String> utf8 = new ArrayList<>(written);
    utf8.sort(Keys.ORDER);
    assertEquals(List.of("m/a", "m/z", "m/\u00e9", "m/\ue000", "m/\ue000x", "m/\ufffd", "m/\uD83D\uDE00", "m/\uD83D\uDE00a"), utf8);
    assertEquals(utf8, keys(store, "").stream().filter(k -> k.startsWith("m/")).toList());
    for (int pageSize : new int[] {1, 2, 3}) {
      List<String> paged = new ArrayList<>();
      Optional<String> after = Optional.empty();
      while (true) {
        var page = store.list("m/", after, pageSize);
        page.objects().forEach(o -> paged.add(o.key()));
        if (!page.hasMore()) {
          break;
        }
        after = Optional.of(paged.get(paged.size() - 1));
      }
      assertEquals(utf8, paged, "page size " + pageSize);
    }
    assertEquals(List.of("m/\uD83D\uDE00", "m/\uD83D\uDE00a"),
        store.list("m/", Optional.of("m/\ufffd"), 10).objects().stream().map(ObjectInfo::key).toList());
  }
}
