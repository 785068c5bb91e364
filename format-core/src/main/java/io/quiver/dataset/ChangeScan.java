package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.internal.predicate.PredicateEvaluator;
import io.quiver.internal.read.Deletions;
import io.quiver.internal.read.Projection;
import io.quiver.internal.read.Take;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.FragmentList;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.RowLineage;
import io.quiver.manifest.Segment;
import io.quiver.predicate.Predicate;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampMilliTZVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.roaringbitmap.RoaringBitmap;

/**
 * The change feed of a table with stable row ids (docs/format.md section 14.3): what the versions after {@code
 * from} up to {@code to} changed, row by row, as batches of the requested columns followed by {@code _change_type}
 * ({@code insert}, {@code delete}, {@code update_preimage}, {@code update_postimage}), {@code _commit_version},
 * {@code _commit_timestamp} (UTC milliseconds) and {@code _rowid}. Replaying the feed on version {@code from}'s rows
 * by {@code _rowid} gives version {@code to}'s rows exactly.
 *
 * <p>Each version is compared with the one before it by row id over the fragments it changed only (fragments and
 * segments both versions share are skipped unread), and only the changed rows' values are read. A row whose id is
 * in both versions changed when its last-updated-at version did: a compaction moves rows without changing them
 * and produces no change; an update, a merge-insert's match or a restore of older values is a pre- and
 * post-image. Within a version, changes come in row id order: the pre- and post-image of a row one after the
 * other. Built by {@link Dataset#changes}; not thread-safe.
 */
public final class ChangeScan {
  /** The change type column and its values. */
  public static final String CHANGE_TYPE = "_change_type";

  public static final String INSERT = "insert";
  public static final String DELETE = "delete";
  public static final String UPDATE_PREIMAGE = "update_preimage";
  public static final String UPDATE_POSTIMAGE = "update_postimage";

  /** The version that made the change. */
  public static final String COMMIT_VERSION = "_commit_version";

  /** When that version was committed, UTC milliseconds. */
  public static final String COMMIT_TIMESTAMP = "_commit_timestamp";

  private final Dataset dataset;
  private final long from;
  private final long to;
  private List<String> columns = List.of();
  private Predicate filter;
  private long limit = Long.MAX_VALUE;
  private int batchSize = 8192;
  private long namedAt = -1;

  ChangeScan(Dataset dataset, long from, long to) {
    if (from < 1 || to <= from) {
      throw new InvalidArgumentException("a change feed runs from a version to a later one (from >= 1, to > from),"
          + " got from " + from + " to " + to + "; changes(a, b) is what versions a + 1 to b changed");
    }
    this.dataset = dataset;
    this.from = from;
    this.to = to;
  }

  /** The user columns to return, by name at version {@code to} (all when none are given). */
  public ChangeScan columns(List<String> names) {
    this.columns = List.copyOf(names);
    return this;
  }

  public ChangeScan columns(String... names) {
    return columns(List.of(names));
  }

  /**
   * Names and types the columns as version {@code version} has them instead of version {@code to} (the default):
   * the columns, and the names {@link #columns} and {@link #filter} use, are that version's, matched by field id in
   * every version of the range; a column a version does not have is null in its images. An engine that splits a
   * long range into one feed per version reads each under the schema of the range's last version this way.
   *
   * @throws InvalidArgumentException if {@code version} is below 1
   */
  public ChangeScan namedAt(long version) {
    if (version < 1) {
      throw new InvalidArgumentException("the version that names the change feed's columns must be >= 1, got "
          + version);
    }
    this.namedAt = version;
    return this;
  }

  /** Only the changes whose row (pre- or post-image) matches {@code predicate}, on columns the scan returns. */
  public ChangeScan filter(Predicate predicate) {
    this.filter = predicate;
    return this;
  }

  /** At most {@code rows} changes. */
  public ChangeScan limit(long rows) {
    if (rows < 0) {
      throw new InvalidArgumentException("limit must be >= 0, got " + rows);
    }
    this.limit = rows;
    return this;
  }

  /** Most changes per batch (default 8,192). */
  public ChangeScan batchSize(int rows) {
    if (rows < 1) {
      throw new InvalidArgumentException("batch size must be >= 1, got " + rows);
    }
    this.batchSize = rows;
    return this;
  }

