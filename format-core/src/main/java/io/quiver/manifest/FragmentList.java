package io.quiver.manifest;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.RandomAccess;

/**
 * The fragments of a segmented manifest (docs/format.md, section 11): the fragments of its {@link #segments()}
 * in order, then its {@link #inline()} tail. Some runs of consecutive segments may be stored as {@link
 * #lists() segment lists}, which the root names instead of their segments; {@link #segments()} holds every
 * segment either way. A segment's fragments are loaded only when asked for, through the
 * {@link Loader} (which caches them, shared across versions); {@link #size()}, {@link Manifest#liveRows()} and
 * scan planning with a filter need only what the root says about each segment.
 *
 * <p>Immutable. Reading an element may read a segment file, so any list operation can throw what the loader
 * throws (a {@link io.quiver.exceptions.StoreException} or a {@link io.quiver.exceptions.CorruptFileException}
 * naming the segment).
 */
public final class FragmentList extends AbstractList<Fragment> implements RandomAccess {
  /** Reads a segment's fragments (the implementation checks them against the segment and caches them). */
  @FunctionalInterface
  public interface Loader {
    List<Fragment> load(Segment segment);

    /**
     * The fragments of each of {@code segments}, in their order. By default one after another; a loader that
     * reads and decodes several at once (as the table's does, on the caller and a shared pool) overrides it.
     */
    default List<List<Fragment>> loadAll(List<Segment> segments) {
      List<List<Fragment>> out = new ArrayList<>(segments.size());
      for (Segment s : segments) {
        out.add(load(s));
      }
      return out;
    }

    /**
     * The segments a segment list names (the implementation checks them against the list and caches them).
     * Called when a root that names lists is decoded; a loader for tables without lists need not implement it.
     */
    default List<Segment> loadList(SegmentList list) {
      throw new UnsupportedOperationException("this loader reads no segment lists; cannot read " + list.path());
    }
  }

  /**
   * A segment built by a commit in progress and not yet written, kept with its encoding.
   *
   * @param fragments its fragments
   * @param encoded the segment file's bytes
   */
  public record Unwritten(List<Fragment> fragments, byte[] encoded) {
    public Unwritten {
      fragments = List.copyOf(fragments);
      Objects.requireNonNull(encoded, "encoded");
    }
  }

  private final List<Segment> segments;
  private final List<SegmentList> lists;
  private final Map<String, byte[]> unwrittenLists;
  private final List<Fragment> inline;
  private final long[] starts;
  private final int size;
  private final Loader loader;
  private final Map<String, Unwritten> unwritten;

  /**
   * @param segments in ascending, disjoint id order
   * @param inline fragments after the last segment's, in ascending id order
   * @param loader reads a written segment
   * @param unwritten segments among {@code segments} not written yet, by path
   * @throws IllegalArgumentException if the order is broken
   */
  public FragmentList(List<Segment> segments, List<Fragment> inline, Loader loader, Map<String, Unwritten> unwritten) {
    this(segments, List.of(), inline, loader, unwritten, Map.of());
  }

  /**
   * @param segments every segment, listed or not, in ascending, disjoint id order
   * @param lists segment lists in ascending id order, each covering exactly {@code segmentCount} consecutive
   *     segments of {@code segments} whose fragment and row counts sum to the list's
   * @param inline fragments after the last segment's, in ascending id order
   * @param loader reads a written segment
   * @param unwritten segments among {@code segments} not written yet, by path
   * @param unwrittenLists lists among {@code lists} not written yet: their files' bytes, by path
   * @throws IllegalArgumentException if the order is broken or a list does not match its segments
   */
  public FragmentList(List<Segment> segments, List<SegmentList> lists, List<Fragment> inline, Loader loader,
      Map<String, Unwritten> unwritten, Map<String, byte[]> unwrittenLists) {
    this.segments = List.copyOf(segments);
    this.lists = List.copyOf(lists);
    this.unwrittenLists = Map.copyOf(unwrittenLists);
    this.inline = List.copyOf(inline);
    this.loader = Objects.requireNonNull(loader, "loader");
    this.unwritten = Map.copyOf(unwritten);
    this.starts = new long[this.segments.size() + 1];
    long previous = -1;
    long count = 0;
    for (int i = 0; i < this.segments.size(); i++) {
      Segment s = this.segments.get(i);
      if (s.firstFragmentId() <= previous) {
        throw new IllegalArgumentException("segment " + s.path() + " starts at fragment " + s.firstFragmentId()
            + ", not after the previous segment's last fragment " + previous);
      }
      previous = s.lastFragmentId();
      starts[i] = count;
      count += s.fragmentCount();
    }
    starts[this.segments.size()] = count;
    checkLists();
    for (Fragment f : this.inline) {
      if (f.id() <= previous) {
        throw new IllegalArgumentException("inline fragment " + f.id() + " is not after fragment " + previous);
      }
      previous = f.id();
    }
    count += this.inline.size();
    if (count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("a manifest holds at most " + Integer.MAX_VALUE + " fragments, found " + count);
    }
    this.size = (int) count;
  }

