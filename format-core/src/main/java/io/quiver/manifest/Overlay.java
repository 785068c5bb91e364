package io.quiver.manifest;

import java.util.Objects;

/**
 * Values that shadow base values of some cells of a fragment. Modelled and encoded in format 1.0; reads
 * merge them newest-first (by {@code committedVersion}, then list position).
 *
 * @param dataFile one value column per field id, one value per covered offset in offset order
 * @param coverage covered physical offsets
 * @param committedVersion the version whose commit introduced the overlay (stamped at build time)
 */
public record Overlay(DataFile dataFile, Coverage coverage, long committedVersion) {
  public Overlay {
    Objects.requireNonNull(dataFile, "dataFile");
    Objects.requireNonNull(coverage, "coverage");
    if (coverage instanceof Coverage.PerField perField
        && perField.offsets().size() != dataFile.fieldIds().size()) {
      throw new IllegalArgumentException(
          "overlay " + dataFile.path() + " has " + perField.offsets().size()
              + " coverage bitmaps for " + dataFile.fieldIds().size() + " fields");
    }
    if (committedVersion < 0) {
      throw new IllegalArgumentException("overlay committed version must be >= 0, got " + committedVersion);
    }
  }

  /** This overlay with the given fields tombstoned (coverage stays aligned), or empty if none is left. */
  public java.util.Optional<Overlay> withTombstones(java.util.Collection<Integer> ids) {
    DataFile marked = dataFile.withTombstones(ids);
    if (!marked.hasLiveFields()) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(marked == dataFile ? this : new Overlay(marked, coverage, committedVersion));
  }

  /** This overlay stamped with the version that commits it. */
  public Overlay withCommittedVersion(long version) {
    return new Overlay(dataFile, coverage, version);
  }
}