  /**
   * Opens the feed; the caller closes the reader.
   *
   * @throws VersionNotFoundException if a version of the range was removed by a cleanup (naming which)
   * @throws InvalidArgumentException if version {@code from} has no row ids, a column is not one of version
   *     {@code to}, or the filter does not fit the columns
   */
  public ArrowReader open() {
    TableIo io = dataset.io();
    List<Long> missing = new ArrayList<>();
    Set<Long> present = new HashSet<>();
    dataset.versions().forEach(v -> present.add(v.version()));
    for (long v = from; v <= to; v++) {
      if (!present.contains(v)) {
        missing.add(v);
      }
    }
    if (namedAt > 0 && !present.contains(namedAt) && !missing.contains(namedAt)) {
      missing.add(namedAt);
    }
    if (!missing.isEmpty()) {
      throw new VersionNotFoundException(missing.get(0), "the change feed from version " + from + " to " + to + " of "
          + dataset.uri() + " needs every version in between, but " + ranges(missing) + (missing.size() == 1
          ? " is" : " are") + " gone (removed by a cleanup, or not committed yet); start the feed after them");
    }
    Manifest first = io.load(from).manifest();
    if (!first.hasRowIds()) {
      throw new InvalidArgumentException("version " + from + " of " + dataset.uri() + " has no stable row ids, so"
          + " its changes cannot be told apart by row; a change feed starts at a version with row ids (table"
          + " configuration 'row-ids' = 'true' gives the table ids from the version that sets it)");
    }
    Manifest last = io.load(namedAt > 0 ? namedAt : to).manifest();
    Schema projected = Projection.project(last.schema(), columns.isEmpty() ? null : columns, null);
    org.apache.arrow.vector.types.pojo.Schema output = outputSchema(projected);
    PredicateEvaluator evaluator = null;
    if (filter != null && !(filter instanceof Predicate.True)) {
      evaluator = PredicateEvaluator.bind(filter, projected.toArrow());
    }
    return new Reader(io, projected, output, evaluator);
  }

  private static String ranges(List<Long> versions) {
    StringBuilder s = new StringBuilder(versions.size() == 1 ? "version " : "versions ");
    int i = 0;
    while (i < versions.size()) {
      int j = i;
      while (j + 1 < versions.size() && versions.get(j + 1) == versions.get(j) + 1) {
        j++;
      }
      if (i > 0) {
        s.append(", ");
      }
      s.append(versions.get(i));
      if (j > i) {
        s.append("-").append(versions.get(j));
      }
      i = j + 1;
    }
    return s.toString();
  }

