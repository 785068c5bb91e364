package io.quiver.internal.maintenance;

import io.quiver.dataset.ValidationReport.Kind;
import io.quiver.dataset.ValidationReport.Problem;
import io.quiver.dataset.ValidationReport;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.internal.index.IndexFiles;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.exceptions.QuiverException;
import io.quiver.internal.codec.MetadataCodec;
import io.quiver.internal.file.DataFileMetadata;
import io.quiver.internal.file.FrameTableCheck;
import io.quiver.internal.file.ObservedStats;
import io.quiver.internal.file.StatValues;
import io.quiver.internal.read.FragmentBounds;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.table.TransactionBatches;
import io.quiver.internal.txn.Transaction;
import io.quiver.manifest.ColumnStats;
import io.quiver.manifest.Coverage;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.DeletionFile;
import io.quiver.manifest.FieldBounds;
import io.quiver.manifest.FileStats;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.FragmentList;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import io.quiver.manifest.Segment;
import io.quiver.manifest.SegmentList;
import io.quiver.manifest.StatValue;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import io.quiver.store.Keys;
import io.quiver.store.ObjectInfo;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.buffer.MutableRoaringBitmap;

/**
 * Checks every invariant of one version against its files: each referenced file exists with the size the
 * manifest records; data files store atomic fields of the schema at column indices whose types match,
 * with one row per physical row; deletion files decode, hold the recorded count and stay in range;
 * overlays stay in range, are ordered by committed version and hold one row per covered offset; ids and
 * high-water marks are consistent; and where a fragment stores a struct's members in more than one data
 * file, the files agree on where the struct is null. For these checks only footers are read, plus, for
 * that last one, the struct validity buffers of those files (one ranged read of {@code rows / 8} bytes per
 * file and record batch).
 *
 * <p>Column statistics (docs/format.md §3.1, §5.2) are checked against the values the file stores: each data
 * or overlay file with statistics is read once, whole, batch by batch; its statistics must count its rows,
 * name only fields it stores, keep NaN counts to floating-point fields and lower bounds at or below upper
 * bounds, count exactly the nulls and NaN it holds, and bound every value it holds (validity, not equality:
 * a truncated string bound is a valid bound of the longer values). The footer's zone statistics, where they
 * decode, are checked the same way per record batch. A data file's frame table (§5.1) is checked against its
 * ZSTD buffers, which are read once more for it ({@link FrameTableCheck}).
 */
final public class Validator {
  private final TableIo io;
  private final Manifest manifest;
  private final BufferAllocator allocator;
  private final List<Problem> problems = new ArrayList<>();
  private final Map<Integer, Field> atomicById = new LinkedHashMap<>();
  private long filesChecked;

  /** {@code allocator} holds the record batches read to check statistics (one at a time). */
  public Validator(TableIo io, Manifest manifest, BufferAllocator allocator) {
    this.io = io;
    this.manifest = manifest;
    this.allocator = allocator;
    for (Field f : manifest.schema().atomicFields()) {
      atomicById.put(f.id(), f);
    }
  }

  public ValidationReport run() {
    List<Fragment> fragments = readFragments();
    checkIds(fragments);
    checkTransactionFile();
    checkVersionTransaction();
    checkTransactionBatch();
    for (Fragment fragment : fragments) {
      checkFragment(fragment);
    }
    checkIndices();
    return new ValidationReport(manifest.version(), problems, filesChecked);
  }

