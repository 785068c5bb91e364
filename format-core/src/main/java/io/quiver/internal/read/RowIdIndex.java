package io.quiver.internal.read;

import io.quiver.exceptions.NotFoundException;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.dataset.RowAddress;
import io.quiver.manifest.RowLineage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Where each stable row id of one version is: the id runs of every fragment's lineage, sorted by first id, so a
 * row id resolves to its row address with a binary search. Built once per version from the manifest alone
 * (deletion files are read only for an id whose row is deleted, to tell "deleted" from "elsewhere").
 */
public final class RowIdIndex {
  private final long[] starts;
  private final long[] counts;
  private final long[] fragmentIds;
  private final long[] offsets;
  /** The largest end (start + count) of the runs up to each index: how far left a run may still hold an id. */
  private final long[] maxEnds;
  private final TableIo io;
  private final Manifest manifest;
  private java.util.Map<Long, Fragment> byId;

  private RowIdIndex(TableIo io, Manifest manifest, List<long[]> runs) {
    this.io = io;
    this.manifest = manifest;
    runs.sort(Comparator.comparingLong(r -> r[0]));
    int n = runs.size();
    starts = new long[n];
    counts = new long[n];
    fragmentIds = new long[n];
    offsets = new long[n];
    for (int i = 0; i < n; i++) {
      long[] r = runs.get(i);
      starts[i] = r[0];
      counts[i] = r[1];
      fragmentIds[i] = r[2];
      offsets[i] = r[3];
    }
    maxEnds = new long[n];
    for (int i = 0; i < n; i++) {
      maxEnds[i] = Math.max(i == 0 ? Long.MIN_VALUE : maxEnds[i - 1], starts[i] + counts[i]);
    }
  }

  /** The index of {@code manifest}, a version of a table with row ids. */
  public static RowIdIndex of(TableIo io, Manifest manifest) {
    List<long[]> runs = new ArrayList<>();
    for (Fragment f : manifest.fragments()) {
      RowLineage l = f.lineage().orElseThrow(() -> new IllegalStateException(
          "fragment " + f.id() + " of a table with row ids has no row lineage"));
      l.forEachIdRun((start, count, offset) -> runs.add(new long[] {start, count, f.id(), offset}));
    }
    return new RowIdIndex(io, manifest, runs);
  }

  /**
   * The row addresses of {@code rowIds}, in order.
   *
   * @throws NotFoundException naming the first id that no live row of the version holds
   */
  public long[] addresses(long[] rowIds) {
    long[] out = new long[rowIds.length];
    for (int i = 0; i < rowIds.length; i++) {
      out[i] = address(rowIds[i]);
    }
    return out;
  }

  private long address(long id) {
    int i = Arrays.binarySearch(starts, id);
    int run = i >= 0 ? i : -i - 2;
    // Live rows hold distinct ids; a replaced row's deleted copy may share its id with its new version, so every
    // run that holds the id is looked at until a live row is found.
    boolean deleted = false;
    for (int r = Math.min(run, starts.length - 1); r >= 0 && maxEnds[r] > id; r--) {
      if (starts[r] <= id && id < starts[r] + counts[r]) {
        long offset = offsets[r] + id - starts[r];
        if (live(fragmentIds[r], offset)) {
          return RowAddress.of(fragmentIds[r], offset);
        }
        deleted = true;
      }
    }
    if (deleted) {
      throw new NotFoundException("row id " + id + " names a row deleted at version " + manifest.version()
          + "; scan with Scanner.withRowLineage to see the live rows' ids");
    }
    throw new NotFoundException("row id " + id + " is not a row id of version " + manifest.version() + " (ids 0 to "
        + (manifest.nextRowId().orElse(0) - 1) + " were assigned; the row was removed, or is newer)"
        + "; scan with Scanner.withRowLineage to see the live rows' ids");
  }

  private boolean live(long fragmentId, long offset) {
    Fragment f = fragment(fragmentId);
    return f.deletionFile().isEmpty() || !Deletions.of(io, f).contains((int) offset);
  }

  private Fragment fragment(long id) {
    if (manifest.fragments() instanceof io.quiver.manifest.FragmentList list) {
      return list.find(id).orElseThrow();
    }
    if (byId == null) {
      java.util.Map<Long, Fragment> map = new java.util.HashMap<>();
      manifest.fragments().forEach(f -> map.put(f.id(), f));
      byId = map;
    }
    return byId.get(id);
  }
}
