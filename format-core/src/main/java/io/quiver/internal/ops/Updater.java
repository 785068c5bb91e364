package io.quiver.internal.ops;

import io.quiver.dataset.RowAddress;
import io.quiver.dataset.UpdateFunction;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.NotFoundException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.internal.file.DataFileWriter;
import io.quiver.internal.write.CompressionConfig;
import io.quiver.internal.file.WrittenFile;
import io.quiver.internal.predicate.PredicateEvaluator;
import io.quiver.internal.read.Deletions;
import io.quiver.internal.read.FragmentReader;
import io.quiver.internal.read.Projection;
import io.quiver.internal.read.ScanSpec;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.write.FragmentWriter;
import io.quiver.manifest.Coverage;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import io.quiver.store.ObjectStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.roaringbitmap.RoaringBitmap;

/**
 * Computes an update: finds the matched live rows fragment by fragment, works out their new values, and
 * writes, per fragment with matches, one overlay file holding only the updated fields' new values for
 * the matched offsets (Shared coverage). Nothing is committed here; {@link Prepared} carries the
 * operation, whose files were written through the updater's {@link TableIo} (a mutation's, which deletes
 * them if the commit fails).
 *
 * <p>An update never changes a struct's validity (docs/format.md §5): the struct ancestors of updated
 * members are written with the struct's current validity, so setting {@code s.x} in a row whose {@code s}
 * is null stores the value under the null struct, where every read keeps it hidden. Making a struct valid
 * or null is a write of the whole struct (replaceColumns or a staged write targeting {@code s}).
 */
final public class Updater {
  /** Rows read per chunk while looking for matches. */
  static final int CHUNK_ROWS = ScanSpec.DEFAULT_BATCH_SIZE;

  private final TableIo io;
  private final Manifest manifest;
  private final Schema table;
  private final BufferAllocator allocator;
  private final int rowsPerBatch;

  /** The update to commit: {@code op} is null when nothing matched. */
  public record Prepared(Operation.Update op, long rows) {}

  /** Which rows of a fragment an update changes. */
  public interface Matcher {
    /** Fields the matcher reads. */
    Set<Integer> fieldIds();

    /** Fragments that may hold matches. */
    boolean visits(Fragment fragment);

    /** False when no row of the chunk can match (the chunk is not read). */
    boolean mayMatch(Fragment fragment, FragmentReader.Chunk chunk);

    /** Positions in the chunk of the matched rows, ascending; deleted rows are removed afterwards. */
    int[] match(Fragment fragment, FragmentReader.Chunk chunk, VectorSchemaRoot rows);
  }

  /** Fills the targets' new values for the matched rows. */
  public interface Values {
    /** Fields read to compute the values. */
    Set<Integer> inputFieldIds();

    /**
     * Sets {@code targets[fieldId][i]} for every matched row {@code i} (the i-th entry of {@code rows},
     * a position in {@code read}); values are left allocated but without a value count.
     */
    void fill(VectorSchemaRoot read, Map<Integer, FieldVector> readById, int[] rows, Map<Integer, FieldVector> targets);
  }

  public Updater(TableIo io, Manifest manifest, BufferAllocator allocator, int rowsPerBatch) {
    this.io = io;
    this.manifest = manifest;
    this.table = manifest.schema();
    this.allocator = allocator;
    this.rowsPerBatch = rowsPerBatch;
  }

  // ------------------------------------------------------------------ targets

  /** The atomic fields named, in the order given; each must be an updatable column. */
  public List<Field> targets(List<String> columns) {
    if (columns == null || columns.isEmpty()) {
      throw new InvalidArgumentException("an update needs at least one column to set");
    }
    List<Field> out = new ArrayList<>();
    Set<Integer> seen = new java.util.HashSet<>();
    for (String column : columns) {
      Field f = table.findField(column).orElseThrow(() -> new InvalidArgumentException(
          "no column '" + column + "' in the table; columns are " + table.allFields().stream()
              .filter(Field::isAtomic).map(x -> table.pathOf(x.id())).toList()));
      if (f.isStruct()) {
        throw new InvalidArgumentException(
            "column '" + column + "' is a struct; update its members (e.g. '" + column + "."
                + f.children().get(0).name() + "') instead");
      }
      if (!table.atomicFields().contains(f)) {
        throw new InvalidArgumentException(
            "column '" + column + "' lies inside a list or map; update the whole column '"
                + table.pathOf(anchor(f).id()) + "' instead");
      }
      if (!seen.add(f.id())) {
        throw new InvalidArgumentException("column '" + column + "' is set twice in one update");
      }
      out.add(f);
    }
    return out;
  }

