package io.quiver.internal.ops;

import io.quiver.dataset.ColumnSchema;
import io.quiver.dataset.StagedColumnWrite;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.InvalidSchemaException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.exceptions.StaleColumnWriteException;
import io.quiver.exceptions.StoreException;
import io.quiver.internal.codec.StagedWriteCodec;
import io.quiver.internal.file.DataFileMetadata;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.FieldBacking;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.write.ArrowInput;
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
import io.quiver.store.ObjectInfo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Staged column writes: allocating the column schema, staging one fragment's values through the shared
 * {@link FragmentColumnWriter}, and preparing the commit (checking every staged file against the contract
 * it declares). The witness check itself runs in the manifest builder on every commit attempt.
 */
final public class ColumnWrites {
  private final TableIo io;
  private final BufferAllocator allocator;
  private final int rowsPerBatch;

  public ColumnWrites(TableIo io, BufferAllocator allocator, int rowsPerBatch) {
    this.io = io;
    this.allocator = allocator;
    this.rowsPerBatch = rowsPerBatch;
  }

  // ---------------------------------------------------------------- schema

  public ColumnSchema schema(Manifest base, List<org.apache.arrow.vector.types.pojo.Field> newColumns,
      Collection<Integer> targetIds, Collection<Integer> inputIds) {
    Schema current = base.schema();
    List<org.apache.arrow.vector.types.pojo.Field> columns = newColumns == null ? List.of() : newColumns;
    Set<Integer> targets = new LinkedHashSet<>(targetIds == null ? List.of() : targetIds);
    if (columns.isEmpty() && targets.isEmpty()) {
      throw new InvalidArgumentException("a column schema needs at least one new column or existing target");
    }
    for (int id : targets) {
      Field f = current.findField(id).orElseThrow(() -> new InvalidArgumentException(
          "no field with id " + id + " at version " + base.version() + "; the largest id is " + current.maxFieldId()));
      for (int parent = f.parentId(); parent >= 0; parent = current.field(parent).parentId()) {
        if (!current.field(parent).isStruct()) {
          throw new InvalidArgumentException(
              "cannot rewrite '" + current.pathOf(id) + "' on its own: it lives inside a list or map; target the"
                  + " list or map column instead");
        }
      }
    }
    FieldIdAllocator ids = new FieldIdAllocator(base.maxFieldId());
    List<Field> added = new ArrayList<>();
    for (org.apache.arrow.vector.types.pojo.Field column : columns) {
      checkNewName(column.getName(), current, added);
      added.add(Field.fromArrow(column, -1, ids));
    }
    List<Field> fields = new ArrayList<>(targets.isEmpty() ? List.of() : current.project(targets).fields());
    fields.addAll(added);
    Set<Integer> fresh = new TreeSet<>();
    added.forEach(f -> fresh.add(f.id()));
    return new ColumnSchema(io.location(), base.version(), new Schema(fields, Map.of()), fresh,
        inputs(base, inputIds));
  }

  /** The declared inputs as a projection of the snapshot (an input struct whole), or the empty schema. */
  private static Schema inputs(Manifest base, Collection<Integer> inputIds) {
    if (inputIds == null || inputIds.isEmpty()) {
      return Schema.empty();
    }
    Schema current = base.schema();
    for (Integer id : inputIds) {
      if (id == null || current.findField(id).isEmpty()) {
        throw new InvalidArgumentException(
            "no input field with id " + id + " at version " + base.version() + "; the largest id is "
                + current.maxFieldId());
      }
    }
    return current.project(inputIds);
  }

  static void checkNewName(String name, Schema current, List<Field> added) {
    if (ReservedNames.isReserved(name)) {
      throw new InvalidSchemaException(
          "column name '" + name + "' is reserved for Quiver's system columns " + ReservedNames.NAMES
              + "; choose another name");
    }
    if (current.findTopLevel(name).isPresent() || added.stream().anyMatch(f -> f.name().equals(name))) {
      throw new InvalidSchemaException(
          "cannot add column '" + name + "': a column with that name exists; choose another name, or target the"
              + " existing column for rewrite");
    }
  }

  // ---------------------------------------------------------------- staging

