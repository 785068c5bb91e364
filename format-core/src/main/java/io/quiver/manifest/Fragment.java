package io.quiver.manifest;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A horizontal slice of a table: {@code physicalRows} rows stored across column files, plus an optional
 * deletion file and overlays.
 *
 * @param id fragment id, unique in the table's history
 * @param files data files; together they store each atomic field at most once
 * @param deletionFile deleted offsets, if any
 * @param physicalRows rows stored, deleted ones included
 * @param overlays cell-level updates, oldest first
 * @param lineage each physical row's stable id and versions, on a table with row ids (format 1.4); empty on other
 *     tables, and in a transaction for rows the commit gives fresh ids
 */
public record Fragment(
    long id, List<DataFile> files, Optional<DeletionFile> deletionFile, long physicalRows, List<Overlay> overlays,
    Optional<RowLineage> lineage) {

  /** Fragment ids fit in the upper 32 bits of a row address. */
  public static final long MAX_ID = 0xFFFF_FFFFL;

  /** Offsets fit in the lower 32 bits of a row address. */
  public static final long MAX_ROWS = 1L << 32;

  /** A fragment without row lineage. */
  public Fragment(
      long id, List<DataFile> files, Optional<DeletionFile> deletionFile, long physicalRows, List<Overlay> overlays) {
    this(id, files, deletionFile, physicalRows, overlays, Optional.empty());
  }

  public Fragment {
    if (id < 0 || id > MAX_ID) {
      throw new IllegalArgumentException("fragment id must be in [0, " + MAX_ID + "], got " + id);
    }
    files = List.copyOf(files);
    deletionFile = Objects.requireNonNullElse(deletionFile, Optional.empty());
    overlays = List.copyOf(overlays);
    lineage = Objects.requireNonNullElse(lineage, Optional.empty());
    if (lineage.isPresent() && lineage.get().rows() != physicalRows) {
      throw new IllegalArgumentException("fragment " + id + " has " + physicalRows + " physical rows but a row lineage"
          + " of " + lineage.get().rows());
    }
    if (physicalRows < 0 || physicalRows > MAX_ROWS) {
      throw new IllegalArgumentException(
          "fragment " + id + " has " + physicalRows + " physical rows; expected 0.." + MAX_ROWS);
    }
    Set<Integer> stored = new HashSet<>();
    for (DataFile file : files) {
      for (int fieldId : file.fieldIds()) {
        if (fieldId >= 0 && !stored.add(fieldId)) {
          throw new IllegalArgumentException(
              "fragment " + id + " stores field " + fieldId + " in more than one data file");
        }
      }
    }
    if (deletionFile.isPresent() && deletionFile.get().deletedRows() > physicalRows) {
      throw new IllegalArgumentException(
          "fragment " + id + " deletes " + deletionFile.get().deletedRows() + " of " + physicalRows + " rows");
    }
    for (Overlay overlay : overlays) {
      if (overlay.coverage().maxOffset() >= physicalRows) {
        throw new IllegalArgumentException(
            "overlay " + overlay.dataFile().path() + " covers offset " + overlay.coverage().maxOffset()
                + " but fragment " + id + " has " + physicalRows + " physical rows");
      }
    }
  }

  /** A fragment of freshly written files with no deletions or overlays. */
  public static Fragment of(long id, List<DataFile> files, long physicalRows) {
    return new Fragment(id, files, Optional.empty(), physicalRows, List.of());
  }

  /** The same fragment under another id (appends are renumbered at commit time). */
  public Fragment withId(long newId) {
    return new Fragment(newId, files, deletionFile, physicalRows, overlays, lineage);
  }

  /** The same fragment with other files, deletion file or overlays. */
  public Fragment with(List<DataFile> newFiles, Optional<DeletionFile> newDeletion, List<Overlay> newOverlays) {
    return new Fragment(id, newFiles, newDeletion, physicalRows, newOverlays, lineage);
  }

  /** The same fragment with {@code newLineage} (empty: none). */
  public Fragment withLineage(Optional<RowLineage> newLineage) {
    return new Fragment(id, files, deletionFile, physicalRows, overlays, newLineage);
  }

  /**
   * This fragment with the given fields tombstoned in its data files, files without a live field
   * dropped, and overlays on those fields committed at or before {@code overlaysUpToVersion} tombstoned.
   */
  public Fragment withTombstones(java.util.Collection<Integer> ids, long overlaysUpToVersion) {
    List<DataFile> kept = new java.util.ArrayList<>();
    for (DataFile f : files) {
      DataFile marked = f.withTombstones(ids);
      if (marked.hasLiveFields()) {
        kept.add(marked);
      }
    }
    List<Overlay> keptOverlays = new java.util.ArrayList<>();
    for (Overlay o : overlays) {
      if (o.committedVersion() <= overlaysUpToVersion) {
        o.withTombstones(ids).ifPresent(keptOverlays::add);
      } else {
        keptOverlays.add(o);
      }
    }
    return new Fragment(id, kept, deletionFile, physicalRows, keptOverlays, lineage);
  }

  /** Rows visible to readers: physical rows minus deleted ones. */
  public long liveRows() {
    return physicalRows - deletionFile.map(DeletionFile::deletedRows).orElse(0L);
  }

  /** The data file storing {@code fieldId}, if any. */
  public Optional<DataFile> fileOf(int fieldId) {
    return files.stream().filter(f -> f.fieldIds().contains(fieldId)).findFirst();
  }
}