  private Field anchor(Field f) {
    Field anchor = f;
    for (Field x = f; x != null; x = x.parentId() < 0 ? null : table.field(x.parentId())) {
      if (x.isAtomic()) {
        anchor = x;
      }
    }
    return anchor;
  }

  /** Rows given by address: every address must name a live row of this version. */
  public Matcher addresses(long[] rowAddresses) {
    if (rowAddresses == null) {
      throw new InvalidArgumentException("row addresses must not be null");
    }
    Map<Long, Fragment> fragments = new HashMap<>();
    manifest.fragments().forEach(f -> fragments.put(f.id(), f));
    Map<Long, RoaringBitmap> byFragment = new TreeMap<>();
    for (long address : rowAddresses) {
      long fragmentId = RowAddress.fragmentId(address);
      long offset = RowAddress.offset(address);
      Fragment fragment = fragments.get(fragmentId);
      if (fragment == null || offset >= fragment.physicalRows()) {
        throw new NotFoundException(
            "no row at address " + address + " (fragment " + fragmentId + ", offset " + offset + ") in "
                + io.location() + " at version " + manifest.version() + "; nothing was updated");
      }
      byFragment.computeIfAbsent(fragmentId, k -> new RoaringBitmap()).add((int) offset);
    }
    for (Map.Entry<Long, RoaringBitmap> e : byFragment.entrySet()) {
      RoaringBitmap deleted = Deletions.of(io, fragments.get(e.getKey()));
      RoaringBitmap gone = RoaringBitmap.and(deleted, e.getValue());
      if (!gone.isEmpty()) {
        long offset = Integer.toUnsignedLong(gone.first());
        throw new NotFoundException(
            "row address " + RowAddress.of(e.getKey(), offset) + " (fragment " + e.getKey() + ", offset " + offset
                + ") was deleted at version " + manifest.version() + " or earlier; nothing was updated");
      }
    }
    return new Matcher() {
      @Override
      public Set<Integer> fieldIds() {
        return Set.of();
      }

      @Override
      public boolean visits(Fragment fragment) {
        return byFragment.containsKey(fragment.id());
      }

      @Override
      public boolean mayMatch(Fragment fragment, FragmentReader.Chunk chunk) {
        return byFragment.get(fragment.id()).rangeCardinality(chunk.start(), chunk.start() + chunk.length()) > 0;
      }

      @Override
      public int[] match(Fragment fragment, FragmentReader.Chunk chunk, VectorSchemaRoot rows) {
        RoaringBitmap offsets = byFragment.get(fragment.id());
        long end = chunk.start() + chunk.length();
        int[] out = new int[(int) offsets.rangeCardinality(chunk.start(), end)];
        int n = 0;
        org.roaringbitmap.PeekableIntIterator it = offsets.getIntIterator();
        it.advanceIfNeeded((int) chunk.start());
        while (it.hasNext() && Integer.toUnsignedLong(it.peekNext()) < end) {
          out[n++] = (int) (Integer.toUnsignedLong(it.next()) - chunk.start());
        }
        return out;
      }
    };
  }

  /** Live rows for which {@code predicate} is true (unknown is not true). */
  public Matcher matching(io.quiver.predicate.Predicate predicate) {
    if (predicate == null) {
      throw new InvalidArgumentException("predicate must not be null; use Predicate.alwaysTrue() to update every row");
    }
    Set<Integer> ids = predicate.fieldIds(table); // unknown columns fail here, naming the table's columns
    // Bind before reading anything: a literal of the wrong type is reported even on an empty table.
    PredicateEvaluator.bind(predicate, Projection.project(table, List.copyOf(predicate.columns()), null).toArrow());
    return new Matcher() {
      private io.quiver.internal.predicate.PredicateEvaluator evaluator;
      private org.apache.arrow.vector.types.pojo.Schema boundTo;

      @Override
      public Set<Integer> fieldIds() {
        return ids;
      }

      @Override
      public boolean visits(Fragment fragment) {
        return true;
      }

      @Override
      public boolean mayMatch(Fragment fragment, FragmentReader.Chunk chunk) {
        return true;
      }

      @Override
      public int[] match(Fragment fragment, FragmentReader.Chunk chunk, VectorSchemaRoot rows) {
        if (evaluator == null || !boundTo.equals(rows.getSchema())) {
          boundTo = rows.getSchema();
          evaluator = PredicateEvaluator.bind(predicate, boundTo);
        }
        return evaluator.evaluate(rows).stream().toArray();
      }
    };
  }

