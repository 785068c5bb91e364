package io.quiver.internal.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.quiver.dataset.RowAddress;
import io.quiver.dataset.Session;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.internal.codec.IndexCodec;
import io.quiver.internal.file.StatValues;
import io.quiver.internal.predicate.KeyConditions;
import io.quiver.internal.proto.BtreePage;
import io.quiver.internal.proto.IndexFooter;
import io.quiver.internal.proto.IndexPage;
import io.quiver.internal.proto.IndexPageRef;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.IndexSegment;
import io.quiver.manifest.IndexedFragment;
import io.quiver.manifest.ScalarIndex;
import io.quiver.manifest.StatValue;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/**
 * Compact btree pages (docs/format.md §13.2, magic {@code QVXC}): for every key kind, lookups (equality, ranges,
 * IN, IS NULL) return what the {@code QVXP} pages of older builds return and what a scan of the entries says; a
 * reader that knows only {@code QVXP} refuses the new pages instead of reading them as empty; damaged pages are a
 * {@link CorruptFileException} naming the file; the radix sort orders as §3.1 does; page byte budgets split pages.
 */
class CompactBtreePageTest {
  private static final int FIELD = 3;
  private final MemoryObjectStore store = new MemoryObjectStore("memory://compact-pages/t");
  private final TableIo io = new TableIo(store, new ObjectStoreCommitStore(store), new Session(1 << 20));
  private int files;

  /** A (key, address) pair as the builder adds it. */
  private record Entry(StatValue key, long address) {}

  private static KeyConditions.Bound bound(StatValue literal) {
    return key -> StatValues.compare(key, literal);
  }

  private static KeyConditions.Interval eq(StatValue v) {
    return new KeyConditions.Interval(bound(v), true, bound(v), true);
  }

  private IndexSegment writeSegment(ScalarIndex.Kind kind, List<Entry> entries, Map<Long, RoaringBitmap> nulls,
      SegmentFile.BtreeEncoding encoding) {
    IndexEntries e = new IndexEntries();
    entries.forEach(x -> e.add(x.key(), x.address()));
    e.sort();
    SegmentFile.Written w = SegmentFile.write(kind, FIELD, e, nulls, encoding);
    String path = "_indices/u/" + (files++) + ".idx";
    store.write(path, w.bytes());
    return new IndexSegment(path, w.bytes().length, w.footerOffset(), w.footerLength(), 1, w.rows(),
        List.of(new IndexedFragment(0, 1, List.of("data/x.arrow"))));
  }

  /** What a lookup must return: the entries whose key is in one of the intervals, and the null rows if asked. */
  private static Map<Long, RoaringBitmap> expected(List<Entry> entries, Map<Long, RoaringBitmap> nulls,
      KeyConditions.Condition c) {
    Map<Long, RoaringBitmap> out = new TreeMap<>();
    for (Entry x : entries) {
      if (c.intervals().stream().anyMatch(i -> i.contains(x.key()))) {
        out.computeIfAbsent(RowAddress.fragmentId(x.address()), f -> new RoaringBitmap())
            .add((int) RowAddress.offset(x.address()));
      }
    }
    if (c.nulls()) {
      nulls.forEach((f, o) -> out.computeIfAbsent(f, x -> new RoaringBitmap()).or(o));
    }
    return out;
  }