  public StagedColumnWrite stage(Manifest base, long fragmentId, ArrowReader batches, ColumnSchema schema) {
    if (schema == null || batches == null) {
      throw new InvalidArgumentException("the column schema and the batches must not be null");
    }
    if (!schema.tableLocation().equals(io.location())) {
      throw new InvalidArgumentException(
          "the column schema was made for table " + schema.tableLocation() + ", not " + io.location()
              + "; create it with columns().newSchema on this table");
    }
    Schema contract = schema.contract();
    checkContractCurrent(base, contract, schema.newFieldIds(), schema.readVersion(), fragmentId);
    Fragment fragment = base.fragments().stream().filter(f -> f.id() == fragmentId).findFirst()
        .orElseThrow(() -> new InvalidArgumentException(
            "no fragment " + fragmentId + " at version " + base.version() + "; fragments are "
                + base.fragments().stream().map(Fragment::id).toList()));
    List<Operation.ColumnInput> inputs = inputWitness(base, fragment, schema);
    // The one column-writing path: row count checked against physical rows, file discarded on mismatch.
    DataFile file = new FragmentColumnWriter(io.store(), allocator, rowsPerBatch, CompressionConfig.of(base.config()))
        .write(fragment, contract, ArrowInput.batches(batches), StructValidityWrites.preservedNulls(io, fragment,
            base.schema(), contract, schema.newFieldIds(), allocator));
    List<FieldBacking> witness = new ArrayList<>();
    for (int id : file.liveFieldIds()) {
      witness.add(FieldBacking.of(fragment, id));
    }
    Operation.ColumnWrite write = new Operation.ColumnWrite(fragment.id(), fragment.physicalRows(),
        fragment.files().stream().map(DataFile::path).toList(), contract, schema.newFieldIds(), file, witness,
        inputs);
    return StagedColumnWrite.decode(StagedWriteCodec.encode(io.location(), base.version(), write));
  }

  /**
   * The input witness of one fragment: every declared input field (still in the schema) with its
   * backing. The worker may have read its inputs at the column schema's version or at the staging
   * handle's; when those differ, the inputs' backing must be the same at both, or which values were read
   * is unknown.
   */
  private List<Operation.ColumnInput> inputWitness(Manifest base, Fragment fragment, ColumnSchema schema) {
    Schema current = base.schema();
    List<Operation.ColumnInput> out = new ArrayList<>();
    Optional<Fragment> atSchemaVersion = Optional.empty();
    if (!schema.inputFieldIds().isEmpty() && schema.readVersion() != base.version()) {
      Manifest then;
      try {
        then = io.load(schema.readVersion()).manifest();
      } catch (io.quiver.exceptions.VersionNotFoundException e) {
        throw new StaleColumnWriteException(fragment.id(), schema.inputs().pathOf(schema.inputFieldIds().iterator()
            .next()), "the column schema's version " + schema.readVersion() + " is no longer in the table (a cleanup"
                + " removed it), so whether its inputs equal those of this handle's version " + base.version()
                + " cannot be checked; create the ColumnSchema on the handle you stage with");
      }
      atSchemaVersion = then.fragments().stream().filter(f -> f.id() == fragment.id()).findFirst();
    }
    for (int id : schema.inputFieldIds()) {
      String declared = schema.inputs().pathOf(id);
      if (current.findField(id).isEmpty()) {
        throw new StaleColumnWriteException(fragment.id(), declared,
            "input field '" + declared + "' (id " + id + ") of the column schema of version " + schema.readVersion()
                + " is not in the schema of version " + base.version() + " (dropped); create a new ColumnSchema on"
                + " the latest version");
      }
      FieldBacking now = FieldBacking.of(fragment, id);
      if (atSchemaVersion.isPresent()) {
        Optional<String> diff = FieldBacking.of(atSchemaVersion.get(), id).difference(now);
        if (diff.isPresent()) {
          throw new StaleColumnWriteException(fragment.id(), declared,
              "input field '" + declared + "' (id " + id + ") changed in fragment " + fragment.id() + " between the"
                  + " column schema's version " + schema.readVersion() + " and this handle's version "
                  + base.version() + " (" + diff.get() + "), so which of its values were read is unknown; read"
                  + " the inputs and stage at one version (create the ColumnSchema on the handle you stage with)");
        }
      }
      out.add(new Operation.ColumnInput(current.pathOf(id), now));
    }
    return out;
  }

