package io.quiver.internal.index;

import io.quiver.internal.predicate.KeyConditions;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.IndexSegment;
import io.quiver.manifest.IndexedFragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import io.quiver.manifest.ScalarIndex;
import io.quiver.predicate.Predicate;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.roaringbitmap.RoaringBitmap;

/**
 * What a version's indices say about a filter: for each fragment some index answers for (a segment covering it in
 * its state at the build, possibly with newer overlays since, for a field a top-level conjunct constrains;
 * docs/format.md §13.1), the offsets that may match — the segment's hits and every offset a newer overlay covers on
 * the indexed column; every other offset makes that conjunct false or unknown. Fragments no usable segment covers are absent and are scanned.
 * When several conjuncts have usable indices for a fragment, their candidates are intersected.
 *
 * <p>A conjunct is <em>decided</em> for a fragment when a segment answers for it with no newer overlay on the
 * indexed column: its candidates are then exactly the offsets where the conjunct is true (docs/format.md §13.1,
 * "Decided conjuncts"), so a reader of those candidates need not evaluate it, nor read its column for it.
 */
public final class IndexSelection {
  private final Map<Long, RoaringBitmap> candidates;
  private final Map<Long, BitSet> decided;

  private IndexSelection(Map<Long, RoaringBitmap> candidates, Map<Long, BitSet> decided) {
    this.candidates = candidates;
    this.decided = decided;
  }

  /** No fragment is answered by an index. */
  public static final IndexSelection NONE = new IndexSelection(Map.of(), Map.of());

  /** The selection for {@code filter} over {@code fragments} of {@code manifest}. */
  public static IndexSelection of(TableIo io, Manifest manifest, Optional<Predicate> filter, List<Fragment> fragments) {
    if (filter.isEmpty() || manifest.indices().isEmpty() || fragments.isEmpty()) {
      return NONE;
    }
    List<KeyConditions.Condition> conditions = KeyConditions.of(filter.get(), manifest.schema());
    if (conditions.isEmpty()) {
      return NONE;
    }
    Map<Long, Fragment> byId = new HashMap<>();
    fragments.forEach(f -> byId.put(f.id(), f));
    Map<Long, RoaringBitmap> out = new HashMap<>();
    Map<Long, BitSet> decided = new HashMap<>();
    for (KeyConditions.Condition condition : conditions) {
      for (ScalarIndex index : manifest.indices()) {
        if (index.fieldId() != condition.fieldId()) {
          continue;
        }
        Set<Integer> column = IndexedColumns.of(manifest.schema(), index.fieldId());
        for (IndexSegment segment : index.segments()) {
          Map<Long, RoaringBitmap> answered = new HashMap<>();
          for (IndexedFragment covered : segment.fragments()) {
            Fragment f = byId.get(covered.fragmentId());
            RoaringBitmap changed = f == null ? null : changedSince(covered, f, column);
            if (changed != null) {
              if (changed.isEmpty()) {
                // The segment's hits alone: exactly the offsets where the conjunct is true.
                decided.computeIfAbsent(f.id(), x -> new BitSet()).set(condition.conjunct());
              }
              answered.put(f.id(), changed); // the segment's hits are added to the offsets changed since
            }
          }
          if (answered.isEmpty()) {
            continue;
          }
          SegmentFile.lookup(io, segment, condition).forEach((fragment, offsets) -> {
            RoaringBitmap hits = answered.get(fragment);
            if (hits != null) {
              hits.or(offsets);
            }
          });
          answered.forEach((fragment, hits) -> out.merge(fragment, hits, (a, b) -> RoaringBitmap.and(a, b)));
        }
      }
    }
    return out.isEmpty() ? NONE : new IndexSelection(out, decided);
  }

  /**
   * Whether a segment entry may answer for {@code fragment} (docs/format.md §13.1, validity rule), and which of its
   * offsets it cannot answer for: null when it may not (another id or physical row count, or source files for the
   * column that are not the recorded ones followed only by newer overlay files); else the offsets those newer
   * overlays cover for any atomic field of the column (empty when the files are exactly the recorded ones). Those
   * offsets are candidates whatever the segment says: their values (and their structs' validity) may have changed
   * since the build, and the exact filter decides them. Every other offset is read from the recorded files, whose
   * precedence among themselves is unchanged, so it holds the value the segment indexed.
   */
  static RoaringBitmap changedSince(IndexedFragment covered, Fragment fragment, Set<Integer> column) {
    if (fragment.id() != covered.fragmentId() || fragment.physicalRows() != covered.physicalRows()) {
      return null;
    }
    List<String> current = IndexedFragment.sourceFilesOf(fragment, column);
    List<String> recorded = covered.sourceFiles();
    if (current.size() < recorded.size() || !current.subList(0, recorded.size()).equals(recorded)) {
      return null;
    }
    Set<String> newer = new java.util.HashSet<>(current.subList(recorded.size(), current.size()));
    RoaringBitmap changed = new RoaringBitmap();
    for (Overlay overlay : fragment.overlays()) {
      if (!newer.remove(overlay.dataFile().path())) {
        continue;
      }
      List<Integer> ids = overlay.dataFile().fieldIds();
      for (int i = 0; i < ids.size(); i++) {
        if (column.contains(ids.get(i))) {
          changed.or(overlay.coverage().offsetsFor(i).toRoaringBitmap());
        }
      }
    }
    // A newer source file that is no overlay (a base data file written for the column since): not answerable.
    return newer.isEmpty() ? changed : null;
  }

  /** The offsets of fragment {@code id} that may match, or empty when no index answers for it. */
  public Optional<RoaringBitmap> candidates(long fragmentId) {
    return Optional.ofNullable(candidates.get(fragmentId));
  }

  /**
   * The positions (in {@link KeyConditions#conjuncts}) of the filter's conjuncts an index decides for fragment
   * {@code id}: true at every one of its {@link #candidates}. Empty when none is (or no index answers for it).
   */
  public BitSet decided(long fragmentId) {
    BitSet d = decided.get(fragmentId);
    return d == null ? new BitSet() : (BitSet) d.clone();
  }

  /** Fragments an index answered for. */
  public int answered() {
    return candidates.size();
  }
}
