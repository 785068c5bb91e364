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
 * row id resolves to its row address with a binary search. Built once per version from the manifest (deletion files
 * are read only for an id whose row is deleted, to tell "deleted" from "elsewhere"). A fragment whose lineage is in a
 * lineage file not read yet, with its row id span recorded (docs/format.md section 14.1), joins the index only when
 * a requested id falls in that span: a take reads the lineage files that may hold its ids, not every one.
 */
public final class RowIdIndex {
  private long[] starts;
  private long[] counts;
  private long[] fragmentIds;
  private long[] offsets;
  /** The largest end (start + count) of the runs up to each index: how far left a run may still hold an id. */
  private long[] maxEnds;
  /** The runs indexed so far: {start, count, fragment id, offset}. */
  private final List<long[]> runs;
  /** Fragments with an unread lineage file whose recorded span says which ids it may hold, by first id. */
  private final List<Fragment> deferred;
  private final TableIo io;
  private final Manifest manifest;
  private java.util.Map<Long, Fragment> byId;

  private RowIdIndex(TableIo io, Manifest manifest, List<long[]> runs, List<Fragment> deferred) {
    this.io = io;
    this.manifest = manifest;
    this.runs = runs;
    this.deferred = deferred;
    index();
  }

  private void index() {
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
    List<Fragment> deferred = new ArrayList<>();
    for (Fragment f : manifest.fragments()) {
      RowLineage l = f.lineage().orElseThrow(() -> new IllegalStateException(
          "fragment " + f.id() + " of a table with row ids has no row lineage"));
      if (!l.isLoaded() && l.file().orElseThrow().rowIdEnd() != 0) {
        deferred.add(f);
      } else {
        add(runs, f, l);
      }
    }
    deferred.sort(Comparator.comparingLong(f -> f.lineage().orElseThrow().file().orElseThrow().firstRowId()));
    return new RowIdIndex(io, manifest, runs, deferred);
  }

  private static void add(List<long[]> runs, Fragment f, RowLineage l) {
    l.forEachIdRun((start, count, offset) -> runs.add(new long[] {start, count, f.id(), offset}));
  }

  /** Reads the deferred lineage files whose span holds one of {@code rowIds} and indexes their runs. */
  private void load(long[] rowIds) {
    if (deferred.isEmpty()) {
      return;
    }
    long[] sorted = rowIds.clone();
    Arrays.sort(sorted);
    boolean added = false;
    for (java.util.Iterator<Fragment> it = deferred.iterator(); it.hasNext(); ) {
      Fragment f = it.next();
      RowLineage.File file = f.lineage().orElseThrow().file().orElseThrow();
      int i = Arrays.binarySearch(sorted, file.firstRowId());
      int first = i >= 0 ? i : -i - 1; // the first requested id >= the span's first
      if (first < sorted.length && sorted[first] < file.rowIdEnd()) {
        add(runs, f, f.lineage().orElseThrow());
        it.remove();
        added = true;
      }
    }
    if (added) {
      index();
    }
  }

  /**
   * The row addresses of {@code rowIds}, in order.
   *
   * @throws NotFoundException naming the first id that no live row of the version holds
   */
  public synchronized long[] addresses(long[] rowIds) {
    load(rowIds);
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
