package io.quiver.internal.txn;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.codec.MetadataCodec;
import io.quiver.internal.read.FragmentBounds;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.FieldBounds;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.FragmentList;
import io.quiver.manifest.Segment;
import io.quiver.manifest.SegmentList;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Lays a version's fragments out as segments (docs/format.md, section 11): reuses every segment a commit does
 * not change, rewrites those it changes, keeps new fragments inline in the root until there are {@code merge
 * factor} of them, and merges the newest segments tier by tier so that a root lists O(F log_F n) segments:
 * {@code F} segments of one tier merge into one of the next, up to {@code max fragments} per segment. Each
 * fragment is therefore rewritten about log_F(max) times over its life, and a commit that changes nothing
 * old writes only the root (and, one commit in F, a segment of F fragments). Full segments are named through
 * {@link SegmentList segment lists} of up to {@code L} segments, so the root names O(n / (M · L)) lists beside
 * the tiered segments and its size does not grow with the table.
 *
 * <p>Pure apart from naming new segments and lists with random uuids: they are encoded here and carried in the
 * result's {@link FragmentList#unwritten()} and {@link FragmentList#unwrittenLists()} for the commit to write
 * before it claims the version.
 */
public final class Segmenter {
  /**
   * Table configuration: {@value #SEGMENTED} or {@value #SINGLE}. Absent, a table keeps the layout it has: new
   * tables are segmented, tables written before format 1.2 stay single-file until this key asks otherwise.
   */
  public static final String LAYOUT_KEY = "manifest.layout";

  public static final String SEGMENTED = "segmented";
  public static final String SINGLE = "single";

  /** Table configuration: the most fragments a segment holds (merges stop there), default 32,768. */
  public static final String MAX_FRAGMENTS_KEY = "manifest.segment.max-fragments";

  /** Table configuration: how many segments of one tier merge into one of the next, default 8. */
  public static final String MERGE_FACTOR_KEY = "manifest.segment.merge-factor";

  /**
   * Table configuration: the most segments one segment list names, default 512. Full segments (and those
   * between them) are named through lists, so a root stays the same size however large the table grows.
   */
  public static final String LIST_MAX_SEGMENTS_KEY = "manifest.segment.list-max-segments";

  /** The configuration keys of the layout, which a restore keeps as the table has them. */
  public static final List<String> LAYOUT_KEYS =
      List.of(LAYOUT_KEY, MAX_FRAGMENTS_KEY, MERGE_FACTOR_KEY, LIST_MAX_SEGMENTS_KEY);

  public static final int DEFAULT_MAX_FRAGMENTS = 32_768;
  public static final int DEFAULT_MERGE_FACTOR = 8;
  public static final int DEFAULT_LIST_MAX_SEGMENTS = 512;

  /**
   * The layout a version's configuration asks for.
   *
   * @param segmented whether its fragments are segmented
   * @param mergeFactor F
   * @param maxFragments the most fragments of one segment
   * @param listMaxSegments the most segments of one segment list
   */
  public record Policy(boolean segmented, int mergeFactor, int maxFragments, int listMaxSegments) {
    /**
     * The policy {@code config} sets.
     *
     * @param current whether the version built upon is segmented (true when creating a table): the layout
     *     when the configuration names none
     */
    public static Policy of(Map<String, String> config, boolean current) {
      String layout = config.get(LAYOUT_KEY);
      boolean segmented;
      if (layout == null) {
        segmented = current;
      } else if (layout.trim().toLowerCase(Locale.ROOT).equals(SINGLE)) {
        segmented = false;
      } else if (layout.trim().toLowerCase(Locale.ROOT).equals(SEGMENTED)) {
        segmented = true;
      } else {
        throw new InvalidArgumentException("table configuration " + LAYOUT_KEY + " is '" + layout + "'; expected "
            + SEGMENTED + " (format 1.2, commits cost what they change) or " + SINGLE
            + " (format 1.1, readable by Quiver before 1.2)");
      }
      int factor = count(config, MERGE_FACTOR_KEY, DEFAULT_MERGE_FACTOR, 2, 1024);
      int max = count(config, MAX_FRAGMENTS_KEY, DEFAULT_MAX_FRAGMENTS, factor, 1 << 24);
      int listMax = count(config, LIST_MAX_SEGMENTS_KEY, DEFAULT_LIST_MAX_SEGMENTS, 2, 1 << 16);
      return new Policy(segmented, factor, max, listMax);
    }

