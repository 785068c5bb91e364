package io.quiver.internal.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.manifest.Coverage;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.IndexedFragment;
import io.quiver.manifest.Overlay;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.buffer.MutableRoaringBitmap;

/**
 * The validity rule of docs/format.md §13.1, case by case: which fragment states a segment entry answers for, and
 * which offsets it must then leave to the filter. The indexed column is a struct {@code s} with members 2 and 3;
 * field 1 is another column.
 */
class IndexSelectionTest {
  private static final Set<Integer> COLUMN = Set.of(2, 3);
  private static final DataFile BASE = DataFile.of("data/base.arrow", List.of(1, 2, 3), 1000);
  private static final DataFile OTHER_BASE = DataFile.of("data/other.arrow", List.of(5), 1000);

  private static Overlay overlay(String path, List<Integer> ids, long version, int... offsets) {
    return new Overlay(DataFile.of(path, ids, 100), new Coverage.Shared(MutableRoaringBitmap.bitmapOf(offsets)), version);
  }

  private static Fragment fragment(long rows, List<DataFile> files, Overlay... overlays) {
    return new Fragment(7, files, Optional.empty(), rows, List.of(overlays));
  }

  private static IndexedFragment recorded(Fragment f) {
    return new IndexedFragment(f.id(), f.physicalRows(), IndexedFragment.sourceFilesOf(f, COLUMN));
  }

  @Test
  void theRecordedStateIsAnsweredWithNothingAdded() {
    Fragment f = fragment(100, List.of(BASE), overlay("data/o1.arrow", List.of(2), 3, 5, 6));
    assertThat(IndexSelection.changedSince(recorded(f), f, COLUMN)).isEqualTo(new RoaringBitmap());
  }

  @Test
  void newerOverlaysOnTheColumnAddEveryOffsetTheyCoverForIt() {
    Overlay old = overlay("data/o1.arrow", List.of(2), 3, 5, 6);
    IndexedFragment entry = recorded(fragment(100, List.of(BASE), old));
    // A newer overlay on member 3, one on another column only (not a source file), one with both.
    Overlay y = overlay("data/o2.arrow", List.of(3), 4, 10, 11);
    Overlay elsewhere = overlay("data/o3.arrow", List.of(1), 5, 20);
    Overlay perField = new Overlay(DataFile.of("data/o4.arrow", List.of(1, 2), 100), new Coverage.PerField(List.of(
        MutableRoaringBitmap.bitmapOf(30).toImmutableRoaringBitmap(),
        MutableRoaringBitmap.bitmapOf(40, 41).toImmutableRoaringBitmap())), 6);
    Fragment now = fragment(100, List.of(BASE), old, y, elsewhere, perField);
    assertThat(IndexSelection.changedSince(entry, now, COLUMN))
        .as("o2's rows, and o4's rows for field 2 (not its rows for field 1)").isEqualTo(RoaringBitmap.bitmapOf(10, 11, 40, 41));
    // An older committed version does not matter: the offsets it covers are candidates either way.
    Fragment olderStamp = fragment(100, List.of(BASE), old, overlay("data/o5.arrow", List.of(2), 1, 50));
    assertThat(IndexSelection.changedSince(entry, olderStamp, COLUMN)).isEqualTo(RoaringBitmap.bitmapOf(50));
  }

  @Test
  void anyOtherStateIsNotAnswered() {
    Overlay o1 = overlay("data/o1.arrow", List.of(2), 3, 5);
    Overlay o2 = overlay("data/o2.arrow", List.of(3), 4, 6);
    IndexedFragment entry = recorded(fragment(100, List.of(BASE), o1, o2));
    assertThat(IndexSelection.changedSince(entry, fragment(101, List.of(BASE), o1, o2), COLUMN))
        .as("other physical rows").isNull();
    assertThat(IndexSelection.changedSince(entry, new Fragment(8, List.of(BASE), Optional.empty(), 100,
        List.of(o1, o2)), COLUMN)).as("another id").isNull();
    assertThat(IndexSelection.changedSince(entry, fragment(100, List.of(BASE), o2), COLUMN))
        .as("a recorded overlay removed").isNull();
    assertThat(IndexSelection.changedSince(entry, fragment(100, List.of(BASE), o2, o1), COLUMN))
        .as("recorded overlays reordered").isNull();
    // A member (field 4) added to the column since, stored in a new base file: with overlays recorded, the new file
    // sorts before them; without, it would follow the recorded files, and it is no overlay.
    Set<Integer> grown = Set.of(2, 3, 4);
    DataFile member = DataFile.of("data/new.arrow", List.of(4), 10);
    assertThat(IndexSelection.changedSince(entry, fragment(100, List.of(BASE, member), o1, o2), grown))
        .as("a new base file for the column").isNull();
    IndexedFragment bare = recorded(fragment(100, List.of(BASE)));
    assertThat(bare.sourceFiles()).containsExactly("data/base.arrow");
    assertThat(IndexSelection.changedSince(bare, fragment(100, List.of(BASE, member)), grown))
        .as("a new base file after the recorded ones").isNull();
    assertThat(IndexSelection.changedSince(entry, fragment(100, List.of(DataFile.of("data/rewritten.arrow",
        List.of(1, 2, 3), 10)), o1, o2), COLUMN)).as("a replaced base file").isNull();
    // A new base file of another column changes nothing for this one.
    assertThat(IndexSelection.changedSince(entry, fragment(100, List.of(BASE, OTHER_BASE), o1, o2), COLUMN))
        .isEqualTo(new RoaringBitmap());
  }
}
