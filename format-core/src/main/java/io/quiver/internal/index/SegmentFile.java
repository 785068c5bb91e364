package io.quiver.internal.index;

import com.google.protobuf.ByteString;
import io.quiver.dataset.RowAddress;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.internal.codec.IndexCodec;
import io.quiver.internal.file.MetadataCache;
import io.quiver.internal.predicate.KeyConditions;
import io.quiver.internal.proto.FragmentOffsets;
import io.quiver.internal.proto.IndexFooter;
import io.quiver.internal.proto.IndexPage;
import io.quiver.internal.proto.IndexPageRef;
import io.quiver.internal.proto.PageKeyKind;
import io.quiver.internal.proto.Postings;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.IndexSegment;
import io.quiver.manifest.ScalarIndex;
import io.quiver.manifest.StatValue;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.roaringbitmap.RoaringBitmap;

/**
 * Index segment files (docs/format.md §13.2): pages of distinct sorted keys with the rows holding each, then a
 * footer listing the pages' key ranges. Btree pages are written compact ({@link BtreePages}, magic {@code QVXC});
 * bitmap pages, and the btree pages of older builds, are {@code IndexPage}s ({@code QVXP}), which still read.
 * Writing lays the pages out; reading fetches the footer (cached) and only the pages a condition's intervals can
 * reach (cached by the table's metadata cache, as immutable files are).
 */
final class SegmentFile {
  /** A btree page holds at most this many row addresses (about 20 KiB compact), a bitmap page this many keys. */
  static final int BTREE_PAGE_ROWS = 4096;
  static final int BITMAP_PAGE_KEYS = 256;
  /**
   * Page byte budgets (a page always holds at least one key): a btree page is closed once its encoded content
   * reaches {@link #BTREE_PAGE_BYTES}, which keeps pages of long byte-string keys small; a bitmap page takes a
   * further key only while its postings stay within {@link #BITMAP_PAGE_BYTES}, so the postings of a low-cardinality
   * column (a few keys over millions of rows) are spread over many pages instead of one that every lookup would
   * read and parse whole. Readers need no change: they read the pages the footer lists.
   */
  static final int BTREE_PAGE_BYTES = 64 << 10;
  static final int BITMAP_PAGE_BYTES = 256 << 10;

  private SegmentFile() {}

  /** How btree pages are encoded: compact {@code QVXC} pages, or the {@code QVXP} pages of the first 1.3 builds. */
  enum BtreeEncoding { COMPACT, LEGACY }

  /** What a written file is, for its {@link IndexSegment} entry. */
  record Written(byte[] bytes, long footerOffset, int footerLength, long rows) {}

  /** Lays out {@code entries} (sorted) and the null rows as a segment file of {@code kind}, with compact pages. */
  static Written write(ScalarIndex.Kind kind, int fieldId, IndexEntries entries, Map<Long, RoaringBitmap> nulls) {
    return write(kind, fieldId, entries, nulls, BtreeEncoding.COMPACT);
  }