    /** Checks the layout's configuration keys among {@code upserts}. */
    public static void check(Map<String, String> upserts) {
      Map<String, String> known = new TreeMap<>();
      for (String key : LAYOUT_KEYS) {
        if (upserts.containsKey(key)) {
          known.put(key, upserts.get(key));
        }
      }
      if (!known.containsKey(MERGE_FACTOR_KEY) && known.containsKey(MAX_FRAGMENTS_KEY)) {
        known.put(MERGE_FACTOR_KEY, "2");
      }
      of(known, true);
    }

    private static int count(Map<String, String> config, String key, int fallback, int min, int max) {
      String value = config.get(key);
      if (value == null) {
        return fallback;
      }
      int parsed;
      try {
        parsed = Integer.parseInt(value.trim());
      } catch (NumberFormatException e) {
        parsed = Integer.MIN_VALUE;
      }
      if (parsed < min || parsed > max) {
        throw new InvalidArgumentException("table configuration " + key + " is '" + value + "'; expected an integer"
            + " from " + min + " to " + max);
      }
      return parsed;
    }
  }

  private final Policy policy;
  private final Schema schema;
  private final FragmentList.Loader loader;
  private final List<Segment> out = new ArrayList<>();
  private final Map<String, FragmentList.Unwritten> unwritten = new LinkedHashMap<>();
  /** The version built upon, whose segment lists are kept where their segments are; null for a fresh layout. */
  private final FragmentList base;

  private Segmenter(Policy policy, Schema schema, FragmentList.Loader loader, FragmentList base) {
    this.policy = policy;
    this.schema = schema;
    this.loader = loader;
    this.base = base;
    if (base != null) {
      this.unwritten.putAll(base.unwritten());
    }
  }

  /** {@code fragments} (ascending ids) laid out from scratch: a creation, an overwrite, a change of layout. */
  public static FragmentList layOut(List<Fragment> fragments, Policy policy, Schema schema, FragmentList.Loader loader) {
    Segmenter s = new Segmenter(policy, schema, loader, null);
    List<Fragment> inline = s.flush(fragments);
    s.mergeTail();
    return s.result(inline);
  }

  /**
   * {@code base} with {@code changes} applied: per fragment id, its new state, or null when it is removed; ids
   * above every id of {@code base} are new fragments.
   */
  public static FragmentList update(FragmentList base, NavigableMap<Long, Fragment> changes, Policy policy,
      Schema schema) {
    Segmenter s = new Segmenter(policy, schema, base.loader(), base);
    List<Segment> segments = base.segments();
    List<Boolean> rewritten = new ArrayList<>();
    for (int i = 0; i < segments.size(); i++) {
      Segment seg = segments.get(i);
      NavigableMap<Long, Fragment> mine = changes.subMap(seg.firstFragmentId(), true, seg.lastFragmentId(), true);
      if (mine.isEmpty()) {
        s.out.add(seg);
        rewritten.add(false);
        continue;
      }
      List<Fragment> content = apply(base.fragmentsOf(i), mine);
      if (content.isEmpty()) {
        continue;
      }
      // Old bounds still hold for the fragments left as they were; the changed ones widen them.
      Map<Integer, FieldBounds> bounds = new HashMap<>(seg.bounds());
      for (Fragment f : mine.values()) {
        if (f != null) {
          bounds = union(bounds, s.boundsOf(List.of(f)));
        }
      }
      s.out.add(s.write(content, bounds));
      rewritten.add(true);
    }
    long afterSegments = segments.isEmpty() ? -1 : segments.get(segments.size() - 1).lastFragmentId();
    List<Fragment> inline = apply(base.inline(), changes.tailMap(afterSegments, false));
    s.mergeSmallRewritten(rewritten);
    List<Fragment> left = s.flush(inline);
    s.mergeTail();
    return s.result(left);
  }