  /** The contract still fits this snapshot: new ids unallocated, existing fields unchanged. */
  private static void checkContractCurrent(Manifest base, Schema contract, Set<Integer> newTop, long schemaVersion,
      long fragmentId) {
    Schema current = base.schema();
    for (Field top : contract.fields()) {
      boolean fresh = newTop.contains(top.id());
      for (Field node : top.preorder()) {
        Optional<Field> now = current.findField(node.id());
        if (fresh && (node.id() <= base.maxFieldId())) {
          throw new StaleColumnWriteException(fragmentId, top.name(),
              "new column '" + top.name() + "' has field id " + node.id() + " from the schema of version "
                  + schemaVersion + ", but version " + base.version() + " has allocated ids up to "
                  + base.maxFieldId() + "; create a new ColumnSchema on the latest version");
        }
        if (!fresh && (now.isEmpty() || !sameNode(now.get(), node))) {
          throw new StaleColumnWriteException(fragmentId, contract.pathOf(node.id()),
              "field '" + contract.pathOf(node.id()) + "' (id " + node.id() + ") is " + node + " in the column schema"
                  + " of version " + schemaVersion + " but " + now.map(Object::toString).orElse("absent")
                  + " at version " + base.version() + "; create a new ColumnSchema on the latest version");
        }
      }
    }
  }

  private static boolean sameNode(Field a, Field b) {
    return a.isStruct() && b.isStruct()
        ? a.id() == b.id() && a.parentId() == b.parentId() && a.name().equals(b.name()) && a.nullable() == b.nullable()
            && a.metadata().equals(b.metadata())
        : a.equals(b);
  }

  // ---------------------------------------------------------------- commit

  /**
   * Checks every staged write against this table and its own file, and builds the operation.
   *
   * @throws InvalidArgumentException for writes of another table or none at all
   * @throws SchemaMismatchException when a staged file does not hold what its write declares
   */
  public Operation.WriteColumns prepare(List<StagedColumnWrite> staged) {
    if (staged == null || staged.isEmpty()) {
      throw new InvalidArgumentException("no staged column writes to commit");
    }
    List<Operation.ColumnWrite> writes = new ArrayList<>();
    for (StagedColumnWrite s : staged) {
      if (s == null) {
        throw new InvalidArgumentException("a staged column write is null");
      }
      if (!s.tableLocation().equals(io.location())) {
        throw new InvalidArgumentException(
            "staged write for fragment " + s.fragmentId() + " belongs to table " + s.tableLocation() + ", not "
                + io.location() + "; commit it on its own table");
      }
      Operation.ColumnWrite write = StagedWriteCodec.decode(s.encode()).write();
      checkFile(write);
      writes.add(write);
    }
    return new Operation.WriteColumns(writes);
  }

  /** The staged file exists with its recorded size, and its footer holds exactly the declared contract. */
  private void checkFile(Operation.ColumnWrite w) {
    DataFile file = w.file();
    String path = file.path();
    List<Integer> atomic = w.contract().atomicFields().stream().map(Field::id).toList();
    List<Integer> columns = IntStream.range(0, atomic.size()).boxed().toList();
    if (!file.fieldIds().equals(atomic) || !file.columnIndices().equals(columns)) {
      throw new SchemaMismatchException(
          "staged file " + path + " for fragment " + w.fragmentId() + " records field ids " + file.fieldIds()
              + " at columns " + file.columnIndices() + ", but its declared contract stores " + atomic + " at "
              + columns + "; nothing was committed. Stage the column again.");
    }
    Optional<ObjectInfo> info = io.store().head(path);
    if (info.isEmpty() || info.get().size() != file.sizeBytes()) {
      throw new SchemaMismatchException(
          "staged file " + path + " for fragment " + w.fragmentId() + " is "
              + info.map(i -> i.size() + " bytes").orElse("missing") + " but the staged write records "
              + file.sizeBytes() + " bytes (removed by a cleanup, or replaced); nothing was committed. Stage the"
              + " column again.");
    }
    Schema footer;
    DataFileMetadata md;
    try {
      md = io.dataFiles().metadata(path);
      footer = Schema.fromArrowWithIds(md.schema());
    } catch (QuiverException | IllegalArgumentException e) {
      throw new SchemaMismatchException(
          "staged file " + path + " for fragment " + w.fragmentId() + " has no readable footer with field ids ("
              + e.getMessage() + "); nothing was committed. Stage the column again.");
    }
    if (!footer.sameStructure(w.contract())) {
      throw new SchemaMismatchException(
          "staged file " + path + " for fragment " + w.fragmentId() + " stores " + footer.fields()
              + " but its write declares " + w.contract().fields() + "; the bytes are never reinterpreted, nothing"
              + " was committed. Stage the column again with the schema it was computed for.");
    }
    if (md.rowCount() != w.physicalRows()) {
      throw new SchemaMismatchException(
          "staged file " + path + " holds " + md.rowCount() + " rows but fragment " + w.fragmentId() + " has "
              + w.physicalRows() + " physical rows; nothing was committed");
    }
  }
}