  /**
   * The version's fragments. Of a segmented manifest (docs/format.md §11), each segment is read and checked
   * against what the root says of it: a segment that is missing or does not decode, or whose fragments are not
   * the ids and rows the root records, is a problem and its fragments are not checked further; a root whose
   * summary of a segment (compression, bounds) does not hold for the segment's fragments is one too, since
   * planning trusts that summary to skip the segment.
   */
  private List<Fragment> readFragments() {
    if (!(manifest.fragments() instanceof FragmentList list)) {
      return manifest.fragments();
    }
    List<Fragment> out = new ArrayList<>(list.size());
    java.util.Map<String, List<Fragment>> heldBySegment = new java.util.HashMap<>();
    for (int i = 0; i < list.segments().size(); i++) {
      Segment segment = list.segments().get(i);
      filesChecked++;
      List<Fragment> held;
      try {
        held = list.fragmentsOf(i);
      } catch (CorruptFileException e) {
        problem(e.getCause() instanceof ObjectNotFoundException ? Kind.MISSING_FILE : Kind.CORRUPT_FILE,
            segment.path(), e.getMessage());
        continue;
      } catch (QuiverException e) {
        problem(Kind.MISSING_FILE, segment.path(), "segment of fragments " + segment.firstFragmentId() + ".."
            + segment.lastFragmentId() + " could not be read: " + e.getMessage());
        continue;
      }
      checkSummary(segment.path(), "segment", segment.compressed(), segment.bounds(), held);
      heldBySegment.put(segment.path(), held);
      out.addAll(held);
    }
    // A segment list's own summary (docs/format.md §11.1) must hold for the fragments of its segments too.
    for (SegmentList segmentList : list.lists()) {
      filesChecked++;
      List<Fragment> held = new ArrayList<>();
      for (Segment segment : list.segmentsOf(segmentList)) {
        held.addAll(heldBySegment.getOrDefault(segment.path(), List.of()));
      }
      checkSummary(segmentList.path(), "segment list", segmentList.compressed(), segmentList.bounds(), held);
    }
    out.addAll(list.inline());
    return out;
  }

  private void checkSummary(String path, String what, boolean recordedCompressed,
      java.util.Map<Integer, FieldBounds> recordedBounds, List<Fragment> fragments) {
    boolean compressed = fragments.stream().anyMatch(f -> f.files().stream().anyMatch(DataFile::mayBeCompressed)
        || f.overlays().stream().anyMatch(o -> o.dataFile().mayBeCompressed()));
    if (compressed && !recordedCompressed) {
      problem(Kind.SEGMENT_MISMATCH, path, "the root says no file of this " + what + " is compressed, but"
          + " some of its fragments' files are (file format 1.1); readers would refuse to decode them");
    }
    for (FieldBounds recorded : recordedBounds.values()) {
      for (Fragment f : fragments) {
        FieldBounds held = FragmentBounds.of(f, manifest.schema(), recorded.fieldId());
        if (!covers(recorded, held)) {
          problem(Kind.SEGMENT_MISMATCH, path, "the root's bounds of field " + recorded.fieldId()
              + " over this " + what + " (" + describe(recorded) + ") do not hold for fragment " + f.id() + " ("
              + describe(held) + "); a filtered scan could skip rows it matches");
          break;
        }
      }
    }
  }

  /** Whether every value {@code inner} allows is one {@code outer} allows: their union is {@code outer}. */
  private static boolean covers(FieldBounds outer, FieldBounds inner) {
    FieldBounds u = FragmentBounds.union(outer, inner);
    return u.mayHaveNulls() == outer.mayHaveNulls() && u.mayHaveValues() == outer.mayHaveValues()
        && u.mayHaveNan() == outer.mayHaveNan() && u.lower().equals(outer.lower()) && u.upper().equals(outer.upper());
  }

  private static String describe(FieldBounds b) {
    return (b.mayHaveValues() ? "values " + b.lower().map(Object::toString).orElse("unbounded") + ".."
        + b.upper().map(Object::toString).orElse("unbounded") : "no values")
        + (b.mayHaveNulls() ? ", nulls" : ", no nulls") + (b.mayHaveNan() ? ", NaN" : "");
  }

  /** Every index segment file exists, has the recorded size and decodes (pages and footer). */
  private void checkIndices() {
    for (io.quiver.manifest.ScalarIndex index : manifest.indices()) {
      for (io.quiver.manifest.IndexSegment segment : index.segments()) {
        filesChecked++;
        byte[] bytes;
        try {
          bytes = io.store().read(segment.path());
        } catch (ObjectNotFoundException e) {
          problem(Kind.MISSING_FILE, segment.path(), "segment of index '" + index.name() + "' does not exist");
          continue;
        }
        if (bytes.length != segment.sizeBytes()) {
          problem(Kind.SIZE_MISMATCH, segment.path(), "segment of index '" + index.name() + "' is " + bytes.length
              + " bytes; the manifest records " + segment.sizeBytes());
          continue;
        }
        try {
          IndexFiles.verify(io, index, segment, bytes);
        } catch (CorruptFileException e) {
          problem(Kind.CORRUPT_FILE, segment.path(), e.getMessage());
        }
      }
    }
  }