  /**
   * Lays out {@code entries} (sorted) and the null rows as a segment file of {@code kind}, btree pages encoded as
   * {@code encoding} says ({@link BtreeEncoding#LEGACY} only to test that files of older builds still read).
   */
  static Written write(ScalarIndex.Kind kind, int fieldId, IndexEntries entries, Map<Long, RoaringBitmap> nulls,
      BtreeEncoding encoding) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    IndexFooter.Builder footer = IndexFooter.newBuilder().setKind(kind.label()).setFieldId(fieldId);
    int n = entries.size();
    Optional<PageKeyKind> compact = kind == ScalarIndex.Kind.BTREE && encoding == BtreeEncoding.COMPACT && n > 0
        ? BtreePages.kindOf(entries.key(0)) : Optional.empty();
    int i = 0;
    Postings pending = null; // the postings of the key at entry pendingAt, computed for a page that was full
    int pendingAt = -1;
    while (i < n) {
      int firstEntry = i;
      int lastEntry = i;
      int keys = 0;
      byte[] bytes;
      if (compact.isPresent()) {
        BtreePages.Writer page = new BtreePages.Writer(compact.get());
        int rows = 0;
        while (i < n) {
          int end = runEnd(entries, i);
          if (rows > 0 && (rows + end - i > BTREE_PAGE_ROWS || page.bytes() >= BTREE_PAGE_BYTES)) {
            break;
          }
          lastEntry = i;
          if (entries.primitive()) {
            page.addPrimitive(entries, i, end);
          } else {
            page.add(entries.key(i), entries, i, end);
          }
          rows += end - i;
          i = end;
        }
        keys = page.keys();
        bytes = IndexCodec.encodeBtreePage(page.build());
      } else {
        IndexPage.Builder page = IndexPage.newBuilder();
        int rows = 0;
        long postingBytes = 0;
        while (i < n) {
          int end = runEnd(entries, i);
          int run = end - i;
          Postings postings = null;
          if (kind == ScalarIndex.Kind.BITMAP) {
            if (pendingAt != i) {
              pending = postings(entries, i, end);
              pendingAt = i;
            }
            postings = pending;
          }
          // A bitmap page takes a key only while its postings stay within the budget (the first key always).
          boolean full = kind == ScalarIndex.Kind.BTREE ? rows > 0 && rows + run > BTREE_PAGE_ROWS
              : keys >= BITMAP_PAGE_KEYS
                  || keys > 0 && postingBytes + postings.getSerializedSize() > BITMAP_PAGE_BYTES;
          if (full) {
            break;
          }
          lastEntry = i;
          page.addKeys(IndexCodec.encodeKey(entries.key(i)));
          if (kind == ScalarIndex.Kind.BTREE) {
            page.addStarts(rows);
            for (int r = i; r < end; r++) {
              page.addAddresses(entries.address(r));
            }
          } else {
            postingBytes += postings.getSerializedSize();
            page.addPostings(postings);
          }
          keys++;
          rows += run;
          i = end;
        }
        bytes = IndexCodec.encodePage(page.build());
      }
      footer.addPages(IndexPageRef.newBuilder().setOffset(out.size()).setLength(bytes.length)
          .setFirstKey(IndexCodec.encodeKey(entries.key(firstEntry)))
          .setLastKey(IndexCodec.encodeKey(entries.key(lastEntry))).setKeys(keys));
      out.writeBytes(bytes);
    }
    long nullRows = 0;
    for (Map.Entry<Long, RoaringBitmap> e : new TreeMap<>(nulls).entrySet()) {
      footer.addNulls(offsets(e.getKey(), e.getValue()));
      nullRows += e.getValue().getLongCardinality();
    }
    long rows = n + nullRows;
    footer.setRows(rows);
    long footerOffset = out.size();
    byte[] f = IndexCodec.encodeFooter(footer.build());
    out.writeBytes(f);
    return new Written(out.toByteArray(), footerOffset, f.length, rows);
  }

  /** The end of the run of entries holding the key of entry {@code i}. */
  private static int runEnd(IndexEntries entries, int i) {
    int n = entries.size();
    int end = i + 1;
    while (end < n && entries.sameKey(i, end)) {
      end++;
    }
    return end;
  }

  /** The postings of entries[from..to) (one key's run). */
  private static Postings postings(IndexEntries entries, int from, int to) {
    Map<Long, RoaringBitmap> byFragment = new TreeMap<>();
    for (int r = from; r < to; r++) {
      byFragment.computeIfAbsent(RowAddress.fragmentId(entries.address(r)), f -> new RoaringBitmap())
          .add((int) RowAddress.offset(entries.address(r)));
    }
    return postings(byFragment);
  }

  private static Postings postings(Map<Long, RoaringBitmap> byFragment) {
    Postings.Builder p = Postings.newBuilder();
    byFragment.forEach((fragment, offsets) -> p.addFragments(offsets(fragment, offsets)));
    return p.build();
  }

  private static FragmentOffsets offsets(long fragment, RoaringBitmap offsets) {
    offsets.runOptimize();
    ByteBuffer buffer = ByteBuffer.allocate(offsets.serializedSizeInBytes());
    offsets.serialize(buffer);
    return FragmentOffsets.newBuilder().setFragmentId(fragment).setOffsets(ByteString.copyFrom(buffer.array())).build();
  }

  // ---------------------------------------------------------------- reading

  /** A decoded footer: the pages' key ranges, the null rows. */
  record Footer(ScalarIndex.Kind kind, List<IndexPageRef> pages, List<StatValue> firstKeys, List<StatValue> lastKeys,
      Map<Long, RoaringBitmap> nulls, long bytes) implements MetadataCache.Weighable {
    @Override
    public long estimatedBytes() {
      return bytes * 4 + 256;
    }
  }

  /**
   * A decoded page: its keys and, for a btree page, the rows of key {@code i} as {@code addresses[starts[i] ..
   * starts[i+1])} (the last key's run ends at the end of {@code addresses}); for a bitmap page, {@code postings}
   * (one per key). The other kind's parts are null.
   */
  record Page(List<StatValue> keys, int[] starts, long[] addresses, List<Postings> postings, long weight)
      implements MetadataCache.Weighable {
    @Override
    public long estimatedBytes() {
      return weight;
    }
  }

  static Footer footer(TableIo io, IndexSegment segment) {
    String location = io.store().locationOf(segment.path());
    return io.metadataCache().get(location + "#footer", k -> {
      byte[] bytes = read(io, segment, segment.footerOffset(), segment.footerLength());
      IndexFooter f = IndexCodec.decodeFooter(bytes, location);
      List<StatValue> firsts = new ArrayList<>();
      List<StatValue> lasts = new ArrayList<>();
      for (IndexPageRef p : f.getPagesList()) {
        firsts.add(key(p.getFirstKey(), location));
        lasts.add(key(p.getLastKey(), location));
        if (p.getOffset() + p.getLength() > segment.footerOffset()) {
          throw new CorruptFileException(location, "index page at " + p.getOffset() + " runs into the footer");
        }
      }
      Map<Long, RoaringBitmap> nulls = new TreeMap<>();
      for (FragmentOffsets o : f.getNullsList()) {
        nulls.put(o.getFragmentId(), bitmap(o, location));
      }
      return new Footer(ScalarIndex.Kind.of(f.getKind()), f.getPagesList(), firsts, lasts, nulls, bytes.length);
    });
  }

  private static Page page(TableIo io, IndexSegment segment, IndexPageRef ref) {
    String location = io.store().locationOf(segment.path());
    return io.metadataCache().get(location + "#" + ref.getOffset(),
        k -> decodePage(read(io, segment, ref.getOffset(), ref.getLength()), location, ref.getOffset()));
  }

  /**
   * Decodes the page at {@code offset} of the file at {@code location}: a compact btree page ({@code QVXC}) or an
   * {@code IndexPage} ({@code QVXP}: a bitmap page, or a btree page of an older build).
   *
   * @throws CorruptFileException naming {@code location} when the bytes are not an intact page of either kind
   */
  static Page decodePage(byte[] bytes, String location, long offset) {
    if (IndexCodec.isBtreePage(bytes)) {
      BtreePages.Decoded d = BtreePages.decode(IndexCodec.decodeBtreePage(bytes, location), location, offset);
      return new Page(d.keys(), d.starts(), d.addresses(), null, weight(d.keys(), d.starts(), d.addresses()));
    }
    IndexPage p = IndexCodec.decodePage(bytes, location);
    List<StatValue> keys = new ArrayList<>(p.getKeysCount());
    for (io.quiver.internal.proto.StatValue v : p.getKeysList()) {
      keys.add(key(v, location));
    }
    if (p.getPostingsCount() > 0 ? p.getPostingsCount() != keys.size() : p.getStartsCount() != keys.size()) {
      throw new CorruptFileException(location, "index page at " + offset + " has " + keys.size()
          + " keys but " + Math.max(p.getPostingsCount(), p.getStartsCount()) + " postings");
    }
    if (p.getPostingsCount() > 0) {
      return new Page(List.copyOf(keys), null, null, p.getPostingsList(), bytes.length * 4L + 256);
    }
    int[] starts = new int[p.getStartsCount()];
    long[] addresses = new long[p.getAddressesCount()];
    for (int k = 0; k < starts.length; k++) {
      starts[k] = p.getStarts(k);
      int end = k + 1 < starts.length ? p.getStarts(k + 1) : addresses.length;
      if (starts[k] < 0 || starts[k] > end || end > addresses.length) {
        throw new CorruptFileException(location, "index page at " + offset + ": postings of key " + k + " ["
            + Integer.toUnsignedString(starts[k]) + ", " + Integer.toUnsignedString(end) + ") are out of the page's "
            + addresses.length + " addresses");
      }
    }
    for (int a = 0; a < addresses.length; a++) {
      addresses[a] = p.getAddresses(a);
    }
    return new Page(List.copyOf(keys), starts, addresses, null, weight(keys, starts, addresses));
  }

  /** The heap a decoded btree page takes, about: its key objects and arrays. */
  private static long weight(List<StatValue> keys, int[] starts, long[] addresses) {
    long w = 256 + 4L * starts.length + 8L * addresses.length + 48L * keys.size();
    if (!keys.isEmpty() && keys.get(0) instanceof StatValue.Bytes) {
      for (StatValue k : keys) {
        w += ((StatValue.Bytes) k).length();
      }
    }
    return w;
  }

  private static byte[] read(TableIo io, IndexSegment segment, long offset, int length) {
    String location = io.store().locationOf(segment.path());
    byte[] bytes;
    try {
      bytes = io.store().readRange(segment.path(), offset, length);
    } catch (io.quiver.exceptions.ObjectNotFoundException e) {
      throw new CorruptFileException(location, "index segment file is missing (the manifest lists it); drop and"
          + " re-create the index, or scan without indices", e);
    }
    if (bytes.length != length) {
      throw new CorruptFileException(location, "index segment file is truncated: expected " + length
          + " bytes at offset " + offset + ", got " + bytes.length);
    }
    return bytes;
  }

  private static StatValue key(io.quiver.internal.proto.StatValue v, String location) {
    return IndexCodec.decodeKey(v).orElseThrow(() -> new CorruptFileException(location, "index key has no value"));
  }

  private static RoaringBitmap bitmap(FragmentOffsets o, String location) {
    RoaringBitmap b = new RoaringBitmap();
    try {
      b.deserialize(ByteBuffer.wrap(o.getOffsets().toByteArray()));
    } catch (java.io.IOException | RuntimeException e) {
      throw new CorruptFileException(location, "index offsets of fragment " + o.getFragmentId()
          + " are not a portable RoaringBitmap: " + e.getMessage(), e);
    }
    return b;
  }

  /**
   * The rows of the segment whose key satisfies {@code condition}, by fragment id (fragments without a hit are
   * absent). Reads the footer and the pages the intervals reach.
   */
  static Map<Long, RoaringBitmap> lookup(TableIo io, IndexSegment segment, KeyConditions.Condition condition) {
    Footer footer = footer(io, segment);
    String location = io.store().locationOf(segment.path());
    Map<Long, RoaringBitmap> out = new TreeMap<>();
    if (condition.nulls()) {
      footer.nulls().forEach((f, offsets) -> out.computeIfAbsent(f, x -> new RoaringBitmap()).or(offsets));
    }
    for (KeyConditions.Interval interval : condition.intervals()) {
      // First page whose last key is not below the interval.
      int lo = 0;
      int hi = footer.pages().size();
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (interval.below(footer.lastKeys().get(mid))) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      for (int p = lo; p < footer.pages().size() && !interval.above(footer.firstKeys().get(p)); p++) {
        Page page = page(io, segment, footer.pages().get(p));
        collect(page, interval, footer.kind(), out, location);
      }
    }
    return out;
  }

  private static void collect(Page page, KeyConditions.Interval interval, ScalarIndex.Kind kind,
      Map<Long, RoaringBitmap> out, String location) {
    List<StatValue> keys = page.keys();
    int lo = 0;
    int hi = keys.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (interval.below(keys.get(mid))) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (kind == ScalarIndex.Kind.BTREE ? page.starts() == null : page.postings() == null && !keys.isEmpty()) {
      throw new CorruptFileException(location, "index page holds " + (page.starts() == null ? "bitmap" : "btree")
          + " postings, but the footer says the segment is a " + kind.label() + " index");
    }
    for (int k = lo; k < keys.size() && !interval.above(keys.get(k)); k++) {
      if (kind == ScalarIndex.Kind.BTREE) {
        int start = page.starts()[k];
        int end = k + 1 < page.starts().length ? page.starts()[k + 1] : page.addresses().length;
        RoaringBitmap current = null;
        long currentFragment = -1;
        for (int a = start; a < end; a++) {
          long address = page.addresses()[a];
          long fragment = RowAddress.fragmentId(address);
          if (current == null || fragment != currentFragment) {
            current = out.computeIfAbsent(fragment, x -> new RoaringBitmap());
            currentFragment = fragment;
          }
          current.add((int) RowAddress.offset(address));
        }
      } else {
        for (FragmentOffsets o : page.postings().get(k).getFragmentsList()) {
          out.computeIfAbsent(o.getFragmentId(), x -> new RoaringBitmap()).or(bitmap(o, location));
        }
      }
    }
  }
}
