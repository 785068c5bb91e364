package io.quiver.conformance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
      assertThat(w.position()).isEqualTo(pos);
    }
  }

  // ---- large objects

  @Test
  void largeStreamingWriteGoesInPartsAndRoundTripsByteExact() throws Exception {
    LargeObjects large = large();
    int part = large.partSize();
    byte[] data = random(large.threshold() + 2 * part + 12_345, 11);
    try (ObjectStore s = largeStore(large)) {
      LargeObjects.Watch watch = large.watch(s);
      ObjectWriter w = s.openWriter("big/object.bin");
      writeInOddChunks(w, data);
      watch.assertUploading("big/object.bin");
      assertThat(s.head("big/object.bin")).as("nothing is visible before close").isEqualTo(Optional.empty());
      w.close();
      watch.assertNothingPending();
      watch.assertWrittenInParts("big/object.bin", data.length);
      assertThat(s.head("big/object.bin").orElseThrow().size()).isEqualTo(data.length);
      assertThat(s.read("big/object.bin")).containsExactly(data);
      assertThat(s.readRange("big/object.bin", part - 5, part + 12)).as("a range across part boundaries").containsExactly(Arrays.copyOfRange(data, part - 5, 2 * part + 7));
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
      assertThat(s.read("a.bin")).containsExactly(data);
      s.write("a.bin", smaller);
      watch.assertWrittenInParts("a.bin", smaller.length);
      assertThat(s.read("a.bin")).containsExactly(smaller);
      watch.assertNothingPending();
    }
  }

  @Test
  void abortedLargeWriterLeavesNothingAndKeepsThePreviousObject() throws Exception {
    LargeObjects large = large();
    try (ObjectStore s = largeStore(large)) {
      LargeObjects.Watch watch = large.watch(s);
      s.write("keep", bytes("old"));
      ObjectWriter replacing = s.openWriter("keep");
      writeInOddChunks(replacing, random(large.threshold() + 2 * large.partSize() + 3, 14));
      watch.assertUploading("keep");
      replacing.abort();
      replacing.close();
      assertThat(s.read("keep")).as("an aborted upload replaced the object").containsExactly(bytes("old"));

      ObjectWriter fresh = s.openWriter("aborted/big");
      writeInOddChunks(fresh, random(large.threshold() + 3 * large.partSize() + 17, 15));
      watch.assertUploading("aborted/big");
      fresh.abort();
      fresh.close();
      watch.assertNothingPending();
      assertThat(s.head("aborted/big")).isEqualTo(Optional.empty());
      assertThatExceptionOfType(ObjectNotFoundException.class).isThrownBy(() -> s.read("aborted/big"));
      assertThat(keys(s, "")).isEqualTo(List.of("keep"));
      assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> fresh.write(1));
    }
  }

  @Test
  void largeWriterReplacesAnExistingObjectOnlyOnClose() throws Exception {
    LargeObjects large = large();
    byte[] data = random(large.threshold() + large.partSize() + 99, 16);
    try (ObjectStore s = largeStore(large)) {
      LargeObjects.Watch watch = large.watch(s);
      s.write("k", new byte[] {7});
      ObjectWriter w = s.openWriter("k");
      writeInOddChunks(w, data);
      assertThat(s.read("k")).containsExactly(new byte[]{7});
      w.close();
      watch.assertWrittenInParts("k", data.length);
      assertThat(s.read("k")).containsExactly(data);
    }
  }

  @Test
  void putIfAbsentNeverOverwritesALargeObjectNorWritesOneOverAnObject() throws Exception {
    LargeObjects large = large();
    int above = large.threshold() + large.partSize() + 5;
    try (ObjectStore s = largeStore(large)) {
      LargeObjects.Watch watch = large.watch(s);
      byte[] streamed = random(above, 17);
      try (ObjectWriter w = s.openWriter("streamed")) {
        w.write(streamed);
      }
      watch.assertWrittenInParts("streamed", streamed.length);
      assertThat(s.putIfAbsent("streamed", new byte[]{1})).as("small over large").isEqualTo(PutResult.ALREADY_EXISTS);
      assertThat(s.putIfAbsent("streamed", random(above + 1, 18))).as("large over large").isEqualTo(PutResult.ALREADY_EXISTS);
      assertThat(s.read("streamed")).containsExactly(streamed);

      byte[] first = random(above, 19);
      assertThat(s.putIfAbsent("once", first)).isEqualTo(PutResult.CREATED);
      if (large.partedPutIfAbsent()) {
        watch.assertWrittenInParts("once", first.length);
      }
      assertThat(s.putIfAbsent("once", random(above + 7, 20))).isEqualTo(PutResult.ALREADY_EXISTS);
      assertThat(s.putIfAbsent("once", new byte[10])).as("small over large").isEqualTo(PutResult.ALREADY_EXISTS);
      assertThat(s.read("once")).containsExactly(first);

      s.write("written", new byte[3]);
      assertThat(s.putIfAbsent("written", random(above, 21))).as("large over small").isEqualTo(PutResult.ALREADY_EXISTS);
      assertThat(s.read("written")).containsExactly(new byte[3]);
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
        assertThat(winners.size()).as("round " + round + " winners " + winners).isEqualTo(1);
        assertThat(s.read(key)).containsExactly(random(size, round * 100L + winners.get(0)));
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
      assertThat(store.read(k)).as(k).containsExactly(k.getBytes(UTF_8));
      assertThat(store.putIfAbsent(k, new byte[1])).as(k).isEqualTo(PutResult.ALREADY_EXISTS);
    }
    assertThat(new HashSet<>(keys(store, "u/"))).isEqualTo(new HashSet<>(keys));
    assertThat(store.deleteAll(keys)).isEqualTo(List.of());
    assertThat(store.listAll("")).isEqualTo(List.of());
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
    assertThat(utf8).isEqualTo(List.of("m/a", "m/z", "m/\u00e9", "m/\ue000", "m/\ue000x", "m/\ufffd", "m/\uD83D\uDE00", "m/\uD83D\uDE00a"));
    assertThat(keys(store, "").stream().filter(k -> k.startsWith("m/")).toList()).isEqualTo(utf8);
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
      assertThat(paged).as("page size " + pageSize).isEqualTo(utf8);
    }
    assertThat(store.list("m/", Optional.of("m/\ufffd"), 10).objects().stream().map(ObjectInfo::key).toList()).isEqualTo(List.of("m/\uD83D\uDE00", "m/\uD83D\uDE00a"));
  }
}
