package io.quiver.internal.txn;

import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Overlay;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import org.roaringbitmap.buffer.ImmutableRoaringBitmap;

/**
 * The witness of one atomic field in one fragment: everything a reader consults to produce that field's
 * values there. Computed by one pure function, {@link #of(Fragment, int)}, both when a staged column
 * write is prepared and on every commit attempt; the commit goes ahead only when the two are equal, so
 * any change to what backs the field — a base file added, removed, swapped or remapped, an overlay
 * added, removed, re-stamped or re-covered — makes the staged bytes stale.
 *
 * @param fieldId the atomic field
 * @param base the base data file column storing the field, or empty when no base file stores it (the
 *     field reads as null there) — absence is part of the witness
 * @param overlays every live overlay entry for the field, in manifest order (oldest first)
 */
public record FieldBacking(int fieldId, Optional<FileColumn> base, List<OverlayBacking> overlays) {

  public FieldBacking {
    Objects.requireNonNull(base, "base");
    overlays = List.copyOf(overlays);
  }

  /**
   * One column of one data file, identified the way a reader resolves it.
   *
   * @param path file path under {@code data/}
   * @param baseId the file's base location id, if any
   * @param formatMajor data-file format major version
   * @param formatMinor data-file format minor version
   * @param columnIndex the atomic column of the file holding the field
   * @param sizeBytes the file's recorded size
   */
  public record FileColumn(String path, OptionalInt baseId, int formatMajor, int formatMinor, int columnIndex,
      long sizeBytes) {
    public FileColumn {
      Objects.requireNonNull(path, "path");
      baseId = baseId == null ? OptionalInt.empty() : baseId;
    }

    static FileColumn of(DataFile file, int fieldId) {
      return new FileColumn(file.path(), file.baseId(), file.formatMajor(), file.formatMinor(),
          file.columnOf(fieldId), file.sizeBytes());
    }

    @Override
    public String toString() {
      return path + "[column " + columnIndex + ", format " + formatMajor + "." + formatMinor
          + baseId.stream().mapToObj(b -> ", base " + b).findFirst().orElse("") + ", " + sizeBytes + " bytes]";
    }
  }

  /**
   * One overlay's entry for the field.
   *
   * @param file the overlay file column holding the field's values
   * @param committedVersion the version that committed the overlay
   * @param coverage the offsets the overlay covers for this field
   */
  public record OverlayBacking(FileColumn file, long committedVersion, ImmutableRoaringBitmap coverage) {
    public OverlayBacking {
      Objects.requireNonNull(file, "file");
      coverage = coverage.clone();
    }

    @Override
    public String toString() {
      return "overlay " + file + " committed at version " + committedVersion + " covering "
          + coverage.getCardinality() + " offsets";
    }
  }

  /** The witness of {@code fieldId} in {@code fragment}. */
  public static FieldBacking of(Fragment fragment, int fieldId) {
    Optional<FileColumn> base = fragment.fileOf(fieldId).map(f -> FileColumn.of(f, fieldId));
    List<OverlayBacking> overlays = new ArrayList<>();
    for (Overlay o : fragment.overlays()) {
      int position = o.dataFile().fieldIds().indexOf(fieldId);
      if (position >= 0) {
        overlays.add(new OverlayBacking(
            FileColumn.of(o.dataFile(), fieldId), o.committedVersion(), o.coverage().offsetsFor(position)));
      }
    }
    return new FieldBacking(fieldId, base, overlays);
  }

  /** What differs between this (prepare-time) witness and {@code now}, in words; empty when equal. */
  public Optional<String> difference(FieldBacking now) {
    if (equals(now)) {
      return Optional.empty();
    }
    if (!base.equals(now.base)) {
      if (base.isEmpty()) {
        return Optional.of("it had no base data file when the write was prepared, and now has "
            + now.base.get() + " (another writer filled it)");
      }
      if (now.base.isEmpty()) {
        return Optional.of("its base data file " + base.get() + " is gone (replaced or dropped)");
      }
      return Optional.of("its base data file changed from " + base.get() + " to " + now.base.get());
    }
    return Optional.of("its overlays changed from " + overlays + " to " + now.overlays);
  }
}