  public List<Segment> segments() {
    return segments;
  }

  /** Checks that each list stands for consecutive segments whose counts are the list's. */
  private void checkLists() {
    int at = 0;
    long previous = -1;
    for (SegmentList l : lists) {
      if (l.firstFragmentId() <= previous) {
        throw new IllegalArgumentException("segment list " + l.path() + " starts at fragment " + l.firstFragmentId()
            + ", not after the previous list's last fragment " + previous);
      }
      previous = l.lastFragmentId();
      while (at < segments.size() && segments.get(at).lastFragmentId() < l.firstFragmentId()) {
        at++;
      }
      long count = 0;
      long fragments = 0;
      long physical = 0;
      long live = 0;
      long first = -1;
      long last = -1;
      while (at < segments.size() && segments.get(at).firstFragmentId() <= l.lastFragmentId()) {
        Segment s = segments.get(at++);
        if (!l.covers(s)) {
          throw new IllegalArgumentException("segment " + s.path() + " (fragments " + s.firstFragmentId() + ".."
              + s.lastFragmentId() + ") straddles the range of segment list " + l.path());
        }
        first = count == 0 ? s.firstFragmentId() : first;
        last = s.lastFragmentId();
        count++;
        fragments += s.fragmentCount();
        physical += s.physicalRows();
        live += s.liveRows();
      }
      if (count != l.segmentCount() || fragments != l.fragmentCount() || physical != l.physicalRows()
          || live != l.liveRows() || first != l.firstFragmentId() || last != l.lastFragmentId()) {
        throw new IllegalArgumentException("segment list " + l.path() + " says " + l.segmentCount() + " segments of "
            + l.fragmentCount() + " fragments " + l.firstFragmentId() + ".." + l.lastFragmentId() + " with "
            + l.liveRows() + " live of " + l.physicalRows() + " rows, but its segments are " + count + " of "
            + fragments + " fragments " + first + ".." + last + " with " + live + " live of " + physical + " rows");
      }
    }
  }

  public List<Fragment> inline() {
    return inline;
  }

  /** The segment lists the root names, in id order; each stands for the consecutive segments in its range. */
  public List<SegmentList> lists() {
    return lists;
  }

  /** Segment lists built by the commit that made this list and not written yet: their bytes, by path. */
  public Map<String, byte[]> unwrittenLists() {
    return unwrittenLists;
  }

  /** The segments listed by {@code list}, one of {@link #lists()}. */
  public List<Segment> segmentsOf(SegmentList list) {
    int from = firstSegmentAtOrAfter(list.firstFragmentId());
    return segments.subList(from, from + (int) list.segmentCount());
  }

  /** The segments the root names directly, in no list. */
  public List<Segment> directSegments() {
    if (lists.isEmpty()) {
      return segments;
    }
    List<Segment> out = new ArrayList<>();
    int l = 0;
    for (Segment s : segments) {
      while (l < lists.size() && lists.get(l).lastFragmentId() < s.firstFragmentId()) {
        l++;
      }
      if (l < lists.size() && lists.get(l).covers(s)) {
        continue;
      }
      out.add(s);
    }
    return out;
  }