  /** The transaction a version file carries decodes (a reader of the table state does not need it; a committer does). */
  private void checkVersionTransaction() {
    try {
      io.tryLoad(manifest.version()).ifPresent(v -> v.transaction());
    } catch (CorruptFileException e) {
      problem(Kind.CORRUPT_FILE, io.commitStore().locationOf(manifest.version()), e.getMessage());
    }
  }

  /**
   * The transaction batch over this version, if one was written (docs/format.md §11.4), decodes and holds this
   * version's transaction: committers catching up trust a batch instead of the version files.
   */
  private void checkTransactionBatch() {
    long version = manifest.version();
    long first = TransactionBatches.firstOf(version);
    String key = TransactionBatches.path(first);
    byte[] bytes;
    try {
      bytes = io.store().read(key);
    } catch (ObjectNotFoundException e) {
      return;
    }
    filesChecked++;
    try {
      Transaction inBatch = MetadataCodec.decodeTransactionBatch(
          bytes, io.store().locationOf(key), first, TransactionBatches.SIZE)
          .get((int) (version - first));
      if (!inBatch.uuid().equals(manifest.transactionUuid())) {
        problem(Kind.CORRUPT_FILE, key, "transaction batch says version " + version + " was committed by transaction "
            + inBatch.uuid() + "; the version's manifest says " + manifest.transactionUuid()
            + ". Delete the batch (committers then read the version files)");
      }
    } catch (QuiverException e) {
      problem(Kind.CORRUPT_FILE, key, e.getMessage() + ". Delete the batch (committers then read the version files)");
    }
  }

  private void problem(Kind kind, String location, String message) {
    problems.add(new Problem(kind, location, message));
  }

  /** The footer's frame table against the compressed buffers it describes (docs/format.md §5.1). */
  private void checkFrameTable(String path, DataFileMetadata md) {
    try {
      for (String p : FrameTableCheck.problems(io.store(), path, md)) {
        problem(Kind.FRAME_TABLE_MISMATCH, path, p);
      }
    } catch (QuiverException e) {
      problem(Kind.CORRUPT_FILE, path, "the compressed buffers could not be read to check the frame table: "
          + e.getMessage());
    }
  }

  private void checkIds(List<Fragment> fragments) {
    long previous = -1;
    for (Fragment f : fragments) {
      if (f.id() <= previous) {
        problem(Kind.ID_INCONSISTENT, "fragment " + f.id(),
            "fragment " + f.id() + " follows fragment " + previous + "; fragments must be in strictly ascending id order");
      }
      if (f.id() > Fragment.MAX_ID) {
        problem(Kind.ID_INCONSISTENT, "fragment " + f.id(), "fragment id " + f.id() + " is not below 2^32");
      }
      if (manifest.maxFragmentId().isEmpty() || f.id() > manifest.maxFragmentId().getAsLong()) {
        problem(Kind.ID_INCONSISTENT, "fragment " + f.id(),
            "fragment id " + f.id() + " exceeds the manifest's max fragment id " + manifest.maxFragmentId());
      }
      previous = f.id();
    }
    int schemaMax = manifest.schema().maxFieldId();
    if (manifest.maxFieldId() < Math.max(0, schemaMax)) {
      problem(Kind.ID_INCONSISTENT, "manifest",
          "max field id " + manifest.maxFieldId() + " is below the schema's highest field id " + schemaMax);
    }
  }

  private void checkTransactionFile() {
    String path = manifest.transactionPath();
    if (path.isEmpty()) {
      return;
    }
    if (!Keys.isValid(path) || !path.startsWith(Cleaner.TRANSACTIONS_PREFIX)) {
      problem(Kind.UNSAFE_PATH, path, "transaction path is not a relative path under " + Cleaner.TRANSACTIONS_PREFIX);
      return;
    }
    filesChecked++;
    if (io.store().head(path).isEmpty()) {
      problem(Kind.MISSING_FILE, path, "transaction file of version " + manifest.version() + " does not exist");
    }
  }