  /** The same literal for every matched row; a null value sets nulls. */
  public Values literals(List<Field> targets, List<Object> values) {
    for (int i = 0; i < targets.size(); i++) {
      Field f = targets.get(i);
      if (values.get(i) == null && !f.nullable()) {
        throw new SchemaMismatchException(
            "column '" + table.pathOf(f.id()) + "' is non-nullable; it cannot be updated to null");
      }
    }
    // Convert once up front, so a bad literal fails before any file is written.
    Map<Integer, FieldVector> templates = new LinkedHashMap<>();
    try {
      for (int i = 0; i < targets.size(); i++) {
        Field f = targets.get(i);
        FieldVector template = f.toArrow().createVector(allocator);
        templates.put(f.id(), template);
        template.allocateNew();
        if (values.get(i) != null) {
          UpdateLiterals.set(template, 0, values.get(i), table.pathOf(f.id()));
        }
        template.setValueCount(1);
      }
    } catch (RuntimeException e) {
      templates.values().forEach(FieldVector::close);
      throw e;
    }
    return new LiteralValues(templates);
  }

  /** Literal values, held in one-row vectors; {@link #close()} frees them. */
  static final public class LiteralValues implements Values, AutoCloseable {
    private final Map<Integer, FieldVector> templates;

    LiteralValues(Map<Integer, FieldVector> templates) {
      this.templates = templates;
    }

    @Override
    public Set<Integer> inputFieldIds() {
      return Set.of();
    }

    @Override
    public void fill(VectorSchemaRoot read, Map<Integer, FieldVector> readById, int[] rows,
        Map<Integer, FieldVector> targets) {
      templates.forEach((id, template) -> {
        FieldVector target = targets.get(id);
        for (int i = 0; i < rows.length; i++) {
          target.copyFromSafe(0, i, template);
        }
      });
    }

    @Override
    public void close() {
      templates.values().forEach(FieldVector::close);
    }
  }

  /** Values computed by a function from the matched rows' current input columns. */
  public Values computed(List<String> inputColumns, List<Field> targets, UpdateFunction fn) {
    if (inputColumns == null) {
      throw new InvalidArgumentException("input columns must not be null; pass an empty list to read none");
    }
    Schema inputs = Projection.project(table, inputColumns, null);
    Set<Integer> inputIds = new TreeSet<>();
    inputs.atomicFields().forEach(f -> inputIds.add(f.id()));
    return new Values() {
      @Override
      public Set<Integer> inputFieldIds() {
        return inputIds;
      }

      @Override
      public void fill(VectorSchemaRoot read, Map<Integer, FieldVector> readById, int[] rows,
          Map<Integer, FieldVector> out) {
        VectorSchemaRoot current = VectorSchemaRoot.create(inputs.toArrow(), allocator);
        VectorSchemaRoot computed = null;
        try {
          for (int c = 0; c < inputs.fields().size(); c++) {
            Field f = inputs.fields().get(c);
            copyRows(f, current.getVector(c), readById, rows);
          }
          current.setRowCount(rows.length);
          computed = fn.apply(current);
          check(computed, rows.length, targets);
          for (int i = 0; i < targets.size(); i++) {
            FieldVector from = computed.getVector(i);
            FieldVector to = out.get(targets.get(i).id());
            for (int r = 0; r < rows.length; r++) {
              to.copyFromSafe(r, r, from);
            }
          }
        } finally {
          if (computed != null && computed != current) {
            computed.close();
          }
          current.close();
        }
      }
    };
  }

  /** Copies the rows of {@code field} (at the given positions of the read batch) into {@code to}. */
  private static void copyRows(Field field, FieldVector to, Map<Integer, FieldVector> readById, int[] rows) {
    FieldVector from = readById.get(field.id());
    if (field.isStruct()) {
      StructVector target = (StructVector) to;
      for (int c = 0; c < field.children().size(); c++) {
        copyRows(field.children().get(c), (FieldVector) target.getChildByOrdinal(c), readById, rows);
      }
      for (int i = 0; i < rows.length; i++) {
        if (from.isNull(rows[i])) {
          target.setNull(i);
        } else {
          target.setIndexDefined(i);
        }
      }
      target.setValueCount(rows.length);
      return;
    }
    to.allocateNew();
    for (int i = 0; i < rows.length; i++) {
      to.copyFromSafe(rows[i], i, from);
    }
    to.setValueCount(rows.length);
  }