  private static org.apache.arrow.vector.types.pojo.Schema outputSchema(Schema projected) {
    List<Field> fields = new ArrayList<>(projected.toArrow().getFields());
    fields.add(new Field(CHANGE_TYPE, FieldType.notNullable(ArrowType.Utf8.INSTANCE), null));
    fields.add(new Field(COMMIT_VERSION, FieldType.notNullable(new ArrowType.Int(64, false)), null));
    fields.add(new Field(COMMIT_TIMESTAMP, FieldType.notNullable(new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC")),
        null));
    fields.add(new Field(io.quiver.schema.ReservedNames.ROW_ID, FieldType.notNullable(new ArrowType.Int(64, false)),
        null));
    return new org.apache.arrow.vector.types.pojo.Schema(fields);
  }

  /** One change: its type, the row's id, and where its values are (in the version before, or the version). */
  private record Change(String type, long rowId, boolean before, long address) {}

  /** Where a live row is in one version, and when it was last updated. */
  private record Located(long address, long updatedAt) {}

  /**
   * The changes of one version ({@code operation}, its transaction's), in output order. A rewrite (compaction)
   * moves rows without changing them (its fragments carry the rows' lineage, which the commit checked), so it is
   * no change, found without reading a deletion file. Rows with ids the version before had not assigned yet are
   * inserts, kept out of the maps that match ids on both sides.
   */
  static List<Change> changesOf(TableIo io, Manifest prev, Manifest cur, String operation) {
    if (operation.equals("rewrite") || operation.equals("update-config") || operation.endsWith("-index")) {
      return List.of();
    }
    long fresh = prev.nextRowId().orElse(0);
    List<Fragment> prevChanged = changedFragments(prev, cur);
    List<Fragment> curChanged = changedFragments(cur, prev);
    Map<Long, Located> before = live(io, prevChanged, Long.MAX_VALUE, null);
    List<Change> out = new ArrayList<>();
    Map<Long, Located> after = live(io, curChanged, fresh, out);
    List<Long> ids = new ArrayList<>(after.keySet());
    ids.sort(Comparator.naturalOrder());
    for (long id : ids) {
      Located a = after.get(id);
      Located b = before.remove(id);
      if (b == null) {
        out.add(new Change(INSERT, id, false, a.address()));
      } else if (b.updatedAt() != a.updatedAt() || a.updatedAt() == cur.version()) {
        out.add(new Change(UPDATE_PREIMAGE, id, true, b.address()));
        out.add(new Change(UPDATE_POSTIMAGE, id, false, a.address()));
      }
    }
    List<Long> gone = new ArrayList<>(before.keySet());
    gone.sort(Comparator.naturalOrder());
    for (long id : gone) {
      out.add(new Change(DELETE, id, true, before.get(id).address()));
    }
    out.sort(Comparator.comparingLong(Change::rowId)); // stable: a pre-image stays before its post-image
    return out;
  }

  /**
   * The fragments of {@code version} that {@code other} does not have as they are: the fragments of segments
   * both list (by file) are skipped without reading them, and so are fragments equal in both.
   */
  private static List<Fragment> changedFragments(Manifest version, Manifest other) {
    List<Fragment> mine = outsideSharedSegments(version, other);
    Map<Long, Fragment> theirs = new HashMap<>();
    for (Fragment f : outsideSharedSegments(other, version)) {
      theirs.put(f.id(), f);
    }
    List<Fragment> out = new ArrayList<>();
    for (Fragment f : mine) {
      if (!f.equals(theirs.get(f.id()))) {
        out.add(f);
      }
    }
    return out;
  }

  /** The fragments of {@code version} outside the segments {@code other} lists too. */
  private static List<Fragment> outsideSharedSegments(Manifest version, Manifest other) {
    if (!(version.fragments() instanceof FragmentList list)) {
      return version.fragments();
    }
    Set<String> shared = new HashSet<>();
    if (other.fragments() instanceof FragmentList otherList) {
      otherList.segments().forEach(seg -> shared.add(seg.path()));
    }
    List<Fragment> out = new ArrayList<>();
    List<Segment> segments = list.segments();
    for (int i = 0; i < segments.size(); i++) {
      if (!shared.contains(segments.get(i).path())) {
        out.addAll(list.fragmentsOf(i));
      }
    }
    out.addAll(list.inline());
    return out;
  }

  /**
   * The live rows of {@code fragments} by row id; rows whose id is {@code fresh} or more (new in this version) go
   * to {@code inserts} as inserts instead.
   */
  private static Map<Long, Located> live(TableIo io, List<Fragment> fragments, long fresh, List<Change> inserts) {
    Map<Long, Located> out = new HashMap<>();
    for (Fragment f : fragments) {
      RowLineage l = f.lineage().orElseThrow(() -> new IllegalStateException(
          "fragment " + f.id() + " of a table with row ids has no row lineage"));
      RoaringBitmap deleted = f.deletionFile().isEmpty() ? new RoaringBitmap() : Deletions.of(io, f);
      for (long o = 0; o < f.physicalRows(); o++) {
        if (!deleted.contains((int) o)) {
          long id = l.rowId(o);
          if (id >= fresh) {
            inserts.add(new Change(INSERT, id, false, RowAddress.of(f.id(), o)));
          } else {
            out.put(id, new Located(RowAddress.of(f.id(), o), l.updatedAt(o)));
          }
        }
      }
    }
    return out;
  }

  /** Reads the feed version by version, a batch of at most {@code batchSize} changes at a time. */
  private final class Reader extends ArrowReader {
    private final TableIo io;
    private final Schema projected;
    private final org.apache.arrow.vector.types.pojo.Schema output;
    private final PredicateEvaluator evaluator;
    private long version;
    private Manifest prev;
    private Manifest cur;
    private List<Change> pending = List.of();
    private int next;
    private long emitted;
    private long bytes;

    Reader(TableIo io, Schema projected, org.apache.arrow.vector.types.pojo.Schema output,
        PredicateEvaluator evaluator) {
      super(dataset.allocator());
      this.io = io;
      this.projected = projected;
      this.output = output;
      this.evaluator = evaluator;
      this.version = from;
      this.cur = io.load(from).manifest();
    }

    @Override
    protected org.apache.arrow.vector.types.pojo.Schema readSchema() {
      return output;
    }

    @Override
    public boolean loadNextBatch() throws java.io.IOException {
      VectorSchemaRoot out = getVectorSchemaRoot();
      while (emitted < limit) {
        if (next >= pending.size()) {
          if (version >= to) {
            break;
          }
          version++;
          prev = cur;
          io.quiver.internal.codec.MetadataCodec.ManifestAndTransaction loaded = io.load(version);
          cur = loaded.manifest();
          pending = changesOf(io, prev, cur, loaded.transaction().operation().name());
          next = 0;
          continue;
        }
        int n = (int) Math.min(Math.min(batchSize, pending.size() - next), limit - emitted);
        List<Change> chunk = pending.subList(next, next + n);
        next += n;
        int kept = fill(out, chunk);
        if (kept > 0) {
          emitted += kept;
          return true;
        }
      }
      out.setRowCount(0);
      return false;
    }

    /** Fills {@code out} with {@code chunk}'s rows that pass the filter; returns how many. */
    private int fill(VectorSchemaRoot out, List<Change> chunk) {
      long[] beforeAddresses = chunk.stream().filter(Change::before).mapToLong(Change::address).toArray();
      long[] afterAddresses = chunk.stream().filter(c -> !c.before()).mapToLong(Change::address).toArray();
      try (VectorSchemaRoot beforeRows = take(prev, beforeAddresses);
          VectorSchemaRoot afterRows = take(cur, afterAddresses)) {
        int userColumns = projected.fields().size();
        List<FieldVector> vectors = out.getFieldVectors();
        for (FieldVector v : vectors) {
          v.clear();
          v.setInitialCapacity(chunk.size());
          v.allocateNew();
        }
        java.util.BitSet beforeMatch = evaluator == null ? null : evaluator.evaluate(beforeRows);
        java.util.BitSet afterMatch = evaluator == null ? null : evaluator.evaluate(afterRows);
        int b = 0;
        int a = 0;
        int row = 0;
        for (Change c : chunk) {
          VectorSchemaRoot src = c.before() ? beforeRows : afterRows;
          int at = c.before() ? b++ : a++;
          if (evaluator != null && !(c.before() ? beforeMatch : afterMatch).get(at)) {
            continue;
          }
          for (int col = 0; col < userColumns; col++) {
            FieldVector from = src.getVector(col);
            if (from != null) {
              vectors.get(col).copyFromSafe(at, row, from);
            }
          }
          ((VarCharVector) vectors.get(userColumns)).setSafe(row, c.type().getBytes(
              java.nio.charset.StandardCharsets.UTF_8));
          ((UInt8Vector) vectors.get(userColumns + 1)).setSafe(row, cur.version());
          ((TimeStampMilliTZVector) vectors.get(userColumns + 2)).setSafe(row, cur.timestamp().toEpochMilli());
          ((UInt8Vector) vectors.get(userColumns + 3)).setSafe(row, c.rowId());
          row++;
        }
        for (FieldVector v : vectors) {
          v.setValueCount(row);
        }
        out.setRowCount(row);
        for (FieldVector v : vectors) {
          bytes += v.getBufferSize();
        }
        return row;
      }
    }

    /**
     * The rows at {@code addresses} of {@code version}, as the projection's columns in order: a column the
     * version does not have yet (added later) is all nulls, matched by field id so renames are followed.
     */
    private VectorSchemaRoot take(Manifest version, long[] addresses) {
      Schema there = version.schema();
      List<String> names = new ArrayList<>();
      Map<Integer, Integer> positionOf = new LinkedHashMap<>();
      for (io.quiver.schema.Field f : projected.fields()) {
        Optional<io.quiver.schema.Field> same = there.findField(f.id());
        if (same.isPresent() && same.get().parentId() < 0) {
          positionOf.put(f.id(), names.size());
          names.add(same.get().name());
        }
      }
      BufferAllocator allocator = dataset.allocator();
      List<FieldVector> columns = new ArrayList<>();
      VectorSchemaRoot taken = null;
      if (!names.isEmpty() && addresses.length > 0) {
        Schema sub = Projection.project(there, names, null);
        taken = Take.take(io, version, sub, addresses, allocator, 1);
      }
      try {
        for (io.quiver.schema.Field f : projected.fields()) {
          Integer p = positionOf.get(f.id());
          if (p != null && taken != null) {
            // Under the name it has at version to (a rename is followed by field id).
            FieldVector v = f.toArrow().createVector(allocator);
            taken.getVector(p).makeTransferPair(v).transfer();
            columns.add(v);
          } else {
            FieldVector empty = f.toArrow().createVector(allocator);
            empty.setValueCount(addresses.length);
            columns.add(empty);
          }
        }
      } catch (RuntimeException e) {
        columns.forEach(FieldVector::close);
        throw e;
      } finally {
        if (taken != null) {
          taken.close();
        }
      }
      VectorSchemaRoot result = new VectorSchemaRoot(columns);
      result.setRowCount(addresses.length);
      return result;
    }

    @Override
    public long bytesRead() {
      return bytes;
    }

    @Override
    protected void closeReadSource() {}
  }

  /**
   * The number of changes each version of the range made, by version, from the manifests and deletion files alone
   * (no row value is read): a compaction's entry is 0.
   */
  public Map<Long, Integer> changeCounts() {
    TableIo io = dataset.io();
    Map<Long, Integer> out = new LinkedHashMap<>();
    Manifest prev = io.load(from).manifest();
    for (long v = from + 1; v <= to; v++) {
      io.quiver.internal.codec.MetadataCodec.ManifestAndTransaction loaded = io.load(v);
      Manifest cur = loaded.manifest();
      out.put(v, changesOf(io, prev, cur, loaded.transaction().operation().name()).size());
      prev = cur;
    }
    return out;
  }
}
