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
import java.util.TreeMap;
import org.roaringbitmap.RoaringBitmap;

/**
 * Index segment files (docs/format.md §13.2): pages of distinct sorted keys with the rows holding each, then a
 * footer listing the pages' key ranges. Writing lays the pages out; reading fetches the footer (cached) and only
 * the pages a condition's intervals can reach (cached by the table's metadata cache, as immutable files are).
 */
final class SegmentFile {
  /** A btree page holds at most this many row addresses (about 32 KiB), a bitmap page this many keys. */
  static final int BTREE_PAGE_ROWS = 4096;
  static final int BITMAP_PAGE_KEYS = 256;

  private SegmentFile() {}

  /** What a written file is, for its {@link IndexSegment} entry. */
  record Written(byte[] bytes, long footerOffset, int footerLength, long rows) {}

  /** Lays out {@code entries} (sorted) and the null rows as a segment file of {@code kind}. */
  static Written write(ScalarIndex.Kind kind, int fieldId, IndexEntries entries, Map<Long, RoaringBitmap> nulls) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    IndexFooter.Builder footer = IndexFooter.newBuilder().setKind(kind.label()).setFieldId(fieldId);
    int n = entries.size();
    int i = 0;
    while (i < n) {
      IndexPage.Builder page = IndexPage.newBuilder();
      int keys = 0;
      int rows = 0;
      StatValue first = entries.key(i);
      StatValue last = first;
      while (i < n) {
        int end = i + 1;
        while (end < n && entries.sameKey(i, end)) {
          end++;
        }
        int run = end - i;
        boolean full = kind == ScalarIndex.Kind.BTREE ? rows > 0 && rows + run > BTREE_PAGE_ROWS
            : keys >= BITMAP_PAGE_KEYS;
        if (full) {
          break;
        }
        last = entries.key(i);
        page.addKeys(IndexCodec.encodeKey(last));
        if (kind == ScalarIndex.Kind.BTREE) {
          page.addStarts(rows);
          for (int r = i; r < end; r++) {
            page.addAddresses(entries.address(r));
          }
        } else {
          Map<Long, RoaringBitmap> byFragment = new TreeMap<>();
          for (int r = i; r < end; r++) {
            byFragment.computeIfAbsent(RowAddress.fragmentId(entries.address(r)), f -> new RoaringBitmap())
                .add((int) RowAddress.offset(entries.address(r)));
          }
          page.addPostings(postings(byFragment));
        }
        keys++;
        rows += run;
        i = end;
      }
      byte[] bytes = IndexCodec.encodePage(page.build());
      footer.addPages(IndexPageRef.newBuilder().setOffset(out.size()).setLength(bytes.length)
          .setFirstKey(IndexCodec.encodeKey(first)).setLastKey(IndexCodec.encodeKey(last)).setKeys(keys));
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

  record Page(List<StatValue> keys, IndexPage proto, long bytes) implements MetadataCache.Weighable {
    @Override
    public long estimatedBytes() {
      return bytes * 4 + 256;
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
    return io.metadataCache().get(location + "#" + ref.getOffset(), k -> {
      byte[] bytes = read(io, segment, ref.getOffset(), ref.getLength());
      IndexPage p = IndexCodec.decodePage(bytes, location);
      List<StatValue> keys = new ArrayList<>(p.getKeysCount());
      for (io.quiver.internal.proto.StatValue v : p.getKeysList()) {
        keys.add(key(v, location));
      }
      if (p.getPostingsCount() > 0 ? p.getPostingsCount() != keys.size() : p.getStartsCount() != keys.size()) {
        throw new CorruptFileException(location, "index page at " + ref.getOffset() + " has " + keys.size()
            + " keys but " + Math.max(p.getPostingsCount(), p.getStartsCount()) + " postings");
      }
      return new Page(keys, p, bytes.length);
    });
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
    IndexPage proto = page.proto();
    for (int k = lo; k < keys.size() && !interval.above(keys.get(k)); k++) {
      if (kind == ScalarIndex.Kind.BTREE) {
        int start = proto.getStarts(k);
        int end = k + 1 < proto.getStartsCount() ? proto.getStarts(k + 1) : proto.getAddressesCount();
        if (start > end || end > proto.getAddressesCount()) {
          throw new CorruptFileException(location, "index page postings [" + start + ", " + end + ") are out of range");
        }
        RoaringBitmap current = null;
        long currentFragment = -1;
        for (int a = start; a < end; a++) {
          long address = proto.getAddresses(a);
          long fragment = RowAddress.fragmentId(address);
          if (current == null || fragment != currentFragment) {
            current = out.computeIfAbsent(fragment, x -> new RoaringBitmap());
            currentFragment = fragment;
          }
          current.add((int) RowAddress.offset(address));
        }
      } else {
        for (FragmentOffsets o : proto.getPostings(k).getFragmentsList()) {
          out.computeIfAbsent(o.getFragmentId(), x -> new RoaringBitmap()).or(bitmap(o, location));
        }
      }
    }
  }
}