  /** {@code fragments} (ascending ids) with {@code changes} (ids in or beyond their range) applied. */
  private static List<Fragment> apply(List<Fragment> fragments, NavigableMap<Long, Fragment> changes) {
    if (changes.isEmpty()) {
      return fragments;
    }
    List<Fragment> out = new ArrayList<>(fragments.size() + changes.size());
    TreeMap<Long, Fragment> pending = new TreeMap<>(changes);
    for (Fragment f : fragments) {
      while (!pending.isEmpty() && pending.firstKey() < f.id()) {
        Map.Entry<Long, Fragment> e = pending.pollFirstEntry();
        if (e.getValue() != null) {
          out.add(e.getValue());
        }
      }
      if (!pending.isEmpty() && pending.firstKey() == f.id()) {
        Fragment changed = pending.pollFirstEntry().getValue();
        if (changed != null) {
          out.add(changed);
        }
      } else {
        out.add(f);
      }
    }
    for (Fragment f : pending.values()) {
      if (f != null) {
        out.add(f);
      }
    }
    return out;
  }

  /**
   * Writes {@code fragments} as segments while at least F remain: whole segments of the largest tier that
   * fits (at most the maximum), so a large commit lands as a few large segments. Returns what is left (fewer
   * than F), which stays inline.
   */
  private List<Fragment> flush(List<Fragment> fragments) {
    int at = 0;
    int factor = policy.mergeFactor();
    while (fragments.size() - at >= factor) {
      long tier = factor;
      while (tier * factor <= policy.maxFragments() && tier * factor <= fragments.size() - at) {
        tier *= factor;
      }
      int size = (int) Math.min(policy.maxFragments(), tier);
      if (fragments.size() - at >= policy.maxFragments()) {
        size = policy.maxFragments();
      }
      List<Fragment> chunk = fragments.subList(at, at + size);
      out.add(write(chunk, boundsOf(chunk)));
      at += size;
    }
    return new ArrayList<>(fragments.subList(at, fragments.size()));
  }

  /** Merges the newest segments while the last F share a tier and fit in one segment. */
  private void mergeTail() {
    int factor = policy.mergeFactor();
    while (out.size() >= factor) {
      int last = out.size() - 1;
      int tier = tier(out.get(last).fragmentCount());
      int run = 0;
      long total = 0;
      for (int i = last; i >= 0 && run < factor && tier(out.get(i).fragmentCount()) == tier; i--) {
        run++;
        total += out.get(i).fragmentCount();
      }
      if (run < factor || total > policy.maxFragments()) {
        return;
      }
      merge(out.size() - factor, out.size());
    }
  }

  /** A rewritten segment that shrank below a tier's worth merges with a neighbour if they fit together. */
  private void mergeSmallRewritten(List<Boolean> rewritten) {
    int small = Math.max(1, policy.maxFragments() / policy.mergeFactor());
    for (int i = 0; i < out.size(); i++) {
      if (!rewritten.get(i) || out.get(i).fragmentCount() >= small) {
        continue;
      }
      if (i > 0 && out.get(i - 1).fragmentCount() + out.get(i).fragmentCount() <= policy.maxFragments()) {
        merge(i - 1, i + 1);
        rewritten.remove(i);
        i--;
      } else if (i + 1 < out.size()
          && out.get(i).fragmentCount() + out.get(i + 1).fragmentCount() <= policy.maxFragments()) {
        merge(i, i + 2);
        rewritten.remove(i + 1);
      }
    }
  }

