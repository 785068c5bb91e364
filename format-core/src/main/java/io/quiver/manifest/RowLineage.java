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
  /** The lineage file holding the runs (docs/format.md section 14.1), or null for inline runs. */
  private final File file;
  /** For a lineage in a file: its runs once loaded (an inline lineage), else null. */
  private volatile RowLineage loaded;
  /** For a lineage in a file not loaded yet: what reads it, once bound. */
  private volatile Loader loader;

  /**
   * A lineage stored in a file of its own, {@code _lineage/{uuid}.lin} (format 1.4, feature {@code lineage-files}):
   * where it is, its size and the CRC-32C its envelope carries.
   */
  public record File(String path, long sizeBytes, int crc32c, long firstRowId, long rowIdEnd) {
    /** Prefix of lineage files in the table. */
    public static final String PREFIX = "_lineage/";

    /**
     * @param firstRowId with {@code rowIdEnd}: every row id the file's runs hold lies in {@code [firstRowId,
     *     rowIdEnd)}; {@code rowIdEnd == 0} when not recorded (a file written before the span was), so it may hold any
     */
    public File {
      DataFile.requirePath(path, PREFIX, "lineage file");
      if (sizeBytes < 0) {
        throw new IllegalArgumentException("lineage file " + path + " has size " + sizeBytes);
      }
      if (rowIdEnd != 0 && (firstRowId < 0 || rowIdEnd <= firstRowId)) {
        throw new IllegalArgumentException("lineage file " + path + " has row id span [" + firstRowId + ", "
            + rowIdEnd + ")");
      }
    }

    /** A file whose row id span is not recorded. */
    public File(String path, long sizeBytes, int crc32c) {
      this(path, sizeBytes, crc32c, 0, 0);
    }

    /** Whether the file's runs may hold row id {@code id} (always, when the span is not recorded). */
    public boolean mayHold(long id) {
      return rowIdEnd == 0 || (id >= firstRowId && id < rowIdEnd);
    }
  }

  /** Reads the runs of a lineage file: the table's store and cache, bound to the lineages decoded from it. */
  @FunctionalInterface
  public interface Loader {
    /**
     * The inline lineage {@code file} holds, checked to cover {@code rows} rows.
     *
     * @throws io.quiver.exceptions.CorruptFileException naming the file when it is missing, truncated or damaged
     */
    RowLineage load(File file, long rows);
  }

  private RowLineage(File file, long rows, RowLineage loaded) {
    this.file = file;
    this.rows = rows;
    this.loaded = loaded;
    this.ids = this.created = this.updated = this.idEnds = this.createdEnds = this.updatedEnds = null;
  }

  /**
   * A lineage of {@code rows} rows stored in {@code file}, read when first needed through the loader {@link
   * #bind} gives it.
   */
  public static RowLineage inFile(File file, long rows) {
    return new RowLineage(file, rows, null);
  }

  /** {@code runs} (an inline lineage) as written to {@code file}: already loaded. */
  public RowLineage storedIn(File where) {
    return new RowLineage(where, rows, runs());
  }

  /** The file holding the runs, if they are not inline. */
  public java.util.Optional<File> file() {
    return java.util.Optional.ofNullable(file);
  }

  /** Whether the runs are at hand: inline, or in a file already read. */
  public boolean isLoaded() {
    return file == null || loaded != null;
  }

  /**
   * The span {@code {first, end}} of the row ids the runs hold (every id in {@code [first, end)}), or null when they
   * hold none or a fresh (unassigned) id.
   */
  public long[] idSpan() {
    long[] runs = idRuns();
    long first = Long.MAX_VALUE;
    long end = Long.MIN_VALUE;
    for (int i = 0; i < runs.length; i += 2) {
      if (runs[i] == FRESH) {
        return null;
      }
      if (runs[i + 1] > 0) {
        first = Math.min(first, runs[i]);
        end = Math.max(end, runs[i] + runs[i + 1]);
      }
    }
    return first == Long.MAX_VALUE ? null : new long[] {first, end};
  }

  /** This lineage with its runs inline (read from its file if needed). */
  public RowLineage inline() {
    return runs();
  }

  /** Lets a lineage in a file read its runs through {@code how} (the first binding wins; inline: nothing). */
  public RowLineage bind(Loader how) {
    if (file != null && loaded == null && loader == null) {
      loader = how;
    }
    return this;
  }

  /** The inline runs: this lineage, or the one its file holds (read once). */
  private RowLineage runs() {
    if (file == null) {
      return this;
    }
    RowLineage r = loaded;
    if (r == null) {
      synchronized (this) {
        r = loaded;
        if (r == null) {
          Loader how = loader;
          if (how == null) {
            throw new IllegalStateException("the row lineage of " + rows + " rows in " + file.path() + " was decoded"
                + " without a table to read it from (no loader bound); read it through the table's TableIo");
          }
          r = how.load(file, rows);
          if (r.rows != rows || r.file != null) {
            throw new IllegalStateException("lineage loader returned " + r.rows + " rows for " + file.path()
                + ", expected " + rows + " inline");
          }
          loaded = r;
        }
      }
    }
    return r;
  }

  private RowLineage(long[] ids, long[] created, long[] updated) {
    this.file = null;
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
    if (file != null) {
      return runs().idRuns();
    }
    return ids.clone();
  }

  /** Created-at version runs as (version, count) pairs, a copy. */
  public long[] createdRuns() {
    if (file != null) {
      return runs().createdRuns();
    }
    return created.clone();
  }

  /** Last-updated-at version runs as (version, count) pairs, a copy. */
  public long[] updatedRuns() {
    if (file != null) {
      return runs().updatedRuns();
    }
    return updated.clone();
  }

  /** The stable id of the row at {@code offset}; {@link #FRESH} for a fresh run. */
  public long rowId(long offset) {
    if (file != null) {
      return runs().rowId(offset);
    }
    int run = runOf(idEnds, offset);
    long start = ids[2 * run];
    return start == FRESH ? FRESH : start + offset - (run == 0 ? 0 : idEnds[run - 1]);
  }

  /** The version that inserted the row at {@code offset}. */
  public long createdAt(long offset) {
    if (file != null) {
      return runs().createdAt(offset);
    }
    return created[2 * runOf(createdEnds, offset)];
  }

  /** The version that last changed a value of the row at {@code offset}. */
  public long updatedAt(long offset) {
    if (file != null) {
      return runs().updatedAt(offset);
    }
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
    if (file != null) {
      runs().fill(offsets, count, idsOut, createdOut, updatedOut);
      return;
    }
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
    if (file != null) {
      return runs().hasFresh();
    }
    return freshIds() > 0 || hasValue(created, THIS_VERSION) || hasValue(updated, THIS_VERSION);
  }

  /** Rows whose ids are fresh. */
  public long freshIds() {
    if (file != null) {
      return runs().freshIds();
    }
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
    if (file != null) {
      return runs().resolve(firstId, version);
    }
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
    if (file != null) {
      return runs().select(keep);
    }
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
    if (file != null) {
      return runs().slice(from, to);
    }
    Builder b = new Builder();
    b.addRange(this, from, to);
    return b.build();
  }

  /** This lineage with the rows at the offsets {@code changed} accepts last updated by {@code version}. */
  public RowLineage updatedBy(LongPredicate changed, long version) {
    if (file != null) {
      return runs().updatedBy(changed, version);
    }
    Builder b = new Builder();
    for (long o = 0; o < rows; o++) {
      b.add(rowId(o), createdAt(o), changed.test(o) ? version : updatedAt(o));
    }
    return b.build();
  }

  /** Every row last updated by {@code version}. */
  public RowLineage updatedBy(long version) {
    if (file != null) {
      return runs().updatedBy(version);
    }
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
    if (file != null) {
      runs().forEachIdRun(consumer);
      return;
    }
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
    if (o instanceof RowLineage other && (file != null || other.file != null)) {
      // A lineage file is immutable: the same file is the same lineage, without reading it.
      return this == other || file != null && file.equals(other.file)
          || rows == other.rows && runs().equals(other.runs());
    }
    return o instanceof RowLineage l && Arrays.equals(ids, l.ids) && Arrays.equals(created, l.created)
        && Arrays.equals(updated, l.updated);
  }

  @Override
  public int hashCode() {
    if (file != null) {
      return runs().hashCode();
    }
    return 31 * (31 * Arrays.hashCode(ids) + Arrays.hashCode(created)) + Arrays.hashCode(updated);
  }

  @Override
  public String toString() {
    if (file != null) {
      return "RowLineage[" + rows + " rows in " + file.path() + "]";
    }
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
    public Builder addRange(RowLineage in, long from, long to) {
      RowLineage l = in.runs();
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
