package io.quiver.internal.read;

import io.quiver.internal.table.TableIo;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.DeletionFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.FragmentList;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.roaringbitmap.RoaringBitmap;

/**
 * Splits a version's scan into ranges that workers read independently: one per fragment with live rows
 * that the filter may match (by the column statistics, {@link ScanSpec#mayMatch}), or, for a fragment whose estimated bytes exceed a target, equal row ranges of it. Reads nothing but the
 * deletion files of the fragments it splits (to count each range's live rows exactly).
 */
public final class ScanPlanner {
  /** {@link #plan} target meaning "never split a fragment". */
  public static final long NO_SPLIT = Long.MAX_VALUE;

  private ScanPlanner() {}

  /**
   * One range of a plan, with what an engine weighs it by.
   *
   * @param rows live rows in the range, before the filter
   * @param bytes estimate of the bytes a reader fetches: the data and overlay files' shares of the fields
   *     read, prorated to the range, plus the deletion file
   */
  public record Planned(FragmentRange range, long rows, long bytes) {}

  /** The ranges of every fragment of {@code manifest} with live rows, in manifest order. */
  public static List<Planned> plan(TableIo io, Manifest manifest, ScanSpec spec, long targetBytes) {
    Set<Integer> read = spec.readFieldIds();
    List<Planned> out = new ArrayList<>();
    for (Fragment fragment : candidates(manifest, spec)) {
      // Pruning: no live row, or column statistics show no row can match the filter.
      if (fragment.liveRows() == 0 || !spec.mayMatch(fragment)) {
        continue;
      }
      long bytes = estimate(fragment, read, 0, fragment.physicalRows());
      if (targetBytes == NO_SPLIT || bytes <= targetBytes || fragment.physicalRows() < 2) {
        out.add(new Planned(FragmentRange.whole(fragment), fragment.liveRows(), bytes));
        continue;
      }
      long parts = Math.min(fragment.physicalRows(), ceilDiv(bytes, Math.max(1, targetBytes)));
      long size = ceilDiv(fragment.physicalRows(), parts);
      RoaringBitmap deleted = fragment.deletionFile().isPresent() ? Deletions.of(io, fragment) : new RoaringBitmap();
      for (long start = 0; start < fragment.physicalRows(); start += size) {
        long end = Math.min(fragment.physicalRows(), start + size);
        long live = (end - start) - deleted.rangeCardinality(start, end);
        if (live > 0) {
          out.add(new Planned(new FragmentRange(fragment, start, end), live, estimate(fragment, read, start, end)));
        }
      }
    }
    return out;
  }

  /**
   * The fragments worth considering: all of them, except that a segmented version's segments whose bounds rule
   * the filter out are skipped unread. The other segments are read and decoded in parallel.
   */
  public static List<Fragment> candidates(Manifest manifest, ScanSpec spec) {
    if (!(manifest.fragments() instanceof FragmentList list)) {
      return manifest.fragments();
    }
    List<Integer> wanted = new ArrayList<>();
    for (int i = 0; i < list.segments().size(); i++) {
      io.quiver.manifest.Segment s = list.segments().get(i);
      if (s.liveRows() > 0 && spec.mayMatch(s)) {
        wanted.add(i);
      }
    }
    List<Fragment> out = new ArrayList<>();
    for (List<Fragment> fragments : list.fragmentsOf(wanted)) {
      out.addAll(fragments);
    }
    out.addAll(list.inline());
    return out;
  }

  /** The estimate of {@link Planned#bytes()} for rows {@code [start, end)} of a fragment. */
  public static long estimate(Fragment fragment, Set<Integer> readFieldIds, long start, long end) {
    double share = fragment.physicalRows() == 0 ? 0 : (double) (end - start) / fragment.physicalRows();
    double bytes = 0;
    for (DataFile file : fragment.files()) {
      bytes += share * fileShare(file, readFieldIds);
    }
    for (Overlay overlay : fragment.overlays()) {
      bytes += share * fileShare(overlay.dataFile(), readFieldIds);
    }
    bytes += fragment.deletionFile().map(DeletionFile::sizeBytes).orElse(0L);
    return (long) Math.ceil(bytes);
  }

  /** A file's bytes times the fraction of its columns that hold fields read. */
  private static double fileShare(DataFile file, Set<Integer> readFieldIds) {
    if (file.fieldIds().isEmpty()) {
      return 0;
    }
    long hit = file.fieldIds().stream().filter(readFieldIds::contains).count();
    return (double) file.sizeBytes() * hit / file.fieldIds().size();
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }
}
