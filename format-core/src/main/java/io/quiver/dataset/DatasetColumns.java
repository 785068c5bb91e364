package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.StaleColumnWriteException;
import io.quiver.internal.ops.ColumnEvolution;
import io.quiver.internal.ops.ColumnWrites;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.ColumnWriteCheck;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.TransactionRebaser;
import io.quiver.manifest.Manifest;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Column changes of a table, at the version of the {@link Dataset} handle they came from ({@link
 * Dataset#columns()}): adding columns (all-null, or computed per fragment from input columns), replacing
 * column data, dropping, renaming and changing nullability, each committed as one version that moves the
 * handle; and <em>staged column writes</em>, where distributed workers compute a column fragment by
 * fragment ({@link #newSchema}, {@link #writeFragment}) and a coordinator publishes every fragment's values
 * in one commit ({@link #commit}), refused if anything the values depend on changed since
 * (docs/column-writes.md).
 *
 * <p>A change that fails before it is published removes the data files it wrote itself. Staged files are
 * the caller's: a failed {@link #commit} leaves them in place (they are never published), and {@link
 * Dataset#cleanup} removes them once no version references them and they are older than its safety window.
 *
 * <p>Shares the handle's store and allocator: use it while the handle is open.
 */
public final class DatasetColumns {
  private final Dataset dataset;

  DatasetColumns(Dataset dataset) {
    this.dataset = dataset;
  }

  // ---------------------------------------------------------------- adding, replacing

  /**
   * Adds nullable columns that read as null in every existing row (no data is written). Field ids are
   * allocated from the table's high-water mark.
   *
   * @return the committed version
   * @throws io.quiver.exceptions.InvalidSchemaException for a reserved or existing name
   * @throws InvalidArgumentException for a non-nullable column (it needs values: use {@link #add(List, List,
   *     ColumnFunction)})
   */
  public long add(List<Field> columns) {
    return change((io, base) -> evolution(io).addColumns(base, columns, List.of(), null));
  }

  /**
   * Adds columns computed per fragment from existing columns: {@code fn} receives each chunk of {@code
   * inputColumns} (physical rows, deleted ones included) and returns the new columns' values. Every fragment
   * gets one new data file holding only the new columns; existing files are untouched.
   *
   * @return the committed version
   */
  public long add(List<Field> columns, List<String> inputColumns, ColumnFunction fn) {
    Objects.requireNonNull(fn, "fn");
    return change((io, base) -> evolution(io).addColumns(base, columns, inputColumns, fn));
  }

  /**
   * Replaces the data of existing columns (top-level columns or struct members) in every fragment with
   * values computed by {@code fn} from {@code inputColumns}, through the same per-fragment column writer as
   * {@link #add(List, List, ColumnFunction)}. The old columns are tombstoned in place and older overlays on
   * them are dropped, so the new values are authoritative. Replacing some members of a struct keeps the
   * struct's validity (the nulls of the struct in {@code fn}'s output are ignored); replacing the struct
   * whole (its name, or every member) writes {@code fn}'s validity (docs/format.md §5).
   *
   * @return the committed version
   */
  public long replace(List<String> targetColumns, List<String> inputColumns, ColumnFunction fn) {
    Objects.requireNonNull(fn, "fn");
    return change((io, base) -> evolution(io).replaceColumns(base, targetColumns, inputColumns, fn, null));
  }

  /**
   * {@link #replace(List, List, ColumnFunction)} in the given fragments only.
   *
   * @throws InvalidArgumentException if a fragment does not exist at this version
   */
  public long replace(List<String> targetColumns, List<String> inputColumns, ColumnFunction fn,
      Collection<Long> fragmentIds) {
    Objects.requireNonNull(fn, "fn");
    Objects.requireNonNull(fragmentIds, "fragmentIds");
    return change((io, base) -> evolution(io).replaceColumns(base, targetColumns, inputColumns, fn, fragmentIds));
  }

  // ---------------------------------------------------------------- metadata-only changes

  /**
   * Drops columns or struct members (metadata only; their data files are tombstoned, not rewritten).
   *
   * @return the committed version
   */
  public long drop(String... columns) {
    return change((io, base) -> evolution(io).drop(base.schema(), List.of(columns)));
  }

  /**
   * Renames a column or struct member; data files refer to fields by id, so nothing is rewritten.
   *
   * @return the committed version
   */
  public long rename(String column, String newName) {
    return change((io, base) -> evolution(io).rename(base.schema(), column, newName));
  }

  /**
   * Changes a column's nullability. Making it non-nullable first scans it at this version and fails with
   * {@link io.quiver.exceptions.SchemaMismatchException} if it holds a null.
   *
   * @return the committed version
   */
  public long setNullable(String column, boolean nullable) {
    return change((io, base) -> evolution(io).setNullable(base, column, nullable,
        id -> dataset.newScan().fieldIds(List.of(id)).open()));
  }

  // ---------------------------------------------------------------- staged column writes (distributed backfill)

  /**
   * Allocates field ids for a staged column write at this handle's version; hand the result to every
   * worker. New top-level {@code newColumns} get ids from the table's high-water mark + 1 (recursively);
   * {@code targets} are existing fields (columns or struct members, by name or dotted path) to rewrite. A
   * write targeting some members of a struct stores the struct's validity at this version, whatever the
   * workers' batches say; targeting the struct whole (its name, or every member) writes the batches'
   * validity (docs/format.md §5).
   *
   * <p>{@code inputs} are the existing fields (by name or dotted path; a struct stands for all its members)
   * the workers read to compute the values (empty when they read none). Every write staged with the schema
   * records the backing of each input field in its fragment, as it does for the fields it writes, and
   * {@link #commit} refuses it with a {@link io.quiver.exceptions.StaleColumnWriteException} naming the input
   * and the fragment when an input's cells changed since (update, replacement, staged rewrite, filled) or
   * the input was dropped. A rename or a nullability change of an input does not change its values and is
   * accepted; deleting rows is accepted too (a deleted row's staged value is never read). Inputs may also be
   * targets. Workers must read the inputs at this handle's version or at the version of the handle they
   * stage with.
   *
   * @param newColumns new top-level columns (may be empty)
   * @param targets existing fields to rewrite (may be empty)
   * @param inputs existing fields the values are computed from (may be empty)
   * @throws io.quiver.exceptions.InvalidSchemaException for a reserved system name ({@code _rowid}, ...)
   *     or a name already taken
   * @throws InvalidArgumentException for an unknown target or input, a member of a list or map, or nothing
   *     to write at all
   */
  public ColumnSchema newSchema(List<Field> newColumns, List<String> targets, List<String> inputs) {
    Manifest base = dataset.base();
    return columnWrites(dataset.io()).schema(base, newColumns, fieldIds(base, targets, "column"),
        fieldIds(base, inputs, "input column"));
  }

  private static List<Integer> fieldIds(Manifest base, List<String> paths, String what) {
    List<Integer> ids = new ArrayList<>();
    Schema schema = base.schema();
    for (String path : paths == null ? List.<String>of() : paths) {
      ids.add(schema.findField(path).orElseThrow(() -> new InvalidArgumentException(
          "no " + what + " '" + path + "' at version " + base.version() + "; columns are "
              + schema.fields().stream().map(f -> f.name()).toList())).id());
    }
    return ids;
  }

  /**
   * Streams one fragment's values of {@code schema}'s columns into a staged data file, through the same
   * column writer as {@link #add(List, List, ColumnFunction)}, and returns the immutable result bound to
   * this handle's version. {@code batches} must have {@link ColumnSchema#arrowSchema()} and hold exactly the
   * fragment's physical rows in offset order, deleted ones included. Nothing is committed; the staged file
   * is the caller's until {@link #commit} publishes it.
   *
   * @throws InvalidArgumentException if the batches hold more or fewer rows (the staged file is deleted
   *     and nothing is returned), or the fragment does not exist at this version
   * @throws io.quiver.exceptions.SchemaMismatchException if a batch does not match the schema
   * @throws io.quiver.exceptions.StaleColumnWriteException if the schema no longer fits this version
   */
  public StagedColumnWrite writeFragment(long fragmentId, ArrowReader batches, ColumnSchema schema) {
    return columnWrites(dataset.io()).stage(dataset.base(), fragmentId, batches, schema);
  }

  /**
   * Publishes staged column writes in one atomic commit and moves this handle to it: results for the same
   * fragment are all applied, new columns join the schema, and rewritten fields' old base columns and
   * overlays are tombstoned. Each staged file is checked against the contract it declares; then, on every
   * commit attempt, every write's witness, contract and new field ids are compared with the latest table.
   * The staged files of a failed commit are left in place (they are never published, and remain the
   * caller's); {@link Dataset#cleanup} removes them once they are older than its safety window.
   *
   * @return the committed version
   * @throws io.quiver.exceptions.StaleColumnWriteException if anything a write depends on changed since it
   *     was staged (names the fragment, the field and what changed): recompute and stage again
   * @throws io.quiver.exceptions.SchemaMismatchException if a staged file does not hold what it declares
   * @throws io.quiver.exceptions.InvalidSchemaException for a reserved system name
   * @throws InvalidArgumentException for no writes, writes of another table, or two values for one field
   *     of one fragment
   */
  public long commit(List<StagedColumnWrite> writes) {
    DatasetOptions options = dataset.options();
    return dataset.moveTo(dataset.mutate(m -> {
      Operation.WriteColumns op = columnWrites(m.io()).prepare(writes);
      long read = writes.stream().mapToLong(StagedColumnWrite::readVersion).min().orElseThrow();
      Manifest current = dataset.base();
      Manifest base = read == current.version() ? current : m.io().load(read).manifest();
      return m.commit(Optional.of(base), read, op, options.commitOptions(), Optional.empty(),
          TransactionRebaser.NONE);
    }));
  }

  /**
   * Checks staged column writes against the table's <em>latest</em> version (whoever committed it, not
   * this handle's version), with the checks {@link #commit} runs on every attempt, without committing
   * anything: every write {@code commit} would refuse as stale, one {@link StaleColumnWriteException} per
   * stale write, whose {@link StaleColumnWriteException#fragmentId() fragmentId()} names the write's fragment
   * and whose message says what changed (its fragment was compacted, deleted or overwritten, its physical
   * rows changed, a field it writes or reads was updated, replaced or dropped, or a targeted field's
   * contract changed). Problems of the column schema as a whole come first, once per new column, with
   * fragment id -1: a new field id allocated since, or a new column's name taken since — every write of that
   * schema is then stale; create a new {@link ColumnSchema} on the latest version and recompute them all.
   * An empty list means a {@code commit} on the latest version would accept every write (unless the table
   * changes again, or a staged file is missing or damaged, which only {@code commit} checks).
   *
   * <p>For a distributed backfill after a {@code StaleColumnWriteException}: recompute, at the latest
   * version, the fragments of the reported writes plus the latest version's fragments no write covers
   * (fragments a concurrent compaction or append produced), then commit the fresh old writes together with
   * the new ones. Coverage is not reported here: a new non-nullable column needs a write for every fragment
   * of the latest version, which the caller compares itself.
   *
   * <p>Reads one manifest (the latest); reads no staged file. The handle does not move.
   *
   * @param writes the staged writes, as they would be committed (may be empty: no problem)
   * @return the problems, schema-wide ones first, then one per stale write in the order given; empty when
   *     every write is fresh
   * @throws InvalidArgumentException for a null write, a write of another table, or writes declaring one
   *     new field id differently (stage every fragment from the same ColumnSchema)
   * @throws io.quiver.exceptions.InvalidSchemaException for two new columns of one name or a reserved name
   */
  public List<StaleColumnWriteException> check(List<StagedColumnWrite> writes) {
    if (writes == null) {
      throw new InvalidArgumentException("writes must not be null; pass the staged column writes to check");
    }
    String location = dataset.io().location();
    List<ColumnWriteCheck.StagedWrite> checked = new ArrayList<>();
    for (StagedColumnWrite w : writes) {
      if (w == null) {
        throw new InvalidArgumentException("a staged column write is null; pass only writes writeFragment returned");
      }
      if (!w.tableLocation().equals(location)) {
        throw new InvalidArgumentException(
            "staged write for fragment " + w.fragmentId() + " belongs to table " + w.tableLocation() + ", not "
                + location + "; check it on its own table");
      }
      checked.add(new ColumnWriteCheck.StagedWrite(w.write(), w.readVersion()));
    }
    if (checked.isEmpty()) {
      return List.of();
    }
    return List.copyOf(ColumnWriteCheck.check(dataset.io().loadLatest().manifest(), checked));
  }

  // ---------------------------------------------------------------- helpers

  /** Prepares an operation at the handle's version (writing through the mutation's io), commits it, moves. */
  private long change(BiFunction<TableIo, Manifest, Operation> prepare) {
    Manifest base = dataset.base();
    return dataset.moveTo(dataset.mutate(
        m -> m.commit(base, prepare.apply(m.io(), base), dataset.options().commitOptions())));
  }

  private ColumnEvolution evolution(TableIo io) {
    return new ColumnEvolution(io, dataset.allocator(), dataset.options().rowsPerBatch());
  }

  private ColumnWrites columnWrites(TableIo io) {
    return new ColumnWrites(io, dataset.allocator(), dataset.options().rowsPerBatch());
  }

  @Override
  public String toString() {
    return "DatasetColumns[" + dataset + "]";
  }
}