  private void checkFragment(Fragment fragment) {
    String where = "fragment " + fragment.id();
    Map<DataFile, DataFileMetadata> sound = new HashMap<>();
    for (DataFile file : fragment.files()) {
      checkDataFile(fragment, file, false).ifPresent(md -> {
        checkStats(fragment, file, md, false);
        checkFrameTable(file.path(), md);
        if (md.rowCount() != fragment.physicalRows()) {
          problem(Kind.ROW_COUNT_MISMATCH, file.path(),
              "holds " + md.rowCount() + " rows but " + where + " has " + fragment.physicalRows() + " physical rows");
        } else {
          sound.put(file, md);
        }
      });
    }
    for (Field top : manifest.schema().fields()) {
      checkStructValidity(fragment, top, 0, sound);
    }
    for (Field f : atomicById.values()) {
      if (!nullableFromRoot(manifest.schema(), f) && fragment.physicalRows() > 0 && fragment.fileOf(f.id()).isEmpty()) {
        problem(Kind.MISSING_REQUIRED_FIELD, where,
            "non-nullable field '" + manifest.schema().pathOf(f.id()) + "' (id " + f.id() + ") is stored in no data file"
                + " of " + where);
      }
    }
    fragment.deletionFile().ifPresent(d -> checkDeletionFile(fragment, d));
    long previousVersion = -1;
    for (Overlay overlay : fragment.overlays()) {
      String path = overlay.dataFile().path();
      if (overlay.committedVersion() < previousVersion) {
        problem(Kind.OVERLAY_ORDER, path,
            "overlay committed at version " + overlay.committedVersion() + " follows one committed at "
                + previousVersion + " in " + where + "; overlays must be listed oldest first");
      }
      if (overlay.committedVersion() > manifest.version()) {
        problem(Kind.OVERLAY_ORDER, path,
            "overlay committed at version " + overlay.committedVersion() + " is newer than version " + manifest.version());
      }
      previousVersion = Math.max(previousVersion, overlay.committedVersion());
      if (overlay.coverage().maxOffset() >= fragment.physicalRows()) {
        problem(Kind.OVERLAY_OUT_OF_RANGE, path,
            "covers offset " + overlay.coverage().maxOffset() + " but " + where + " has " + fragment.physicalRows()
                + " physical rows");
      }
      long covered = coveredRows(overlay.coverage(), overlay.dataFile().fieldIds().size());
      checkDataFile(fragment, overlay.dataFile(), true).ifPresent(md -> {
        checkStats(fragment, overlay.dataFile(), md, true);
        checkFrameTable(overlay.dataFile().path(), md);
        if (md.rowCount() != covered) {
          problem(Kind.ROW_COUNT_MISMATCH, path,
              "overlay file holds " + md.rowCount() + " rows but its coverage has " + covered + " offsets");
        }
      });
    }
  }