  /** Conditions over the keys of {@code entries}: equality on present and absent keys, ranges, IN, IS NULL. */
  private static List<KeyConditions.Condition> conditions(List<Entry> entries, List<StatValue> absent, Random r) {
    List<StatValue> keys = entries.stream().map(Entry::key).sorted(StatValues::compare).distinct().toList();
    List<KeyConditions.Condition> out = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      out.add(new KeyConditions.Condition(FIELD, List.of(eq(keys.get(r.nextInt(keys.size())))), false));
    }
    for (StatValue a : absent) {
      out.add(new KeyConditions.Condition(FIELD, List.of(eq(a)), false));
    }
    for (int i = 0; i < 10; i++) {
      StatValue lo = keys.get(r.nextInt(keys.size()));
      StatValue hi = keys.get(r.nextInt(keys.size()));
      if (StatValues.compare(lo, hi) > 0) {
        StatValue t = lo;
        lo = hi;
        hi = t;
      }
      out.add(new KeyConditions.Condition(FIELD, List.of(new KeyConditions.Interval(bound(lo), i % 2 == 0,
          bound(hi), i % 3 == 0)), false));
      out.add(new KeyConditions.Condition(FIELD, List.of(new KeyConditions.Interval(bound(lo), false, null,
          false)), false));
      out.add(new KeyConditions.Condition(FIELD, List.of(new KeyConditions.Interval(null, false, bound(hi),
          true)), i == 0));
    }
    List<KeyConditions.Interval> in = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      in.add(eq(keys.get(r.nextInt(keys.size()))));
    }
    absent.forEach(a -> in.add(eq(a)));
    out.add(new KeyConditions.Condition(FIELD, in, false));
    out.add(new KeyConditions.Condition(FIELD, List.of(), true));
    out.add(new KeyConditions.Condition(FIELD, List.of(new KeyConditions.Interval(null, false, null, false)), true));
    return out;
  }

  /** Writes the entries both ways and checks every condition against both and against the entries. */
  private void assertSameAnswers(List<Entry> entries, Map<Long, RoaringBitmap> nulls, List<StatValue> absent) {
    IndexSegment compact = writeSegment(ScalarIndex.Kind.BTREE, entries, nulls, SegmentFile.BtreeEncoding.COMPACT);
    IndexSegment legacy = writeSegment(ScalarIndex.Kind.BTREE, entries, nulls, SegmentFile.BtreeEncoding.LEGACY);
    byte[] first = store.readRange(compact.path(), 0, 4);
    assertThat(new String(first, StandardCharsets.US_ASCII)).isEqualTo("QVXC");
    assertThat(compact.sizeBytes()).isLessThan(legacy.sizeBytes());
    Random r = new Random(entries.size());
    for (KeyConditions.Condition c : conditions(entries, absent, r)) {
      Map<Long, RoaringBitmap> want = expected(entries, nulls, c);
      assertThat(SegmentFile.lookup(io, compact, c)).as("compact " + c).isEqualTo(want);
      assertThat(SegmentFile.lookup(io, legacy, c)).as("legacy " + c).isEqualTo(want);
    }
    // validate() decodes every page and checks it against the footer.
    IndexFiles.verify(io, index(compact), compact, store.readRange(compact.path(), 0, (int) compact.sizeBytes()));
    IndexFiles.verify(io, index(legacy), legacy, store.readRange(legacy.path(), 0, (int) legacy.sizeBytes()));
  }

  private static ScalarIndex index(IndexSegment s) {
    return new ScalarIndex("u", "i", ScalarIndex.Kind.BTREE, FIELD, 1, List.of(s));
  }

  /** {@code rows} entries over fragments of {@code fragmentRows} rows, keys from {@code key}, shuffled. */
  private static List<Entry> entries(int rows, int fragmentRows, Function<Integer, StatValue> key, Random r) {
    List<Entry> out = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      out.add(new Entry(key.apply(i), RowAddress.of(i / fragmentRows, i % fragmentRows)));
    }
    java.util.Collections.shuffle(out, r); // the builder adds in address order; the sort must not depend on it
    return out;
  }

  private static Map<Long, RoaringBitmap> nulls() {
    return Map.of(0L, RoaringBitmap.bitmapOf(5_000_000), 9L, RoaringBitmap.bitmapOf(1, 2, 3));
  }

  @Test
  void distinctIntegerKeysAnswerAsLegacyPages() {
    Random r = new Random(1);
    int[] perm = permutation(30_000, r);
    assertSameAnswers(entries(30_000, 7_000, i -> new StatValue.Int(perm[i] * 3L - 40_000), r), nulls(),
        List.of(new StatValue.Int(-40_001), new StatValue.Int(-39_999), new StatValue.Int(1L << 40)));
  }

  @Test
  void duplicateIntegerKeysAcrossFragmentsAnswerAsLegacyPages() {
    Random r = new Random(2);
    // Few keys, long runs spanning fragments (one run longer than a page), extremes of the signed range.
    assertSameAnswers(entries(20_000, 3_000, i -> new StatValue.Int(i < 5000 ? 7 : i % 3 == 0 ? Long.MIN_VALUE
        : i % 3 == 1 ? Long.MAX_VALUE : r.nextInt(50) - 25), r), Map.of(), List.of(new StatValue.Int(1000)));
  }

  @Test
  void unsignedKeysOrderUnsignedAndAnswerAsLegacyPages() {
    Random r = new Random(3);
    assertSameAnswers(entries(10_000, 4_096, i -> new StatValue.UInt64(i % 4 == 0 ? -1L - i : r.nextLong()), r),
        nulls(), List.of(new StatValue.UInt64(0), new StatValue.UInt64(Long.MIN_VALUE)));
  }

  @Test
  void stringKeysAnswerAsLegacyPages() {
    Random r = new Random(4);
    assertSameAnswers(entries(12_000, 5_000, i -> new StatValue.Bytes(("user-" + (i % 3000) + "-"
        + "x".repeat(i % 7)).getBytes(StandardCharsets.UTF_8)), r), nulls(),
        List.of(new StatValue.Bytes(new byte[0]), new StatValue.Bytes("user-".getBytes(StandardCharsets.UTF_8)),
            new StatValue.Bytes(new byte[] {(byte) 0xFF})));
  }

  @Test
  void binaryKeysWithHighBytesAndEmptyKeyAnswerAsLegacyPages() {
    Random r = new Random(5);
    assertSameAnswers(entries(3_000, 1_000, i -> {
      byte[] b = new byte[i % 5];
      Arrays.fill(b, (byte) (0xF0 + i % 13));
      return new StatValue.Bytes(b);
    }, r), Map.of(), List.of(new StatValue.Bytes(new byte[] {1})));
  }

  @Test
  void decimalAndBooleanKeysAnswerAsLegacyPages() {
    Random r = new Random(6);
    assertSameAnswers(entries(5_000, 2_000, i -> new StatValue.Decimal(BigInteger.valueOf(i % 900 - 450)
        .multiply(BigInteger.TEN.pow(i % 25))), r), nulls(), List.of(new StatValue.Decimal(BigInteger.ONE)));
    assertSameAnswers(entries(9_000, 2_000, i -> new StatValue.Bool(i % 3 == 0), r), nulls(), List.of());
  }

  private static int[] permutation(int n, Random r) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }

  @Test
  void radixSortOrdersSignedAndUnsignedKeysThenAddressesAsTheComparator() {
    Random r = new Random(7);
    for (boolean unsigned : new boolean[] {false, true}) {
      List<Entry> list = new ArrayList<>();
      for (int i = 0; i < 50_000; i++) {
        long k = switch (i % 5) {
          case 0 -> r.nextLong();
          case 1 -> r.nextInt(100) - 50;
          case 2 -> i % 2 == 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
          case 3 -> -1L;
          default -> r.nextInt(1 << 20);
        };
        long address = RowAddress.of(r.nextInt(5) + (i % 7 == 0 ? 0x8000_0000L : 0), r.nextInt(1 << 22));
        list.add(new Entry(unsigned ? new StatValue.UInt64(k) : new StatValue.Int(k), address));
      }
      IndexEntries e = new IndexEntries();
      list.forEach(x -> e.add(x.key(), x.address()));
      e.sort();
      List<Entry> want = new ArrayList<>(list);
      want.sort((a, b) -> {
        int c = StatValues.compare(a.key(), b.key());
        return c != 0 ? c : Long.compareUnsigned(a.address(), b.address());
      });
      assertThat(e.primitive()).isTrue();
      for (int i = 0; i < want.size(); i++) {
        assertThat(new Entry(e.key(i), e.address(i))).as("entry " + i + (unsigned ? " unsigned" : " signed"))
            .isEqualTo(want.get(i));
      }
    }
  }

  // ---------------------------------------------------------------- compatibility with QVXP-only readers

  private byte[] compactPageBytes() {
    IndexSegment s = writeSegment(ScalarIndex.Kind.BTREE, entries(100, 50, i -> new StatValue.Int(i), new Random(8)),
        Map.of(), SegmentFile.BtreeEncoding.COMPACT);
    IndexFooter f = IndexCodec.decodeFooter(store.readRange(s.path(), s.footerOffset(), s.footerLength()), "x");
    IndexPageRef p = f.getPages(0);
    return store.readRange(s.path(), p.getOffset(), (int) p.getLength());
  }

  @Test
  void aReaderThatKnowsOnlyQvxpPagesRefusesACompactPageInsteadOfReadingItAsEmpty() {
    byte[] page = compactPageBytes();
    // The decoding path of the first 1.3 builds: the QVXP envelope, then IndexPage.
    assertThatThrownBy(() -> IndexCodec.decodePage(page, "memory://t/_indices/u/0.idx"))
        .isInstanceOf(CorruptFileException.class).hasMessageContaining("memory://t/_indices/u/0.idx")
        .hasMessageContaining("expected magic QVXP");
    // Why a magic of its own: without it, the payload would parse as an IndexPage without keys (no rows and no
    // error, for a BtreePage with only fields 1, 2, 6), or fail by chance, depending on its bytes.
    BtreePage onlyCounts = BtreePage.newBuilder().setKeys(1).setRows(1).build();
    try {
      IndexPage asOld = IndexPage.parseFrom(onlyCounts.toByteArray());
      assertThat(asOld.getKeysCount()).isZero();
      assertThat(asOld.getAddressesCount()).isZero();
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError("expected an IndexPage without keys", e);
    }
  }

  // ---------------------------------------------------------------- damaged pages

  private static BtreePage payload(byte[] page) {
    return IndexCodec.decodeBtreePage(page, "x");
  }

  private static void assertCorrupt(Supplier<BtreePage> damaged, String message) {
    byte[] bytes = IndexCodec.encodeBtreePage(damaged.get());
    assertThatThrownBy(() -> SegmentFile.decodePage(bytes, "memory://t/_indices/u/d.idx", 0))
        .isInstanceOf(CorruptFileException.class).hasMessageContaining("memory://t/_indices/u/d.idx")
        .hasMessageContaining(message);
  }

  @Test
  void damagedCompactPagesAreCorruptFilesNamingTheFile() {
    BtreePage good = payload(compactPageBytes());
    assertThat(SegmentFile.decodePage(IndexCodec.encodeBtreePage(good), "x", 0).keys()).hasSize(100);
    ByteString keys = good.getKeyData();
    ByteString addresses = good.getAddressData();
    assertCorrupt(() -> good.toBuilder().setKeyData(keys.substring(0, keys.size() - 1)).build(), "truncated");
    assertCorrupt(() -> good.toBuilder().setKeyData(keys.concat(ByteString.copyFrom(new byte[] {1}))).build(),
        "left over");
    assertCorrupt(() -> good.toBuilder().setAddressData(addresses.substring(0, addresses.size() - 1)).build(),
        "bytes of addresses");
    byte[] ones = new byte[101];
    Arrays.fill(ones, (byte) 1);
    assertCorrupt(() -> good.toBuilder().setRowCounts(ByteString.copyFrom(ones)).build(), "row counts: 1 bytes left");
    assertCorrupt(() -> good.toBuilder().setKeys(101).build(), "for 101 keys");
    assertCorrupt(() -> good.toBuilder().setKeys(99).setRows(99).build(), ": keys: 1 bytes left over");
    assertCorrupt(() -> good.toBuilder().setKeys(0).build(), "at least one");
    assertCorrupt(() -> good.toBuilder().setRows(99).build(), "rows");
    assertCorrupt(() -> good.toBuilder().setRows(1L << 40).build(), "rows");
    assertCorrupt(() -> good.toBuilder().setRowCounts(ByteString.copyFrom(new byte[] {2})).build(), "row counts end");
    assertCorrupt(() -> good.toBuilder().setKeyKindValue(9).build(), "key kind 9");
    byte[] k = keys.toByteArray();
    k[1] = 0; // a difference of 0: keys not strictly ascending
    assertCorrupt(() -> good.toBuilder().setKeyData(ByteString.copyFrom(k)).build(), "ascending");
    byte[] tooLong = new byte[11];
    Arrays.fill(tooLong, (byte) 0xFF);
    assertCorrupt(() -> good.toBuilder().setKeyData(ByteString.copyFrom(tooLong)).build(), "64 bits");
    // A fragment id out of the 32-bit range.
    assertCorrupt(() -> good.toBuilder().setAddressData(ByteString.copyFrom(new byte[] {(byte) 0x80, (byte) 0x80,
        (byte) 0x80, (byte) 0x80, 0x10, 0})).setRows(1).setKeys(1).setKeyData(ByteString.copyFrom(new byte[] {0}))
        .build(), "out of range");
  }

  @Test
  void randomDamageIsACorruptFileOrAValidPageNeverAnotherException() {
    byte[] page = compactPageBytes();
    Random r = new Random(9);
    for (int t = 0; t < 3000; t++) {
      byte[] b = page.clone();
      int flips = 1 + r.nextInt(3);
      for (int f = 0; f < flips; f++) {
        b[8 + r.nextInt(b.length - 8)] ^= (byte) (1 << r.nextInt(8));
      }
      if (t % 3 == 0) {
        b = Arrays.copyOf(b, 8 + r.nextInt(b.length - 8));
      }
      resign(b);
      byte[] damaged = b;
      try {
        SegmentFile.decodePage(damaged, "memory://t/_indices/u/r.idx", 0);
      } catch (CorruptFileException e) {
        assertThat(e).hasMessageContaining("memory://t/_indices/u/r.idx");
      }
    }
  }

  /** Recomputes the envelope's CRC-32C, so that the damage reaches the page decoder. */
  private static void resign(byte[] envelope) {
    CRC32C crc = new CRC32C();
    crc.update(envelope, 8, envelope.length - 8);
    ByteBuffer.wrap(envelope, 4, 4).putInt((int) crc.getValue());
  }

  @Test
  void aTruncatedOrDamagedSegmentFileIsACorruptFileOnLookup() {
    List<Entry> list = entries(10_000, 3_000, i -> new StatValue.Int(i), new Random(10));
    IndexSegment s = writeSegment(ScalarIndex.Kind.BTREE, list, Map.of(), SegmentFile.BtreeEncoding.COMPACT);
    byte[] bytes = store.readRange(s.path(), 0, (int) s.sizeBytes());
    bytes[20] ^= 0x40;
    String damagedPath = "_indices/u/damaged.idx";
    store.write(damagedPath, bytes);
    IndexSegment damaged = new IndexSegment(damagedPath, s.sizeBytes(), s.footerOffset(), s.footerLength(), 1,
        s.rows(), s.fragments());
    KeyConditions.Condition c = new KeyConditions.Condition(FIELD, List.of(eq(new StatValue.Int(0))), false);
    assertThatThrownBy(() -> SegmentFile.lookup(io, damaged, c)).isInstanceOf(CorruptFileException.class)
        .hasMessageContaining(store.locationOf(damagedPath)).hasMessageContaining("checksum");
  }

  // ---------------------------------------------------------------- page budgets

  @Test
  void bitmapPagesCloseAtTheirByteBudget() {
    Random r = new Random(11);
    // 4 keys over 1.2M rows with random offsets: about 160 KB of postings a key, once all in one page.
    List<Entry> list = new ArrayList<>();
    for (int i = 0; i < 1_200_000; i++) {
      list.add(new Entry(new StatValue.Int(r.nextInt(4)), RowAddress.of(i / 300_000, i % 300_000)));
    }
    IndexSegment s = writeSegment(ScalarIndex.Kind.BITMAP, list, Map.of(), SegmentFile.BtreeEncoding.COMPACT);
    IndexFooter f = IndexCodec.decodeFooter(store.readRange(s.path(), s.footerOffset(), s.footerLength()), "x");
    assertThat(f.getPagesCount()).as("two keys' postings exceed the budget").isEqualTo(4);
    for (IndexPageRef p : f.getPagesList()) {
      assertThat(p.getLength()).isLessThan(SegmentFile.BITMAP_PAGE_BYTES);
    }
    for (long k = 0; k < 4; k++) {
      KeyConditions.Condition c = new KeyConditions.Condition(FIELD, List.of(eq(new StatValue.Int(k))), false);
      assertThat(SegmentFile.lookup(io, s, c)).isEqualTo(expected(list, Map.of(), c));
    }
    KeyConditions.Condition range = new KeyConditions.Condition(FIELD, List.of(new KeyConditions.Interval(
        bound(new StatValue.Int(1)), true, bound(new StatValue.Int(2)), true)), false);
    assertThat(SegmentFile.lookup(io, s, range)).isEqualTo(expected(list, Map.of(), range));
  }

  @Test
  void btreePagesOfLongKeysCloseAtTheirByteBudget() {
    Random r = new Random(12);
    List<Entry> list = entries(2_000, 1_000, i -> {
      byte[] b = new byte[1000];
      r.nextBytes(b);
      return new StatValue.Bytes(b);
    }, r);
    IndexSegment s = writeSegment(ScalarIndex.Kind.BTREE, list, Map.of(), SegmentFile.BtreeEncoding.COMPACT);
    IndexFooter f = IndexCodec.decodeFooter(store.readRange(s.path(), s.footerOffset(), s.footerLength()), "x");
    assertThat(f.getPagesCount()).isGreaterThan(20);
    for (IndexPageRef p : f.getPagesList()) {
      assertThat(p.getLength()).isLessThan(SegmentFile.BTREE_PAGE_BYTES + 2_000);
    }
    KeyConditions.Condition c = new KeyConditions.Condition(FIELD, List.of(eq(list.get(77).key())), false);
    assertThat(SegmentFile.lookup(io, s, c)).isEqualTo(expected(list, Map.of(), c));
  }
}