  private int firstSegmentAtOrAfter(long fragmentId) {
    int lo = 0;
    int hi = segments.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (segments.get(mid).firstFragmentId() < fragmentId) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Segments built by the commit that made this list and not written yet, by path. */
  public Map<String, Unwritten> unwritten() {
    return unwritten;
  }

  /** This list once its unwritten segments are written: they are read through the loader from now on. */
  public FragmentList written() {
    return unwritten.isEmpty() && unwrittenLists.isEmpty()
        ? this
        : new FragmentList(segments, lists, inline, loader, Map.of(), Map.of());
  }

  public Loader loader() {
    return loader;
  }

  /** The fragments of segment {@code index}. */
  public List<Fragment> fragmentsOf(int index) {
    Segment s = segments.get(index);
    Unwritten pending = unwritten.get(s.path());
    return pending != null ? pending.fragments() : loader.load(s);
  }

  /**
   * The fragments of the segments at {@code indexes}, in that order: through {@link Loader#loadAll}, so the
   * table's loader reads and decodes them in parallel.
   */
  public List<List<Fragment>> fragmentsOf(List<Integer> indexes) {
    List<List<Fragment>> out = new ArrayList<>(java.util.Collections.nCopies(indexes.size(), (List<Fragment>) null));
    List<Segment> toLoad = new ArrayList<>();
    List<Integer> at = new ArrayList<>();
    for (int i = 0; i < indexes.size(); i++) {
      Segment s = segments.get(indexes.get(i));
      Unwritten pending = unwritten.get(s.path());
      if (pending != null) {
        out.set(i, pending.fragments());
      } else {
        toLoad.add(s);
        at.add(i);
      }
    }
    if (!toLoad.isEmpty()) {
      List<List<Fragment>> loaded = loader.loadAll(toLoad);
      for (int j = 0; j < at.size(); j++) {
        out.set(at.get(j), loaded.get(j));
      }
    }
    return out;
  }

  /** The fragment with {@code id}, reading at most one segment. */
  public Optional<Fragment> find(long id) {
    if (!inline.isEmpty() && id >= inline.get(0).id()) {
      return search(inline, id);
    }
    int lo = 0;
    int hi = segments.size() - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      Segment s = segments.get(mid);
      if (id < s.firstFragmentId()) {
        hi = mid - 1;
      } else if (id > s.lastFragmentId()) {
        lo = mid + 1;
      } else {
        return search(fragmentsOf(mid), id);
      }
    }
    return Optional.empty();
  }

  private static Optional<Fragment> search(List<Fragment> fragments, long id) {
    int lo = 0;
    int hi = fragments.size() - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      long at = fragments.get(mid).id();
      if (at < id) {
        lo = mid + 1;
      } else if (at > id) {
        hi = mid - 1;
      } else {
        return Optional.of(fragments.get(mid));
      }
    }
    return Optional.empty();
  }

  @Override
  public Fragment get(int index) {
    if (index < 0 || index >= size) {
      throw new IndexOutOfBoundsException("index " + index + " of " + size + " fragments");
    }
    int segmentCount = segments.size();
    if (index >= starts[segmentCount]) {
      return inline.get((int) (index - starts[segmentCount]));
    }
    int lo = 0;
    int hi = segmentCount - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (starts[mid] <= index) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return fragmentsOf(lo).get((int) (index - starts[lo]));
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public Iterator<Fragment> iterator() {
    return new Iterator<>() {
      private int segment = 0;
      private Iterator<Fragment> current = null;

      @Override
      public boolean hasNext() {
        while (current == null || !current.hasNext()) {
          if (segment < segments.size()) {
            current = fragmentsOf(segment++).iterator();
          } else if (segment == segments.size()) {
            segment++;
            current = inline.iterator();
          } else {
            return false;
          }
        }
        return true;
      }

      @Override
      public Fragment next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return current.next();
      }
    };
  }

  /** Every fragment, read into memory. */
  public List<Fragment> materialize() {
    List<Fragment> out = new ArrayList<>(size);
    for (Fragment f : this) {
      out.add(f);
    }
    return out;
  }
}