  private void check(VectorSchemaRoot computed, int rows, List<Field> targets) {
    if (computed == null) {
      throw new InvalidArgumentException("the update function returned null; return the new values");
    }
    if (computed.getFieldVectors().size() != targets.size()) {
      throw new SchemaMismatchException(
          "the update function returned " + computed.getFieldVectors().size() + " columns "
              + computed.getSchema().getFields().stream().map(org.apache.arrow.vector.types.pojo.Field::getName).toList()
              + " but the update sets " + targets.size() + " " + targets.stream().map(f -> table.pathOf(f.id())).toList()
              + "; return one vector per output column, in order");
    }
    if (computed.getRowCount() != rows) {
      throw new InvalidArgumentException(
          "the update function returned " + computed.getRowCount() + " rows for a batch of " + rows
              + " matched rows; return exactly one row per input row, in order");
    }
    for (int i = 0; i < targets.size(); i++) {
      Field target = targets.get(i);
      FieldVector v = computed.getVector(i);
      String problem = sameType(target.toArrow(), v.getField());
      if (problem != null) {
        throw new SchemaMismatchException(
            "output column " + i + " ('" + table.pathOf(target.id()) + "') of the update function " + problem
                + "; cast it to the column's type");
      }
      if (v.getValueCount() < rows) {
        throw new InvalidArgumentException(
            "output column '" + table.pathOf(target.id()) + "' holds " + v.getValueCount() + " values for "
                + rows + " rows; set its value count");
      }
      if (!target.nullable()) {
        for (int r = 0; r < rows; r++) {
          if (v.isNull(r)) {
            throw new SchemaMismatchException(
                "the update function returned a null for non-nullable column '" + table.pathOf(target.id())
                    + "' (row " + r + " of the batch); nothing was committed");
          }
        }
      }
    }
  }

  /** Null when the types (and children's types) agree; names are not compared. */
  private static String sameType(org.apache.arrow.vector.types.pojo.Field want,
      org.apache.arrow.vector.types.pojo.Field got) {
    if (!want.getType().equals(got.getType())) {
      return "has type " + got.getType() + ", expected " + want.getType();
    }
    if (want.getChildren().size() != got.getChildren().size()) {
      return "has " + got.getChildren().size() + " children, expected " + want.getChildren().size();
    }
    for (int i = 0; i < want.getChildren().size(); i++) {
      String p = sameType(want.getChildren().get(i), got.getChildren().get(i));
      if (p != null) {
        return p;
      }
    }
    return null;
  }

  // ------------------------------------------------------------------ running