  /**
   * A struct whose live members the fragment stores in several data files: every file's copy of the
   * struct's validity must equal the copy reads use, that of the file storing its first live member
   * (docs/format.md §5). Writers keep them equal; tables written before that rule may not. Files whose
   * footer failed a check are skipped (already reported).
   */
  private void checkStructValidity(Fragment fragment, Field struct, int depth, Map<DataFile, DataFileMetadata> sound) {
    if (!struct.isStruct()) {
      return;
    }
    Map<DataFile, Field> firstMemberByFile = new LinkedHashMap<>(); // the source first: schema order
    for (Field member : struct.preorder()) {
      if (member.isStruct()) {
        continue;
      }
      for (DataFile file : fragment.files()) {
        if (file.columnOf(member.id()) >= 0) {
          firstMemberByFile.putIfAbsent(file, member);
          break;
        }
      }
    }
    if (firstMemberByFile.size() > 1 && sound.keySet().containsAll(firstMemberByFile.keySet())) {
      Schema schema = manifest.schema();
      List<Map.Entry<DataFile, Field>> files = new ArrayList<>(firstMemberByFile.entrySet());
      DataFile source = files.get(0).getKey();
      String sourceMember = schema.pathOf(files.get(0).getValue().id());
      try {
        RoaringBitmap expected = nullOffsets(source, files.get(0).getValue(), depth, sound.get(source));
        for (Map.Entry<DataFile, Field> other : files.subList(1, files.size())) {
          RoaringBitmap found = nullOffsets(other.getKey(), other.getValue(), depth, sound.get(other.getKey()));
          RoaringBitmap differ = RoaringBitmap.xor(expected, found);
          if (!differ.isEmpty()) {
            problem(Kind.STRUCT_VALIDITY_MISMATCH, other.getKey().path(),
                "struct '" + schema.pathOf(struct.id()) + "' (id " + struct.id() + ") of fragment " + fragment.id()
                    + " is null at different offsets in data file " + source.path() + " (storing '" + sourceMember
                    + "', its first live member, whose copy every read uses) and in this file (storing '"
                    + schema.pathOf(other.getValue().id()) + "'): they differ at " + differ.getLongCardinality()
                    + " offsets, first at offset " + Integer.toUnsignedLong(differ.first()) + " (null in "
                    + (expected.contains(differ.first()) ? source.path() : other.getKey().path()) + "). Reads are"
                    + " consistent, but dropping '" + sourceMember + "' would switch them to another file's copy;"
                    + " compact the fragment (it is rewritten with the validity reads see), or write the struct"
                    + " whole to choose its validity");
          }
        }
      } catch (QuiverException e) {
        problem(Kind.CORRUPT_FILE, "fragment " + fragment.id(),
            "the validity of struct '" + schema.pathOf(struct.id()) + "' could not be read: " + e.getMessage());
      }
    }
    for (Field child : struct.children()) {
      checkStructValidity(fragment, child, depth + 1, sound);
    }
  }

  /** Offsets where the struct ancestor at {@code depth} of {@code member}'s column in {@code file} is null. */
  private RoaringBitmap nullOffsets(DataFile file, Field member, int depth, DataFileMetadata md) {
    RoaringBitmap out = new RoaringBitmap();
    int column = file.columnOf(member.id());
    for (int b = 0; b < md.batchCount(); b++) {
      long start = md.batchStart(b);
      io.quiver.internal.file.StructValidityBits bits = io.dataFiles().readStructValidity(file.path(), b, column, depth);
      if (bits.nullCount() == 0) {
        continue;
      }
      for (int row = 0; row < bits.length(); row++) {
        if (bits.isNull(row)) {
          out.add((int) (start + row));
        }
      }
    }
    return out;
  }

  /**
   * The file's statistics (and its footer's zone statistics) against the file's own rows and values. Counts
   * above the row count and bounds of two kinds never get here: the manifest would not decode (§3.1).
   */
  private void checkStats(Fragment fragment, DataFile file, DataFileMetadata md, boolean overlay) {
    Optional<List<FileStats>> zones = md.zoneStats();
    if (file.stats().isEmpty() && zones.isEmpty()) {
      return;
    }
    String what = (overlay ? "overlay file of fragment " : "data file of fragment ") + fragment.id();
    List<ColumnStats> recorded = new ArrayList<>();
    file.stats().ifPresent(stats -> {
      if (stats.rowCount() != md.rowCount()) {
        problem(Kind.STATS_INCONSISTENT, file.path(),
            "the statistics of this " + what + " count " + stats.rowCount() + " rows but the file holds "
                + md.rowCount() + (overlay ? "" : " (the fragment has " + fragment.physicalRows() + " physical rows)")
                + "; readers treat every field of it as unknown");
      }
      for (ColumnStats c : stats.columns()) {
        if (file.columnOf(c.fieldId()) < 0) {
          problem(Kind.STATS_INCONSISTENT, file.path(),
              "the statistics of this " + what + " list field id " + c.fieldId() + ", which the file does not store"
                  + " (live); only the file's own fields have statistics");
        } else {
          recorded.add(c);
        }
      }
    });
    ObservedStats observed;
    try {
      observed = ObservedStats.read(io.dataFiles(), file.path(), allocator);
    } catch (QuiverException e) {
      problem(Kind.CORRUPT_FILE, file.path(),
          "the values of this " + what + " could not be read to check its statistics: " + e.getMessage());
      return;
    }
    for (ColumnStats c : recorded) {
      int column = file.columnOf(c.fieldId());
      if (column >= observed.file().columns().size()) {
        continue; // reported as COLUMN_MISMATCH
      }
      checkColumnStats(file.path(), what, "statistics", atomicById.get(c.fieldId()), c.fieldId(), c,
          observed.file().columns().get(column));
    }
    zones.ifPresent(z -> {
      for (int b = 0; b < z.size(); b++) {
        for (ColumnStats c : z.get(b).columns()) {
          int column = c.fieldId(); // zone statistics are keyed by atomic column index (§5.2)
          int id = fieldIdAt(file, column);
          checkColumnStats(file.path(), what, "zone statistics of record batch " + b, atomicById.get(id), id, c,
              observed.zones().get(b).columns().get(column));
        }
      }
    });
  }

