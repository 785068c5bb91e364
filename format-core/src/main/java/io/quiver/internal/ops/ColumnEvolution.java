package io.quiver.internal.ops;

import io.quiver.dataset.ColumnFunction;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.InvalidSchemaException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.internal.read.FragmentReader;
import io.quiver.internal.read.Projection;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.write.CompressionConfig;
import io.quiver.internal.write.FragmentColumnWriter;
import io.quiver.internal.write.StructValidityWrites;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.schema.Field;
import io.quiver.schema.FieldIdAllocator;
import io.quiver.schema.ReservedNames;
import io.quiver.schema.Schema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Column evolution: adding columns (computed per fragment or all-null), replacing column data, and the
 * metadata-only changes (drop, rename, nullability). Adding and replacing share one path: values are
 * computed per fragment from its physical rows and written by {@link FragmentColumnWriter}.
 */
final public class ColumnEvolution {
  private final TableIo io;
  private final BufferAllocator allocator;
  private final int rowsPerBatch;

  public ColumnEvolution(TableIo io, BufferAllocator allocator, int rowsPerBatch) {
    this.io = io;
    this.allocator = allocator;
    this.rowsPerBatch = rowsPerBatch;
  }

  // ---------------------------------------------------------------- add

  public Operation.AddColumns addColumns(Manifest base, List<org.apache.arrow.vector.types.pojo.Field> columns,
      List<String> inputs, ColumnFunction fn) {
    if (columns.isEmpty()) {
      throw new InvalidArgumentException("no columns to add");
    }
    Schema current = base.schema();
    FieldIdAllocator ids = new FieldIdAllocator(base.maxFieldId());
    List<Field> fields = new ArrayList<>(current.fields());
    List<Field> added = new ArrayList<>();
    for (org.apache.arrow.vector.types.pojo.Field column : columns) {
      if (current.findTopLevel(column.getName()).isPresent()
          || added.stream().anyMatch(f -> f.name().equals(column.getName()))) {
        throw new InvalidSchemaException(
            "cannot add column '" + column.getName() + "': a column with that name exists; choose another name");
      }
      if (ReservedNames.isReserved(column.getName())) {
        throw new InvalidSchemaException(
            "column name '" + column.getName() + "' is reserved for Quiver's system columns "
                + ReservedNames.NAMES + "; choose another name");
      }
      Field field = Field.fromArrow(column, -1, ids);
      added.add(field);
    }
    fields.addAll(added);
    Schema next = new Schema(fields, current.metadata());
    Schema addedSchema = new Schema(added, java.util.Map.of());
    List<Operation.FragmentFile> files = new ArrayList<>();
    if (fn == null) {
      for (Field f : added) {
        if (!f.nullable()) {
          throw new InvalidArgumentException(
              "column '" + f.name() + "' is non-nullable, so it cannot be added as all-null; supply a function"
                  + " that computes its values");
        }
      }
    } else {
      Schema inputSchema = resolveInputs(current, inputs);
      for (Fragment fragment : base.fragments()) {
        files.add(new Operation.FragmentFile(fragment.id(), compute(base, fragment, inputSchema, addedSchema, fn)));
      }
    }
    return new Operation.AddColumns(next, files, fieldIds(inputs, current));
  }

  // ---------------------------------------------------------------- replace

  public Operation.DataReplacement replaceColumns(Manifest base, List<String> targets, List<String> inputs,
      ColumnFunction fn, Collection<Long> fragmentIds) {
    Schema current = base.schema();
    Set<Integer> targetIds = new LinkedHashSet<>();
    for (String target : targets) {
      Field f = current.findField(target).orElseThrow(() -> noColumn(target, current));
      if (!isStructPath(current, f)) {
        throw new InvalidArgumentException(
            "cannot replace '" + target + "' on its own: it lives inside a list or map; replace '"
                + current.pathOf(outermostAtomic(current, f).id()) + "' instead");
      }
      targetIds.add(f.id());
    }
    if (targetIds.isEmpty()) {
      throw new InvalidArgumentException("no columns to replace");
    }
    Schema targetSchema = current.project(targetIds);
    Schema inputSchema = resolveInputs(current, inputs);
    List<Operation.Replacement> replacements = new ArrayList<>();
    Set<Long> wanted = fragmentIds == null ? null : new HashSet<>(fragmentIds);
    for (Fragment fragment : base.fragments()) {
      if (wanted != null && !wanted.remove(fragment.id())) {
        continue;
      }
      replacements.add(new Operation.Replacement(fragment.id(), compute(base, fragment, inputSchema, targetSchema,
          fn)));
    }
    if (wanted != null && !wanted.isEmpty()) {
      throw new InvalidArgumentException(
          "no fragment " + wanted + " at version " + base.version() + "; fragments are "
              + base.fragments().stream().map(Fragment::id).toList());
    }
    return new Operation.DataReplacement(replacements, fieldIds(inputs, current));
  }