  /**
   * Finds the matches and writes the overlay files.
   *
   * @param readFieldIds fields recorded as read (predicate and input fields)
   */
  public Prepared run(Matcher matcher, List<Field> targets, Values values, Set<Integer> readFieldIds) {
    Set<Integer> targetIds = new LinkedHashSet<>();
    targets.forEach(f -> targetIds.add(f.id()));
    Schema overlaySchema = table.project(targetIds);
    List<Integer> overlayFieldIds = overlaySchema.atomicFields().stream().map(Field::id).toList();
    // Targets are read only for their struct ancestors' current validity.
    Set<Integer> readIds = new TreeSet<>();
    targets.stream().filter(f -> f.parentId() >= 0).forEach(f -> readIds.add(f.id()));
    readIds.addAll(matcher.fieldIds());
    readIds.addAll(values.inputFieldIds());
    Schema readSchema = table.project(readIds);

    List<Operation.FragmentOverlays> overlays = new ArrayList<>();
    long total = 0;
    DataFileWriter writer = null;
    try {
      for (Fragment fragment : manifest.fragments()) {
        if (fragment.liveRows() == 0 || !matcher.visits(fragment)) {
          continue;
        }
        RoaringBitmap deleted = Deletions.of(io, fragment);
        RoaringBitmap coverage = new RoaringBitmap();
        try (FragmentReader reader = new FragmentReader(io, fragment, readSchema, table, allocator)) {
          for (FragmentReader.Chunk chunk : reader.plan(CHUNK_ROWS)) {
            if (!matcher.mayMatch(fragment, chunk)) {
              continue;
            }
            try (VectorSchemaRoot read = reader.read(chunk)) {
              int[] rows = live(matcher.match(fragment, chunk, read), chunk, deleted);
              if (rows.length == 0) {
                continue;
              }
              if (writer == null) {
                writer = new DataFileWriter(store(), FragmentWriter.newDataFilePath(), overlaySchema.toArrow(),
                    allocator, rowsPerBatch, CompressionConfig.of(manifest.config()).forFile(overlaySchema));
              }
              try (VectorSchemaRoot batch = overlayBatch(overlaySchema, read, readSchema, rows, values)) {
                writer.write(batch);
              }
              for (int row : rows) {
                coverage.add((int) (chunk.start() + row));
              }
            }
          }
        }
        if (writer != null) {
          WrittenFile file = writer.finish();
          writer = null;
          DataFile dataFile = file.toDataFile(overlayFieldIds);
          Overlay overlay = new Overlay(dataFile, new Coverage.Shared(coverage.toMutableRoaringBitmap()), 0);
          overlays.add(new Operation.FragmentOverlays(fragment.id(), List.of(overlay)));
          total += coverage.getLongCardinality();
        }
      }
    } catch (RuntimeException e) {
      if (writer != null) {
        writer.abort();
      }
      throw e;
    }
    if (overlays.isEmpty()) {
      return new Prepared(null, 0);
    }
    return new Prepared(new Operation.Update(overlays, readFieldIds), total);
  }

  private ObjectStore store() {
    return io.store();
  }

  private static int[] live(int[] matched, FragmentReader.Chunk chunk, RoaringBitmap deleted) {
    if (deleted.isEmpty() || deleted.rangeCardinality(chunk.start(), chunk.start() + chunk.length()) == 0) {
      return matched;
    }
    int n = 0;
    int[] out = new int[matched.length];
    for (int row : matched) {
      if (!deleted.contains((int) (chunk.start() + row))) {
        out[n++] = row;
      }
    }
    return java.util.Arrays.copyOf(out, n);
  }

  /** The overlay rows for the matched rows: new values, and each struct's current validity. */
  private VectorSchemaRoot overlayBatch(Schema overlaySchema, VectorSchemaRoot read, Schema readSchema, int[] rows,
      Values values) {
    VectorSchemaRoot batch = VectorSchemaRoot.create(overlaySchema.toArrow(), allocator);
    try {
      Map<Integer, FieldVector> targets = byId(overlaySchema, batch);
      Map<Integer, FieldVector> readById = byId(readSchema, read);
      for (Field f : overlaySchema.atomicFields()) {
        targets.get(f.id()).allocateNew();
      }
      values.fill(read, readById, rows, targets);
      for (Field f : overlaySchema.atomicFields()) {
        targets.get(f.id()).setValueCount(rows.length);
      }
      for (Field f : overlaySchema.allFields()) {
        // Structs reached through structs only: one inside a list or map (a map's entries) is part of
        // that atomic column's value, copied whole by fill, and has no vector of its own here.
        if (!f.isStruct() || !targets.containsKey(f.id())) {
          continue;
        }
        StructVector struct = (StructVector) targets.get(f.id());
        FieldVector now = readById.get(f.id());
        for (int i = 0; i < rows.length; i++) {
          if (!now.isNull(rows[i])) {
            struct.setIndexDefined(i);
          } else {
            struct.setNull(i);
          }
        }
      }
      batch.setRowCount(rows.length);
      return batch;
    } catch (RuntimeException e) {
      batch.close();
      throw e;
    }
  }

  /** Every node's vector in a root built from {@code schema}, by field id (struct members included). */
  static Map<Integer, FieldVector> byId(Schema schema, VectorSchemaRoot root) {
    Map<Integer, FieldVector> out = new HashMap<>();
    for (int i = 0; i < schema.fields().size(); i++) {
      index(schema.fields().get(i), root.getVector(i), out);
    }
    return out;
  }

  private static void index(Field field, FieldVector vector, Map<Integer, FieldVector> out) {
    out.put(field.id(), vector);
    if (field.isStruct()) {
      StructVector struct = (StructVector) vector;
      for (int c = 0; c < field.children().size(); c++) {
        index(field.children().get(c), (FieldVector) struct.getChildByOrdinal(c), out);
      }
    }
  }
}