  /** The field id stored at atomic column {@code column} of {@code file} ({@link DataFile#TOMBSTONE} or -1 if none). */
  private static int fieldIdAt(DataFile file, int column) {
    int i = file.columnIndices().indexOf(column);
    return i < 0 ? -1 : file.fieldIds().get(i);
  }

  /**
   * One column's recorded statistics against those observed in the file's values: the order is {@link
   * StatValues#compare}, the one the predicate evaluator and pruning apply.
   */
  private void checkColumnStats(String path, String what, String which, Field field, int fieldId,
      ColumnStats recorded, ColumnStats observed) {
    String subject = "the " + which + " of field " + (field == null ? "id " + fieldId
        : "'" + manifest.schema().pathOf(fieldId) + "' (id " + fieldId + ")") + " in this " + what;
    boolean floating = observed.nanCount().isPresent();
    if (recorded.nanCount().isPresent() && !floating) {
      problem(Kind.STATS_INCONSISTENT, path,
          subject + " count " + recorded.nanCount().getAsLong() + " NaN, but only floating-point fields have NaN");
    } else if (recorded.nanCount().isPresent() && recorded.nanCount().getAsLong() != observed.nanCount().getAsLong()) {
      problem(Kind.STATS_MISMATCH, path,
          subject + " count " + recorded.nanCount().getAsLong() + " NaN but the file holds "
              + observed.nanCount().getAsLong() + "; pruning on NaN would skip or keep the wrong rows");
    }
    if (recorded.nullCount() != observed.nullCount()) {
      problem(Kind.STATS_MISMATCH, path,
          subject + " count " + recorded.nullCount() + " nulls but the file holds " + observed.nullCount()
              + "; IS NULL and comparisons could skip rows they match");
    }
    Optional<StatValue> lower = recorded.lower();
    Optional<StatValue> upper = recorded.upper();
    if (!sameKind(path, subject, lower, observed.lower()) || !sameKind(path, subject, upper, observed.upper())) {
      return;
    }
    if (lower.isPresent() && upper.isPresent() && StatValues.compare(lower.get(), upper.get()) > 0) {
      problem(Kind.STATS_INCONSISTENT, path,
          subject + " have lower bound " + show(field, lower.get()) + " above upper bound " + show(field, upper.get())
              + "; readers treat the field as unknown");
    }
    if (lower.isPresent() && observed.lower().isPresent() && StatValues.compare(lower.get(), observed.lower().get()) > 0) {
      problem(Kind.STATS_MISMATCH, path,
          subject + " have lower bound " + show(field, lower.get()) + " but the file holds "
              + show(field, observed.lower().get()) + ", below it; filters on the field could skip rows they match");
    }
    if (upper.isPresent() && observed.upper().isPresent() && StatValues.compare(observed.upper().get(), upper.get()) > 0) {
      problem(Kind.STATS_MISMATCH, path,
          subject + " have upper bound " + show(field, upper.get()) + " but the file holds "
              + show(field, observed.upper().get()) + ", above it; filters on the field could skip rows they match");
    }
  }