  /**
   * Computes and writes one fragment's values; the file is discarded on any failure. Structs of which
   * {@code outputs} holds only some members keep their current validity in {@code table}; new columns and
   * structs written whole take the function's.
   */
  private DataFile compute(Manifest base, Fragment fragment, Schema inputs, Schema outputs, ColumnFunction fn) {
    Schema table = base.schema();
    Set<Integer> fresh = new HashSet<>();
    outputs.fields().forEach(f -> {
      if (table.findField(f.id()).isEmpty()) {
        fresh.add(f.id());
      }
    });
    java.util.Map<Integer, org.roaringbitmap.RoaringBitmap> structNulls =
        StructValidityWrites.preservedNulls(io, fragment, table, outputs, fresh, allocator);
    try (FragmentReader reader = new FragmentReader(io, fragment, inputs, table, allocator)) {
      Iterator<FragmentReader.Chunk> chunks = reader.plan(rowsPerBatch).iterator();
      ComputedBatches batches = new ComputedBatches(reader, chunks, fn, outputs);
      try {
        return new FragmentColumnWriter(io.store(), allocator, rowsPerBatch, CompressionConfig.of(base.config()))
            .write(fragment, outputs, batches,
            structNulls);
      } finally {
        batches.close();
      }
    }
  }

  /** Lazily computes output batches chunk by chunk, closing each after the writer consumed it. */
  private final class ComputedBatches implements Iterator<VectorSchemaRoot>, AutoCloseable {
    private final FragmentReader reader;
    private final Iterator<FragmentReader.Chunk> chunks;
    private final ColumnFunction fn;
    private final Schema outputs;
    private VectorSchemaRoot previous;

    ComputedBatches(FragmentReader reader, Iterator<FragmentReader.Chunk> chunks, ColumnFunction fn, Schema outputs) {
      this.reader = reader;
      this.chunks = chunks;
      this.fn = fn;
      this.outputs = outputs;
    }

    @Override
    public boolean hasNext() {
      return chunks.hasNext();
    }

    @Override
    public VectorSchemaRoot next() {
      if (!chunks.hasNext()) {
        throw new NoSuchElementException();
      }
      close();
      FragmentReader.Chunk chunk = chunks.next();
      try (VectorSchemaRoot input = reader.read(chunk)) {
        VectorSchemaRoot out = fn.apply(input, allocator);
        if (out == null) {
          throw new InvalidArgumentException("the column function returned null for " + chunk.length() + " rows");
        }
        previous = out;
        if (out.getRowCount() != chunk.length()) {
          throw new SchemaMismatchException(
              "the column function returned " + out.getRowCount() + " rows for an input of " + chunk.length()
                  + "; it must return one output row per input row");
        }
        return out;
      }
    }

    @Override
    public void close() {
      if (previous != null) {
        previous.close();
        previous = null;
      }
    }
  }

  // ---------------------------------------------------------------- metadata-only changes

  public Operation.Project drop(Schema current, List<String> paths) {
    Set<Integer> drop = new HashSet<>();
    for (String path : paths) {
      Field f = current.findField(path).orElseThrow(() -> noColumn(path, current));
      if (!isStructPath(current, f)) {
        throw new InvalidArgumentException("cannot drop '" + path + "': it is part of a list or map, not a column");
      }
      drop.add(f.id());
    }
    List<Field> kept = removeFields(current.fields(), drop, current);
    if (kept.isEmpty()) {
      throw new InvalidArgumentException("cannot drop every column of the table; overwrite it instead");
    }
    return Operation.Project.between(current, new Schema(kept, current.metadata()));
  }

  private static List<Field> removeFields(List<Field> fields, Set<Integer> drop, Schema schema) {
    List<Field> out = new ArrayList<>();
    for (Field f : fields) {
      if (drop.contains(f.id())) {
        continue;
      }
      if (f.isStruct()) {
        List<Field> children = removeFields(f.children(), drop, schema);
        if (children.isEmpty()) {
          throw new InvalidArgumentException(
              "cannot drop every member of struct '" + schema.pathOf(f.id()) + "'; drop the struct itself");
        }
        out.add(f.withChildren(children));
      } else {
        out.add(f);
      }
    }
    return out;
  }