  /** Replaces {@code out[from, to)} by one segment of their fragments. */
  private void merge(int from, int to) {
    List<Fragment> content = new ArrayList<>();
    Map<Integer, FieldBounds> bounds = null;
    for (int i = from; i < to; i++) {
      Segment s = out.get(i);
      content.addAll(fragmentsOf(s));
      bounds = bounds == null ? s.bounds() : union(bounds, s.bounds());
      unwritten.remove(s.path()); // never written if it was built by this commit
    }
    Segment merged = write(content, bounds);
    out.subList(from, to).clear();
    out.add(from, merged);
  }

  private List<Fragment> fragmentsOf(Segment s) {
    FragmentList.Unwritten pending = unwritten.get(s.path());
    return pending != null ? pending.fragments() : loader.load(s);
  }

  private int tier(long count) {
    int t = 0;
    for (long c = count; c >= policy.mergeFactor(); c /= policy.mergeFactor()) {
      t++;
    }
    return t;
  }

  private Segment write(List<Fragment> fragments, Map<Integer, FieldBounds> bounds) {
    byte[] encoded = MetadataCodec.encodeSegment(fragments);
    long physical = 0;
    long live = 0;
    boolean compressed = false;
    for (Fragment f : fragments) {
      physical += f.physicalRows();
      live += f.liveRows();
      compressed = compressed || f.files().stream().anyMatch(DataFile::mayBeCompressed)
          || f.overlays().stream().anyMatch(o -> o.dataFile().mayBeCompressed());
    }
    Segment segment = new Segment(Segment.PREFIX + UUID.randomUUID() + ".segment", encoded.length,
        fragments.get(0).id(), fragments.get(fragments.size() - 1).id(), fragments.size(), physical, live, compressed,
        bounds);
    unwritten.put(segment.path(), new FragmentList.Unwritten(fragments, encoded));
    return segment;
  }

  private FragmentList result(List<Fragment> inline) {
    Map<String, FragmentList.Unwritten> kept = new LinkedHashMap<>();
    for (Segment s : out) {
      FragmentList.Unwritten u = unwritten.get(s.path());
      if (u != null) {
        kept.put(s.path(), u);
      }
    }
    Map<String, byte[]> keptLists = new LinkedHashMap<>();
    List<SegmentList> lists = lists(keptLists);
    return new FragmentList(out, lists, inline, loader, kept, keptLists);
  }

  /**
   * Names the settled segments through segment lists: every segment up to the last full one (newer segments
   * still merge tier by tier). A list of the version built upon is kept when its segments are all still there
   * unchanged; the newest kept list that is not full takes the segments after it (it is rewritten, one commit
   * in about M appended fragments); the rest become new lists of at most the policy's size. So a root names
   * O(n / (M · L)) lists and O(F · log_F M) segments, and an append rewrites a list only when it completes a
   * full segment. Fewer than two settled segments are named directly.
   *
   * @param written receives the bytes of each new list, by path (and of each kept list not written yet)
   */
  private List<SegmentList> lists(Map<String, byte[]> written) {
    int settled = 0;
    for (int i = out.size() - 1; i >= 0; i--) {
      if (out.get(i).fragmentCount() >= policy.maxFragments()) {
        settled = i + 1;
        break;
      }
    }
    List<SegmentList> lists = new ArrayList<>();
    if (settled < 2) {
      return lists;
    }
    Map<Long, SegmentList> baseByFirst = new HashMap<>();
    if (base != null) {
      base.lists().forEach(l -> baseByFirst.put(l.firstFragmentId(), l));
    }
    List<Segment> pending = new ArrayList<>();
    List<Segment> lastKept = null; // the segments of the list kept just before out[i], if it was
    int i = 0;
    while (i < settled) {
      SegmentList old = baseByFirst.get(out.get(i).firstFragmentId());
      if (old != null && intact(old, i, settled)) {
        newLists(pending, lists, written);
        lists.add(old);
        byte[] bytes = base.unwrittenLists().get(old.path());
        if (bytes != null) {
          written.put(old.path(), bytes);
        }
        lastKept = base.segmentsOf(old);
        i += (int) old.segmentCount();
        continue;
      }
      if (lastKept != null && lastKept.size() < policy.listMaxSegments()) {
        SegmentList reopened = lists.remove(lists.size() - 1);
        written.remove(reopened.path());
        pending.addAll(lastKept);
      }
      lastKept = null;
      pending.add(out.get(i++));
    }
    newLists(pending, lists, written);
    return lists;
  }