  /** False (and reported) when a recorded bound is of another kind than the values the field stores. */
  private boolean sameKind(String path, String subject, Optional<StatValue> recorded, Optional<StatValue> observed) {
    if (recorded.isEmpty() || observed.isEmpty() || recorded.get().getClass() == observed.get().getClass()) {
      return true;
    }
    problem(Kind.STATS_INCONSISTENT, path,
        subject + " have a " + recorded.get().getClass().getSimpleName() + " bound (" + recorded.get()
            + ") but the field's values take " + observed.get().getClass().getSimpleName()
            + " bounds; readers treat the field as unknown");
    return false;
  }

  /** A bound for a message: strings as text (shortened), everything else as the bound prints. */
  private static String show(Field field, StatValue bound) {
    if (field != null && bound instanceof StatValue.Bytes b
        && (field.type() instanceof ArrowType.Utf8 || field.type() instanceof ArrowType.LargeUtf8)) {
      String text = new String(b.value(), StandardCharsets.UTF_8);
      return "'" + (text.codePointCount(0, text.length()) > 40
          ? text.substring(0, text.offsetByCodePoints(0, 40)) + "...'" : text + "'");
    }
    return bound.toString();
  }

  /** Rows an overlay file holds: one per offset covered by any of its fields. */
  private static long coveredRows(Coverage coverage, int fields) {
    if (coverage instanceof Coverage.Shared shared) {
      return shared.offsets().getLongCardinality();
    }
    MutableRoaringBitmap union = new MutableRoaringBitmap();
    for (int i = 0; i < fields; i++) {
      union.or(coverage.offsetsFor(i));
    }
    return union.getLongCardinality();
  }

  /** Checks path, existence, size, field ids and columns; returns the footer when it could be read. */
  private Optional<DataFileMetadata> checkDataFile(Fragment fragment, DataFile file, boolean overlay) {
    String path = file.path();
    String what = overlay ? "overlay file" : "data file";
    if (!Keys.isValid(path) || !path.startsWith(DataFile.DATA_PREFIX)) {
      problem(Kind.UNSAFE_PATH, path, what + " path is not a relative path under " + DataFile.DATA_PREFIX);
      return Optional.empty();
    }
    for (int id : file.fieldIds()) {
      if (id != DataFile.TOMBSTONE && !atomicById.containsKey(id)) {
        problem(Kind.UNKNOWN_FIELD, path,
            what + " of fragment " + fragment.id() + " stores field id " + id
                + ", which is not an atomic field of the schema at version " + manifest.version());
      }
    }
    if (!sizeMatches(path, file.sizeBytes(), what)) {
      return Optional.empty();
    }
    DataFileMetadata md;
    try {
      md = io.dataFiles().loadAllBatches(path);
    } catch (QuiverException e) {
      problem(Kind.CORRUPT_FILE, path, what + " footer or record batch metadata could not be read: " + e.getMessage());
      return Optional.empty();
    }
    List<org.apache.arrow.vector.types.pojo.Field> columns = atomicColumns(md.schema());
    for (int i = 0; i < file.fieldIds().size(); i++) {
      int id = file.fieldIds().get(i);
      int column = file.columnIndices().get(i);
      if (column >= columns.size()) {
        problem(Kind.COLUMN_MISMATCH, path,
            "field id " + id + " is mapped to atomic column " + column + " but the file has " + columns.size()
                + " atomic columns");
        continue;
      }
      Field field = atomicById.get(id);
      if (field != null && !sameType(field, columns.get(column))) {
        problem(Kind.COLUMN_MISMATCH, path,
            "field '" + manifest.schema().pathOf(id) + "' (id " + id + ") has type " + describe(field)
                + " but atomic column " + column + " ('" + columns.get(column).getName() + "') of the file has type "
                + describe(columns.get(column)));
      }
    }
    return Optional.of(md);
  }