  public Operation.Project rename(Schema current, String path, String newName) {
    Field f = current.findField(path).orElseThrow(() -> noColumn(path, current));
    if (newName == null || newName.isEmpty()) {
      throw new InvalidArgumentException("a column's new name must not be empty");
    }
    if (f.parentId() >= 0 && !current.field(f.parentId()).isStruct()) {
      throw new InvalidArgumentException("cannot rename '" + path + "': it is part of a list or map");
    }
    Schema next = new Schema(transform(current.fields(), f.id(), x -> x.withName(newName)), current.metadata());
    return Operation.Project.between(current, next);
  }

  /**
   * Changes nullability; making a field non-nullable first checks (by scanning) that it holds no null.
   * {@code scanField} opens a scan of {@code base}'s version projected to one field id.
   */
  public Operation.Project setNullable(Manifest base, String path, boolean nullable,
      IntFunction<ArrowReader> scanField) {
    Schema current = base.schema();
    Field f = current.findField(path).orElseThrow(() -> noColumn(path, current));
    if (!nullable && f.nullable()) {
      long nulls = countNulls(scanField, f, current);
      if (nulls > 0) {
        throw new SchemaMismatchException(
            "cannot make '" + path + "' non-nullable: it holds " + nulls + " null values at version "
                + base.version() + "; fill them first");
      }
    }
    Schema next = new Schema(transform(current.fields(), f.id(), x -> x.withNullable(nullable)), current.metadata());
    return Operation.Project.between(current, next);
  }

  private long countNulls(IntFunction<ArrowReader> scanField, Field field, Schema schema) {
    long nulls = 0;
    try (ArrowReader reader = scanField.apply(field.id())) {
      while (reader.loadNextBatch()) {
        FieldVector v = reader.getVectorSchemaRoot().getFieldVectors().get(0);
        nulls += countNullsAt(v, field, schema);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return nulls;
  }

  /** Nulls of the field inside {@code v} (which is the top-level vector of the field's ancestor chain). */
  private static long countNullsAt(FieldVector v, Field target, Schema schema) {
    List<Field> chain = new ArrayList<>();
    for (Field f = target; ; f = schema.field(f.parentId())) {
      chain.add(0, f);
      if (f.parentId() < 0) {
        break;
      }
    }
    FieldVector current = v;
    boolean[] parentNull = new boolean[v.getValueCount()];
    for (int depth = 0; depth < chain.size(); depth++) {
      if (depth > 0) {
        current = (FieldVector) ((org.apache.arrow.vector.complex.StructVector) current).getChildByOrdinal(0);
      }
      if (depth < chain.size() - 1) {
        for (int i = 0; i < parentNull.length; i++) {
          parentNull[i] |= current.isNull(i);
        }
      }
    }
    long nulls = 0;
    for (int i = 0; i < current.getValueCount(); i++) {
      // A null inside a null struct is the struct's null, not the member's.
      if (!parentNull[i] && current.isNull(i)) {
        nulls++;
      }
    }
    return nulls;
  }

  private static List<Field> transform(List<Field> fields, int id, UnaryOperator<Field> change) {
    List<Field> out = new ArrayList<>();
    for (Field f : fields) {
      if (f.id() == id) {
        out.add(change.apply(f));
      } else if (!f.children().isEmpty()) {
        out.add(f.withChildren(transform(f.children(), id, change)));
      } else {
        out.add(f);
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- helpers

  private static Schema resolveInputs(Schema schema, List<String> inputs) {
    return Projection.project(schema, inputs, null);
  }

  private static Set<Integer> fieldIds(List<String> inputs, Schema schema) {
    Set<Integer> ids = new HashSet<>();
    for (String input : inputs) {
      Field f = schema.findField(input).orElseThrow(() -> noColumn(input, schema));
      f.preorder().forEach(x -> ids.add(x.id()));
    }
    return ids;
  }

  /** True when every ancestor of the field is a struct (the field is a column or a struct member). */
  private static boolean isStructPath(Schema schema, Field f) {
    for (int parent = f.parentId(); parent >= 0; parent = schema.field(parent).parentId()) {
      if (!schema.field(parent).isStruct()) {
        return false;
      }
    }
    return true;
  }

  private static Field outermostAtomic(Schema schema, Field f) {
    Field atomic = f;
    for (Field x = f; x.parentId() >= 0; ) {
      x = schema.field(x.parentId());
      if (!x.isStruct()) {
        atomic = x;
      }
    }
    return atomic;
  }

  private static InvalidArgumentException noColumn(String path, Schema schema) {
    return new InvalidArgumentException(
        "no column '" + path + "' in the table; columns are " + schema.fields().stream().map(Field::name).toList());
  }
}