  /** Whether {@code list}'s segments are {@code out[at, at + count)}, all within the first {@code settled}. */
  private boolean intact(SegmentList list, int at, int settled) {
    if (at + list.segmentCount() > settled) {
      return false;
    }
    List<Segment> members = base.segmentsOf(list);
    for (int j = 0; j < members.size(); j++) {
      if (!members.get(j).path().equals(out.get(at + j).path())) {
        return false;
      }
    }
    return true;
  }

  /** Writes {@code pending} as lists of at most the policy's size, appended to {@code lists}; clears it. */
  private void newLists(List<Segment> pending, List<SegmentList> lists, Map<String, byte[]> written) {
    for (int from = 0; from < pending.size(); from += policy.listMaxSegments()) {
      List<Segment> chunk = pending.subList(from, Math.min(pending.size(), from + policy.listMaxSegments()));
      byte[] encoded = MetadataCodec.encodeSegmentList(chunk);
      long fragments = 0;
      long physical = 0;
      long live = 0;
      boolean compressed = false;
      Map<Integer, FieldBounds> bounds = null;
      for (Segment seg : chunk) {
        fragments += seg.fragmentCount();
        physical += seg.physicalRows();
        live += seg.liveRows();
        compressed = compressed || seg.compressed();
        bounds = bounds == null ? seg.bounds() : union(bounds, seg.bounds());
      }
      SegmentList list = new SegmentList(Segment.PREFIX + UUID.randomUUID() + SegmentList.SUFFIX, encoded.length,
          chunk.get(0).firstFragmentId(), chunk.get(chunk.size() - 1).lastFragmentId(), chunk.size(), fragments,
          physical, live, compressed, bounds);
      written.put(list.path(), encoded);
      lists.add(list);
    }
    pending.clear();
  }

  /** Per atomic field of the schema, the union of the fragments' bounds; unknown fields are left out. */
  private Map<Integer, FieldBounds> boundsOf(List<Fragment> fragments) {
    Map<Integer, FieldBounds> out = new HashMap<>();
    for (Field field : schema.atomicFields()) {
      FieldBounds union = null;
      for (Fragment f : fragments) {
        FieldBounds b = FragmentBounds.of(f, schema, field.id());
        union = union == null ? b : FragmentBounds.union(union, b);
        if (union.isUnknown()) {
          break;
        }
      }
      if (union != null && !union.isUnknown()) {
        out.put(field.id(), loose(union));
      }
    }
    return out;
  }

  /** Bounds of the union of two segments' values: fields known in both. */
  private static Map<Integer, FieldBounds> union(Map<Integer, FieldBounds> a, Map<Integer, FieldBounds> b) {
    Map<Integer, FieldBounds> out = new HashMap<>();
    for (Map.Entry<Integer, FieldBounds> e : a.entrySet()) {
      FieldBounds other = b.get(e.getKey());
      if (other != null) {
        FieldBounds u = FragmentBounds.union(e.getValue(), other);
        if (!u.isUnknown()) {
          out.put(e.getKey(), loose(u));
        }
      }
    }
    return out;
  }

  /** Bounds as a root records them: no exact counts. */
  private static FieldBounds loose(FieldBounds b) {
    return new FieldBounds(b.fieldId(), b.mayHaveNulls(), b.mayHaveValues(), java.util.OptionalLong.empty(),
        java.util.OptionalLong.empty(), b.mayHaveNan(), b.lower(), b.upper(), false);
  }
}