  private boolean sizeMatches(String path, long expected, String what) {
    filesChecked++;
    Optional<ObjectInfo> info = io.store().head(path);
    if (info.isEmpty()) {
      problem(Kind.MISSING_FILE, path, what + " of version " + manifest.version() + " does not exist");
      return false;
    }
    if (info.get().size() != expected) {
      problem(Kind.SIZE_MISMATCH, path,
          what + " is " + info.get().size() + " bytes but the manifest records " + expected
              + "; it was truncated or replaced");
      return false;
    }
    return true;
  }

  private void checkDeletionFile(Fragment fragment, DeletionFile d) {
    String path = d.path();
    if (!Keys.isValid(path) || !path.startsWith(DeletionFile.DELETIONS_PREFIX)) {
      problem(Kind.UNSAFE_PATH, path, "deletion file path is not a relative path under " + DeletionFile.DELETIONS_PREFIX);
      return;
    }
    if (!sizeMatches(path, d.sizeBytes(), "deletion file")) {
      return;
    }
    RoaringBitmap bitmap = new RoaringBitmap();
    try {
      bitmap.deserialize(ByteBuffer.wrap(io.store().read(path)));
    } catch (ObjectNotFoundException e) {
      problem(Kind.MISSING_FILE, path, "deletion file disappeared while being validated");
      return;
    } catch (java.io.IOException | RuntimeException e) {
      problem(Kind.CORRUPT_FILE, path, "deletion file is not a portable RoaringBitmap: " + e.getMessage());
      return;
    }
    if (bitmap.getLongCardinality() != d.deletedRows()) {
      problem(Kind.DELETION_COUNT_MISMATCH, path,
          "holds " + bitmap.getLongCardinality() + " offsets but the manifest records " + d.deletedRows()
              + " deleted rows for fragment " + fragment.id());
    }
    if (!bitmap.isEmpty() && Integer.toUnsignedLong(bitmap.last()) >= fragment.physicalRows()) {
      problem(Kind.DELETION_OUT_OF_RANGE, path,
          "deletes offset " + Integer.toUnsignedLong(bitmap.last()) + " but fragment " + fragment.id() + " has "
              + fragment.physicalRows() + " physical rows");
    }
  }

  /** The file's atomic columns: depth-first, structs recursed and not counted. */
  static List<org.apache.arrow.vector.types.pojo.Field> atomicColumns(org.apache.arrow.vector.types.pojo.Schema s) {
    List<org.apache.arrow.vector.types.pojo.Field> out = new ArrayList<>();
    collect(s.getFields(), out);
    return out;
  }

  private static void collect(List<org.apache.arrow.vector.types.pojo.Field> level,
      List<org.apache.arrow.vector.types.pojo.Field> out) {
    for (org.apache.arrow.vector.types.pojo.Field f : level) {
      if (f.getType().getTypeID() == ArrowType.ArrowTypeID.Struct) {
        collect(f.getChildren(), out);
      } else {
        out.add(f);
      }
    }
  }

  /** Same Arrow type, recursively over children (names and nullability may differ). */
  private static boolean sameType(Field field, org.apache.arrow.vector.types.pojo.Field column) {
    if (!field.type().equals(column.getType()) || field.children().size() != column.getChildren().size()) {
      return false;
    }
    for (int i = 0; i < field.children().size(); i++) {
      if (!sameType(field.children().get(i), column.getChildren().get(i))) {
        return false;
      }
    }
    return true;
  }

  private static String describe(Field f) {
    return f.children().isEmpty()
        ? f.type().toString()
        : f.type() + "<" + String.join(", ", f.children().stream().map(Validator::describe).toList()) + ">";
  }

  private static String describe(org.apache.arrow.vector.types.pojo.Field f) {
    return f.getChildren().isEmpty()
        ? f.getType().toString()
        : f.getType() + "<" + String.join(", ", f.getChildren().stream().map(Validator::describe).toList()) + ">";
  }

  /** False when the field and all its ancestors are non-nullable (so every row must store a value). */
  private static boolean nullableFromRoot(Schema schema, Field field) {
    Field f = field;
    while (true) {
      if (f.nullable()) {
        return true;
      }
      if (f.parentId() < 0) {
        return false;
      }
      f = schema.field(f.parentId());
    }
  }
}
