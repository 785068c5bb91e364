package io.quiver.manifest;

import java.util.Arrays;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * The lineage of a fragment's physical rows on a table with stable row ids (format 1.4, writer feature {@code
 * row-ids}; docs/format.md section 14): for each offset, in offset order, the row's stable id, the version that
 * inserted it and the version that last changed one of its values. Stored as runs: ids as ranges (a run of
 * {@code count} rows holds ids {@code start, start + 1, ...}), versions as runs of one value. A fragment an append
 * wrote is one run of each; a compacted fragment holds the runs of the live rows it copied.
 *
 * <p>In a transaction, before its commit is built, a run may be <em>fresh</em>: ids {@link #FRESH} are assigned
 * from the table's row-id counter by the commit that publishes them, and versions {@link #THIS_VERSION} become
 * that commit's version. A retried commit resolves them again on its new base, so a rebase never duplicates an
 * id. A committed manifest holds no fresh run.
 */
public final class RowLineage {
  /** An id run's start in a transaction: ids assigned at commit. */
  public static final long FRESH = -1;

  /** A version run's value in a transaction: the version the commit publishes. */
  public static final long THIS_VERSION = 0;

  private final long[] ids;
  private final long[] created;
  private final long[] updated;
  private final long rows;
  private final long[] idEnds;
  private final long[] createdEnds;
  private final long[] updatedEnds;

  private RowLineage(long[] ids, long[] created, long[] updated) {
    this.ids = ids;
    this.created = created;
    this.updated = updated;
    this.rows = count(ids, "id");
    long c = count(created, "created-at version");
    long u = count(updated, "last-updated-at version");
    if (c != rows || u != rows) {
      throw new IllegalArgumentException("row lineage covers " + rows + " rows by id, " + c + " by created-at version"
          + " and " + u + " by last-updated-at version; each must cover every physical row");
    }
    for (long[] versions : List.of(created, updated)) {
      for (int i = 0; i < versions.length; i += 2) {
        if (versions[i] < 0) {
          throw new IllegalArgumentException("row lineage holds version " + versions[i] + "; versions are >= 0");
        }
      }
    }
    for (int i = 0; i < ids.length; i += 2) {
      if (ids[i] < 0 && ids[i] != FRESH) {
        throw new IllegalArgumentException("row lineage holds id run start " + ids[i] + "; ids are >= 0");
      }
    }
    this.idEnds = ends(ids);
    this.createdEnds = ends(created);
    this.updatedEnds = ends(updated);
  }

  private static long count(long[] runs, String what) {
    if (runs.length % 2 != 0) {
      throw new IllegalArgumentException("row lineage " + what + " runs must be (value, count) pairs, got "
          + runs.length + " numbers");
    }
    long n = 0;
    for (int i = 1; i < runs.length; i += 2) {
      if (runs[i] <= 0) {
        throw new IllegalArgumentException("row lineage " + what + " run " + (i / 2) + " has count " + runs[i]
            + "; counts must be positive");
      }
      n += runs[i];
    }
    return n;
  }

  /**
   * A lineage from its runs: {@code ids} as (start, count) pairs, the versions as (version, count) pairs.
   *
   * @throws IllegalArgumentException if the runs do not each cover the same number of rows
   */
  public static RowLineage of(long[] ids, long[] created, long[] updated) {
    return new RowLineage(merge(ids.clone(), true), merge(created.clone(), false), merge(updated.clone(), false));
  }

  /** {@code rows} rows new in the transaction: fresh ids, inserted and updated by the commit. */
  public static RowLineage fresh(long rows) {
    if (rows == 0) {
      return new RowLineage(new long[0], new long[0], new long[0]);
    }
    return new RowLineage(new long[] {FRESH, rows}, new long[] {THIS_VERSION, rows},
        new long[] {THIS_VERSION, rows});
  }

  /** The physical rows the lineage covers. */
  public long rows() {
    return rows;
  }

  /** Id runs as (start, count) pairs, a copy. */
  public long[] idRuns() {
    return ids.clone();
  }

  /** Created-at version runs as (version, count) pairs, a copy. */
  public long[] createdRuns() {
    return created.clone();
  }

  /** Last-updated-at version runs as (version, count) pairs, a copy. */
  public long[] updatedRuns() {
    return updated.clone();
  }

  /** The stable id of the row at {@code offset}; {@link #FRESH} for a fresh run. */
  public long rowId(long offset) {
    int run = runOf(idEnds, offset);
    long start = ids[2 * run];
    return start == FRESH ? FRESH : start + offset - (run == 0 ? 0 : idEnds[run - 1]);
  }

  /** The version that inserted the row at {@code offset}. */
  public long createdAt(long offset) {
    return created[2 * runOf(createdEnds, offset)];
  }

  /** The version that last changed a value of the row at {@code offset}. */
  public long updatedAt(long offset) {
    return updated[2 * runOf(updatedEnds, offset)];
  }

  private static long[] ends(long[] runs) {
    long[] out = new long[runs.length / 2];
    long n = 0;
    for (int i = 0; i < out.length; i++) {
      n += runs[2 * i + 1];
      out[i] = n;
    }
    return out;
  }

  private int runOf(long[] ends, long offset) {
    if (offset < 0 || offset >= rows) {
      throw new IndexOutOfBoundsException("offset " + offset + " of a lineage of " + rows + " rows");
    }
    int i = Arrays.binarySearch(ends, offset);
    return i >= 0 ? i + 1 : -i - 1;
  }

  /**
   * The ids, created-at and last-updated-at versions of the rows at {@code offsets} (ascending), into the three
   * arrays at the same positions: one walk over the runs, not a search per row.
   */
  public void fill(long[] offsets, int count, long[] idsOut, long[] createdOut, long[] updatedOut) {
    walk(ids, idEnds, offsets, count, idsOut, true);
    walk(created, createdEnds, offsets, count, createdOut, false);
    walk(updated, updatedEnds, offsets, count, updatedOut, false);
  }

  private void walk(long[] runs, long[] ends, long[] offsets, int count, long[] out, boolean ranges) {
    if (count == 0) {
      return;
    }
    int run = runOf(ends, offsets[0]);
    for (int i = 0; i < count; i++) {
      long o = offsets[i];
      if (o < 0 || o >= rows) {
        throw new IndexOutOfBoundsException("offset " + o + " of a lineage of " + rows + " rows");
      }
      while (ends[run] <= o) {
        run++;
      }
      long value = runs[2 * run];
      out[i] = ranges && value != FRESH ? value + o - (run == 0 ? 0 : ends[run - 1]) : value;
    }
  }

  /** Whether a run is fresh (ids or versions the commit assigns). */
  public boolean hasFresh() {
    return freshIds() > 0 || hasValue(created, THIS_VERSION) || hasValue(updated, THIS_VERSION);
  }

  /** Rows whose ids are fresh. */
  public long freshIds() {
    long n = 0;
    for (int i = 0; i < ids.length; i += 2) {
      if (ids[i] == FRESH) {
        n += ids[i + 1];
      }
    }
    return n;
  }

  private static boolean hasValue(long[] runs, long value) {
    for (int i = 0; i < runs.length; i += 2) {
      if (runs[i] == value) {
        return true;
      }
    }
    return false;
  }

  /**
   * This lineage with fresh ids assigned consecutively from {@code firstId} (in offset order) and {@link
   * #THIS_VERSION} replaced by {@code version}; {@link #freshIds()} ids are used.
   */
  public RowLineage resolve(long firstId, long version) {
    long[] i = ids.clone();
    long next = firstId;
    for (int k = 0; k < i.length; k += 2) {
      if (i[k] == FRESH) {
        i[k] = next;
        next += i[k + 1];
      }
    }
    return new RowLineage(merge(i, true), merge(replace(created, version), false), merge(replace(updated, version), false));
  }

  private static long[] replace(long[] runs, long version) {
    long[] out = runs.clone();
    for (int k = 0; k < out.length; k += 2) {
      if (out[k] == THIS_VERSION) {
        out[k] = version;
      }
    }
    return out;
  }

  /** The lineage of the rows at the offsets {@code keep} accepts, in offset order (a compaction's copy). */
  public RowLineage select(LongPredicate keep) {
    Builder b = new Builder();
    for (long o = 0; o < rows; o++) {
      if (keep.test(o)) {
        b.add(rowId(o), createdAt(o), updatedAt(o));
      }
    }
    return b.build();
  }

  /** The lineage of offsets {@code [from, to)}. */
  public RowLineage slice(long from, long to) {
    Builder b = new Builder();
    b.addRange(this, from, to);
    return b.build();
  }

  /** This lineage with the rows at the offsets {@code changed} accepts last updated by {@code version}. */
  public RowLineage updatedBy(LongPredicate changed, long version) {
    Builder b = new Builder();
    for (long o = 0; o < rows; o++) {
      b.add(rowId(o), createdAt(o), changed.test(o) ? version : updatedAt(o));
    }
    return b.build();
  }

  /** Every row last updated by {@code version}. */
  public RowLineage updatedBy(long version) {
    return new RowLineage(ids, created, rows == 0 ? new long[0] : new long[] {version, rows});
  }

  /** The lineages one after the other, as the rows of fragments copied in order into one. */
  public static RowLineage concat(List<RowLineage> parts) {
    Builder b = new Builder();
    for (RowLineage p : parts) {
      b.addRange(p, 0, p.rows);
    }
    return b.build();
  }

  /** Calls {@code consumer} with each id run (start, count) that is not fresh. */
  public void forEachIdRun(IdRunConsumer consumer) {
    long offset = 0;
    for (int k = 0; k < ids.length; k += 2) {
      if (ids[k] != FRESH) {
        consumer.accept(ids[k], ids[k + 1], offset);
      }
      offset += ids[k + 1];
    }
  }

  /** Receives an id run: ids {@code [start, start + count)} at offsets {@code [offset, offset + count)}. */
  @FunctionalInterface
  public interface IdRunConsumer {
    void accept(long start, long count, long offset);
  }

  /** Joins adjacent runs that continue each other (ids) or hold the same value (versions). */
  private static long[] merge(long[] runs, boolean ranges) {
    if (runs.length <= 2) {
      return runs;
    }
    long[] out = new long[runs.length];
    int n = 0;
    for (int k = 0; k < runs.length; k += 2) {
      long value = runs[k];
      long count = runs[k + 1];
      if (n > 0) {
        long prev = out[n - 2];
        boolean continues = ranges
            ? prev != FRESH && value != FRESH && prev + out[n - 1] == value || prev == FRESH && value == FRESH
            : prev == value;
        if (continues) {
          out[n - 1] += count;
          continue;
        }
      }
      out[n++] = value;
      out[n++] = count;
    }
    return n == out.length ? out : Arrays.copyOf(out, n);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowLineage l && Arrays.equals(ids, l.ids) && Arrays.equals(created, l.created)
        && Arrays.equals(updated, l.updated);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * Arrays.hashCode(ids) + Arrays.hashCode(created)) + Arrays.hashCode(updated);
  }

  @Override
  public String toString() {
    return "RowLineage[ids " + Arrays.toString(ids) + ", created " + Arrays.toString(created) + ", updated "
        + Arrays.toString(updated) + "]";
  }

  /** Builds a lineage row by row or range by range, joining runs as it goes. */
  public static final class Builder {
    private long[] ids = new long[16];
    private long[] created = new long[16];
    private long[] updated = new long[16];
    private int ni;
    private int nc;
    private int nu;

    /** Adds one row. */
    public Builder add(long id, long createdAt, long updatedAt) {
      return addRun(id, createdAt, updatedAt, 1);
    }

    private Builder addRun(long id, long createdAt, long updatedAt, long count) {
      if (ni > 0 && (ids[ni - 2] == FRESH ? id == FRESH : id != FRESH && ids[ni - 2] + ids[ni - 1] == id)) {
        ids[ni - 1] += count;
      } else {
        ids = grow(ids, ni);
        ids[ni++] = id;
        ids[ni++] = count;
      }
      if (nc > 0 && created[nc - 2] == createdAt) {
        created[nc - 1] += count;
      } else {
        created = grow(created, nc);
        created[nc++] = createdAt;
        created[nc++] = count;
      }
      if (nu > 0 && updated[nu - 2] == updatedAt) {
        updated[nu - 1] += count;
      } else {
        updated = grow(updated, nu);
        updated[nu++] = updatedAt;
        updated[nu++] = count;
      }
      return this;
    }

    /** Adds the rows at offsets {@code [from, to)} of {@code l}, run by run. */
    public Builder addRange(RowLineage l, long from, long to) {
      long o = from;
      while (o < to) {
        long id = l.rowId(o);
        long c = l.createdAt(o);
        long u = l.updatedAt(o);
        // The longest stretch from o on where all three continue their runs.
        long end = Math.min(to, Math.min(runEnd(l.idEnds, o), Math.min(runEnd(l.createdEnds, o),
            runEnd(l.updatedEnds, o))));
        addRun(id, c, u, end - o);
        o = end;
      }
      return this;
    }

    private static long runEnd(long[] ends, long offset) {
      int i = Arrays.binarySearch(ends, offset);
      return ends[i >= 0 ? i + 1 : -i - 1];
    }

    private static long[] grow(long[] a, int n) {
      return n + 2 <= a.length ? a : Arrays.copyOf(a, a.length * 2);
    }

    public RowLineage build() {
      return new RowLineage(Arrays.copyOf(ids, ni), Arrays.copyOf(created, nc), Arrays.copyOf(updated, nu));
    }
  }
}
