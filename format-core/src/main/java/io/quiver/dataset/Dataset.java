package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.exceptions.TableAlreadyExistsException;
import io.quiver.internal.codec.MetadataCodec.ManifestAndTransaction;
import io.quiver.internal.maintenance.Cleaner;
import io.quiver.internal.maintenance.Validator;
import io.quiver.internal.ops.Deleter;
import io.quiver.internal.ops.NothingToCommit;
import io.quiver.internal.ops.Updater;
import io.quiver.internal.read.Projection;
import io.quiver.internal.read.RowIdIndex;
import io.quiver.internal.read.Take;
import io.quiver.internal.table.CommitLoop;
import io.quiver.internal.table.Mutation;
import io.quiver.internal.table.TableConfig;
import io.quiver.internal.write.CompressionConfig;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.table.TagStore;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.Transaction;
import io.quiver.internal.txn.TransactionRebaser;
import io.quiver.internal.write.FragmentWriter;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.predicate.Predicate;
import io.quiver.schema.Field;
import io.quiver.schema.FieldIdAllocator;
import io.quiver.schema.Schema;
import io.quiver.store.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * A handle on a Quiver table at one version.
 *
 * <p>Reads ({@link #newScan()}, {@link #take}, {@link #countRows()}) see exactly the handle's
 * version. Writes ({@link #append}, {@link #overwrite}, {@link #delete}, {@link #update}, ...) commit a new
 * version computed from the handle's version and move the handle to it; concurrent writers through other
 * handles or processes are safe: each commit either lands as its own version or fails with a typed {@link
 * io.quiver.exceptions.CommitConflictException}, and nothing is ever half-committed. A change that fails
 * before it is published removes the files it wrote; one whose outcome is unknown ({@link
 * io.quiver.exceptions.CommitStateUnknownException}) keeps them, since the version may reference them.
 *
 * <p>Column changes are under {@link #columns()}, commits of workers' results under {@link #distributed()},
 * tags under {@link #tags()}.
 *
 * <p>Handles are cheap; {@link #checkout(long)} gives another handle on the same table that shares
 * this one's store and allocator (close it before this one). {@link #close()} on a handle from
 * {@link #open} or {@link #create} closes the store and, if the handle created it, its allocator.
 */
public final class Dataset implements AutoCloseable {
  private final String uri;
  private final TableIo io;
  private final DatasetOptions options;
  private final BufferAllocator allocator;
  private final boolean ownsResources;
  private final boolean ownsAllocator;
  private volatile Manifest manifest;
  /** The row-id index of a version, built on the first take by row id at it. */
  private volatile RowIdsAt rowIdIndex;

  private record RowIdsAt(Manifest manifest, RowIdIndex index) {}

  private Dataset(String uri, TableIo io, DatasetOptions options, BufferAllocator allocator, boolean ownsResources,
      boolean ownsAllocator, Manifest manifest) {
    this.uri = uri;
    this.io = io;
    this.options = options;
    this.allocator = allocator;
    this.ownsResources = ownsResources;
    this.ownsAllocator = ownsAllocator;
    this.manifest = manifest;
  }

  // ---------------------------------------------------------------- opening

  /** Opens the latest version of the table at {@code uri} with default options. */
  public static Dataset open(String uri) {
    return open(uri, DatasetOptions.defaults());
  }

  /**
   * Opens the latest version of the table at {@code uri} (any registered scheme, or a plain path).
   *
   * @throws io.quiver.exceptions.TableNotFoundException if no table exists there
   */
  public static Dataset open(String uri, DatasetOptions options) {
    return withStore(uri, options, (io, allocator, ownsAllocator) -> {
      Manifest latest = io.loadLatest().manifest();
      return new Dataset(uri, io, options, allocator, true, ownsAllocator, latest);
    });
  }

  /**
   * Opens {@code version} of the table at {@code uri}: a handle that owns its store and allocator like
   * {@link #open(String, DatasetOptions)}, for a worker that reads or stages at a version the driver pinned
   * (unlike {@link #checkout(long)}, it does not depend on another handle staying open).
   *
   * @throws io.quiver.exceptions.TableNotFoundException if no table exists there
   * @throws io.quiver.exceptions.VersionNotFoundException if {@code version} was never committed or was
   *     removed by a cleanup
   */
  public static Dataset open(String uri, DatasetOptions options, long version) {
    return withStore(uri, options, (io, allocator, ownsAllocator) -> {
      Manifest at = io.load(version).manifest();
      return new Dataset(uri, io, options, allocator, true, ownsAllocator, at);
    });
  }

  /**
   * Creates a table with the given Arrow schema and initial rows (none for an empty table), as version 1.
   * The rows are read once, batch by batch; the caller keeps ownership of the batches.
   *
   * @throws TableAlreadyExistsException if a table already exists at {@code uri}
   * @throws io.quiver.exceptions.InvalidSchemaException if the schema uses reserved names or
   *     unsupported types
   * @throws io.quiver.exceptions.SchemaMismatchException if a batch does not match the schema
   */
  public static Dataset create(String uri, org.apache.arrow.vector.types.pojo.Schema schema,
      Iterable<VectorSchemaRoot> batches, DatasetOptions options) {
    return create(uri, schema, batches, options, Map.of());
  }

  /**
   * {@link #create(String, org.apache.arrow.vector.types.pojo.Schema, Iterable, DatasetOptions)} with an
   * initial table configuration, which already applies to the initial rows: e.g. {@code write.compression =
   * none} writes them uncompressed (docs/format.md §5.1 lists the write settings).
   *
   * @throws io.quiver.exceptions.InvalidArgumentException for a null or empty key, a null value, or a value
   *     a known key cannot hold
   */
  public static Dataset create(String uri, org.apache.arrow.vector.types.pojo.Schema schema,
      Iterable<VectorSchemaRoot> batches, DatasetOptions options, Map<String, String> config) {
    Map<String, String> initialConfig = TableConfig.update(config, Set.of()).upserts();
    Schema tableSchema = Schema.fromArrow(schema, new FieldIdAllocator(0));
    return withStore(uri, options, (io, allocator, ownsAllocator) -> {
      Optional<Long> existing = io.commitStore().latestVersion();
      if (existing.isPresent()) {
        throw new TableAlreadyExistsException(
            "a table already exists at " + io.location() + " (latest version " + existing.get()
                + "); open it, or overwrite it");
      }
      CommitLoop.Committed committed;
      try {
        committed = Mutation.run(io, options.clock(), m -> {
          List<Fragment> fragments =
              writer(m.io(), tableSchema, initialConfig, allocator, options).withoutRowsDigest()
                  .write(batches.iterator());
          return m.commit(Optional.empty(), 0, new Operation.Overwrite(tableSchema, fragments, initialConfig),
              options.commitOptions(), Optional.empty(), TransactionRebaser.NONE);
        });
      } catch (RetryableConflictException e) {
        throw new TableAlreadyExistsException(
            "another writer created a table at " + io.location() + " first; open it instead");
      }
      return new Dataset(uri, io, options, allocator, true, ownsAllocator, committed.manifest());
    });
  }

  private interface Opener {
    Dataset open(TableIo io, BufferAllocator allocator, boolean ownsAllocator);
  }

  private static Dataset withStore(String uri, DatasetOptions options, Opener opener) {
    ObjectStore store = options.registry().open(uri, options.storeOptions());
    BufferAllocator allocator = options.allocator().orElse(null);
    boolean ownsAllocator = allocator == null;
    try {
      if (ownsAllocator) {
        allocator = new RootAllocator();
      }
      TableIo io = options.tableIo(store);
      return opener.open(io, allocator, ownsAllocator);
    } catch (RuntimeException e) {
      if (ownsAllocator && allocator != null) {
        allocator.close();
      }
      store.close();
      throw e;
    }
  }

  // ---------------------------------------------------------------- versions

  /** A handle on {@code version} of this table, sharing this handle's store and allocator. */
  public Dataset checkout(long version) {
    Manifest at = io.load(version).manifest();
    return new Dataset(uri, io, options, allocator, false, false, at);
  }

  /**
   * A handle on the version a tag names, sharing this handle's store and allocator.
   *
   * @throws io.quiver.exceptions.TagNotFoundException if no tag has that name
   * @throws io.quiver.exceptions.InvalidArgumentException if the name is not a valid tag name
   */
  public Dataset checkout(String tag) {
    return checkout(tags().version(tag));
  }

  /** A handle on the newest version committed by anyone, sharing this handle's store and allocator. */
  public Dataset checkoutLatest() {
    return new Dataset(uri, io, options, allocator, false, false, io.loadLatest().manifest());
  }

  /** The newest committed version, whoever committed it (one listing call). */
  public long latestVersion() {
    return io.loadLatest().manifest().version();
  }

  /** Every committed version still present, newest first. Reads each manifest (cached). */
  public List<VersionInfo> versions() {
    List<VersionInfo> out = new ArrayList<>();
    for (long v : io.commitStore().listVersions(Integer.MAX_VALUE)) {
      io.tryLoad(v).ifPresent(loaded -> out.add(versionInfo(loaded)));
    }
    return out;
  }

  /**
   * What was committed at {@code version}: its operation, timestamp, transaction and counts, as {@link
   * #versions()} lists it, from that one version's manifest (cached) — no listing.
   *
   * @throws io.quiver.exceptions.VersionNotFoundException if {@code version} was never committed or was
   *     removed by a cleanup
   */
  public VersionInfo versionInfo(long version) {
    return versionInfo(io.load(version));
  }

  private static VersionInfo versionInfo(ManifestAndTransaction loaded) {
    Manifest m = loaded.manifest();
    Transaction t = loaded.transaction();
    return new VersionInfo(
        m.version(), m.timestamp(), t.operation().name(), t.uuid(), t.readVersion(), t.properties(),
        m.liveRows(), m.fragments().size());
  }

  // ---------------------------------------------------------------- reading

  /** The version this handle reads. */
  public long version() {
    return manifest.version();
  }

  /** The table schema at this handle's version, with field ids. */
  public Schema schema() {
    return manifest.schema();
  }

  /** The manifest at this handle's version. */
  public Manifest manifest() {
    return manifest;
  }

  /** The location this handle was opened with. */
  public String uri() {
    return uri;
  }

  /** Rows visible at this version, from metadata alone (no data file is read). */
  public long countRows() {
    return manifest.liveRows();
  }

  /** Starts building a scan of this version. */
  public Scanner newScan() {
    return new Scanner(io, manifest, allocator, uri);
  }

  /**
   * Reads the rows at the given addresses (fragment id << 32 | offset), in the order given, with the
   * given columns (all when empty). The caller closes the result.
   *
   * @throws io.quiver.exceptions.NotFoundException if an address names no row or a deleted row
   */
  public VectorSchemaRoot take(long[] rowAddresses, List<String> columns) {
    return take(rowAddresses, columns, 1);
  }

  /**
   * {@link #take(long[], List)} reading up to {@code threads} data files at once on threads of the take's
   * own, which end before it returns. The default, 1, reads on the calling thread, as an embedder that
   * brings its own parallelism wants; a loader taking rows spread over many fragments from one thread gets
   * the machine's cores with more (docs/scan-planning.md, "Take").
   *
   * @throws InvalidArgumentException unless {@code 1 <= threads <= 256}
   */
  public VectorSchemaRoot take(long[] rowAddresses, List<String> columns, int threads) {
    if (threads < 1 || threads > 256) {
      throw new InvalidArgumentException("take threads must be between 1 and 256, got " + threads
          + "; use 1 to read on the calling thread, or about the number of cores");
    }
    Schema projected = Projection.project(manifest.schema(), columns.isEmpty() ? null : columns, null);
    return Take.take(io, manifest, projected, rowAddresses, allocator, threads);
  }

  /**
   * Reads the rows with the given stable row ids (a table with row ids, docs/format.md section 14), in the order
   * given, with the given columns (all when empty). An id keeps naming its row through updates, merge-inserts and
   * compaction, where a row address does not. The caller closes the result.
   *
   * @throws InvalidArgumentException if the table has no row ids
   * @throws io.quiver.exceptions.NotFoundException if an id names no live row of this version
   */
  public VectorSchemaRoot takeByRowIds(long[] rowIds, List<String> columns) {
    if (!manifest.hasRowIds()) {
      throw new InvalidArgumentException("version " + manifest.version() + " of " + uri + " has no stable row ids;"
          + " give the table row ids with the table configuration 'row-ids' = 'true' (Dataset.updateConfig), or"
          + " take rows by address with Dataset.take");
    }
    Manifest at = manifest;
    RowIdsAt cached = rowIdIndex;
    if (cached == null || cached.manifest() != at) {
      cached = new RowIdsAt(at, RowIdIndex.of(io, at));
      rowIdIndex = cached;
    }
    long[] addresses = cached.index().addresses(rowIds);
    Schema projected = Projection.project(at.schema(), columns.isEmpty() ? null : columns, null);
    return Take.take(io, at, projected, addresses, allocator, 1);
  }

  /**
   * The change feed of versions {@code fromVersion + 1} to {@code toVersion} of a table with stable row ids: every
   * row each of them inserted, deleted or updated, with its values (docs/format.md section 14.3). Replaying it on
   * version {@code fromVersion}'s rows by {@code _rowid} gives version {@code toVersion}'s. Compactions and other
   * rewrites change no row and produce no change.
   *
   * @throws InvalidArgumentException unless {@code 1 <= fromVersion < toVersion}
   */
  public ChangeScan changes(long fromVersion, long toVersion) {
    return new ChangeScan(this, fromVersion, toVersion);
  }

  // ---------------------------------------------------------------- writing

  /** {@link #append(Iterable, CommitOptions)} with the handle's {@link DatasetOptions#commitOptions()}. */
  public long append(Iterable<VectorSchemaRoot> batches) {
    return append(batches, options.commitOptions());
  }

  /**
   * Appends rows and moves this handle to the committed version. The rows are read once, batch by batch;
   * the caller keeps ownership of the batches. With an {@link CommitOptions#withIdempotenceKey idempotence
   * key}, an append of the same rows already committed under the key returns that commit's version and
   * publishes nothing.
   *
   * @return the committed version (or the version found under the idempotence key)
   * @throws io.quiver.exceptions.SchemaMismatchException if a batch does not match the table schema
   */
  public long append(Iterable<VectorSchemaRoot> batches, CommitOptions commitOptions) {
    Manifest base = manifest;
    boolean keyed = commitOptions.idempotenceKey().isPresent();
    return moveTo(mutate(m -> {
      FragmentWriter writer = writer(m.io(), base.schema(), base.config(), allocator, options);
      List<Fragment> fragments = (keyed ? writer : writer.withoutRowsDigest()).write(batches.iterator());
      // The rows' digest, not the files': a retry that rewrote the same rows is the same commit.
      return m.commit(Optional.of(base), base.version(), new Operation.Append(fragments), commitOptions,
          keyed ? Optional.of(writer.rows().hex("append", base.schema())) : Optional.empty(), TransactionRebaser.NONE);
    }));
  }

  /**
   * Replaces every row (and the schema, if {@code schema} differs from the current one) and moves this
   * handle to the committed version. Fails with a retryable conflict if anything was committed after
   * this handle's version: an overwrite never silently discards a concurrent commit.
   */
  public long overwrite(org.apache.arrow.vector.types.pojo.Schema schema, Iterable<VectorSchemaRoot> batches) {
    Manifest base = manifest;
    Schema tableSchema =
        schema.equals(base.schema().toArrow())
            ? base.schema()
            : Schema.fromArrow(schema, new FieldIdAllocator(base.maxFieldId()));
    CommitOptions commitOptions = options.commitOptions();
    boolean keyed = commitOptions.idempotenceKey().isPresent();
    return moveTo(mutate(m -> {
      FragmentWriter writer = writer(m.io(), tableSchema, base.config(), allocator, options);
      List<Fragment> fragments = (keyed ? writer : writer.withoutRowsDigest()).write(batches.iterator());
      return m.commit(Optional.of(base), base.version(), new Operation.Overwrite(tableSchema, fragments, Map.of()),
          commitOptions, keyed ? Optional.of(writer.rows().hex("overwrite", tableSchema)) : Optional.empty(),
          TransactionRebaser.NONE);
    }));
  }

  // ---------------------------------------------------------------- deletes

  /**
   * Deletes the rows for which {@code predicate} is true (a row where it is unknown, because a value it
   * compares is null, is kept) and moves this handle to the committed version. Only the predicate's
   * columns are read. A concurrent delete of other rows, even in the same fragment, is merged in; a
   * concurrent change to a column the predicate read fails the delete with a retryable conflict.
   *
   * <p>When no live row matches, nothing is committed: the result holds this handle's version and 0 rows.
   * That answer is still checked against the versions committed since this handle's version, as the delete
   * would have been (docs/conflict-matrix.md): if one of them dropped a column the predicate read, or
   * overwrote or restored the table, the empty delete fails with the same conflict.
   *
   * @throws io.quiver.exceptions.InvalidArgumentException if the predicate names a column the table lacks
   *     or compares a column with a literal of another type
   * @throws io.quiver.exceptions.CommitConflictException if a concurrent commit prevents the delete, even
   *     one that matched nothing
   */
  public DeleteResult delete(Predicate predicate) {
    if (predicate == null) {
      throw new InvalidArgumentException("predicate must not be null; use Predicate.TRUE to delete every row");
    }
    Manifest base = manifest;
    return delete(base, deleter -> deleter.matching(predicate), predicate.fieldIds(base.schema()),
        predicate.toString());
  }

  /**
   * Deletes the rows at the given addresses (fragment id << 32 | offset, as scans with {@code
   * withRowAddress} return them) and moves this handle to the committed version. Addresses of rows already
   * deleted are accepted and not counted. When every address names a deleted row, nothing is committed:
   * the result holds this handle's version and 0 rows (checked against the versions committed since, like
   * an empty {@link #delete(Predicate) delete by predicate}).
   *
   * @throws io.quiver.exceptions.NotFoundException if an address names a fragment or offset this version
   *     does not have (nothing is deleted then)
   */
  public DeleteResult delete(long[] rowAddresses) {
    return delete(manifest, deleter -> deleter.addressed(rowAddresses), Set.of(), "");
  }

  private DeleteResult delete(Manifest base, Function<Deleter, Map<Long, RoaringBitmap>> rows,
      Set<Integer> readFieldIds, String predicate) {
    return mutate(m -> {
      Deleter deleter = new Deleter(m.io(), base, allocator);
      Optional<Operation.Delete> op = deleter.write(rows.apply(deleter), readFieldIds, predicate);
      if (op.isEmpty()) {
        // Nothing to delete at the read version: still checked against what was committed since, as the
        // delete would have been (a dropped predicate column makes even an empty delete retryable).
        NothingToCommit.check(m.io(), base, new Operation.Delete(List.of(), readFieldIds, predicate));
        return new DeleteResult(base.version(), 0);
      }
      CommitLoop.Committed committed = m.commit(Optional.of(base), base.version(), op.get(),
          options.commitOptions(), Optional.empty(), deleter.rebaser());
      // The committed transaction may be a rebased one: count from what was actually committed, which
      // the commit loop hands back (no read after the commit point, which could fail and misreport it).
      Transaction landed = committed.transaction();
      long deleted = landed.operation() instanceof Operation.Delete d ? Deleter.newlyDeleted(d) : 0;
      manifest = committed.manifest();
      return new DeleteResult(committed.manifest().version(), deleted);
    });
  }

  // ---------------------------------------------------------------- updates (overlays)

  /**
   * Sets columns of the rows at the given addresses to literal values and moves this handle to the
   * committed version. Each fragment with updated rows gets one overlay holding only the new cells;
   * nothing else is rewritten, and row addresses stay valid.
   *
   * <p>An update never changes where a struct is null (docs/format.md §5): setting {@code s.x} in a row
   * whose {@code s} is null stores the value under the null struct, and every read keeps it hidden. To
   * make a struct valid or null, write the struct whole ({@link DatasetColumns#replace} or a staged write
   * targeting {@code "s"}).
   *
   * @param newValues column (top-level name or dotted path to a struct member, e.g. {@code "s.x"}) → new
   *     value; a value may be null for a nullable column. Java types are converted exactly, as for
   *     predicate literals (an Integer into an int64 column, a String into utf8, ...)
   * @return the committed version and the number of rows updated (duplicate addresses count once)
   * @throws io.quiver.exceptions.NotFoundException if an address names no row or a deleted row
   * @throws io.quiver.exceptions.InvalidArgumentException for an unknown column, a struct, list member or
   *     a value that does not fit the column's type
   * @throws io.quiver.exceptions.SchemaMismatchException when setting a non-nullable column to null
   * @throws io.quiver.exceptions.RetryableConflictException if a concurrent commit changed one of these
   *     columns in one of these fragments, or compacted one of them
   */
  public UpdateResult update(long[] rowAddresses, Map<String, Object> newValues) {
    Manifest base = manifest;
    return mutate(m -> {
      Updater updater = new Updater(m.io(), base, allocator, options.rowsPerBatch());
      List<Field> targets = updater.targets(newValues == null ? null : new ArrayList<>(newValues.keySet()));
      Updater.Matcher matcher = updater.addresses(rowAddresses);
      try (Updater.LiteralValues literals = literals(updater, targets, newValues)) {
        return update(m, base, targets, Set.of(), updater.run(matcher, targets, literals, Set.of()));
      }
    });
  }

  /**
   * Sets columns of every live row for which {@code where} is true (unknown is not true) to literal
   * values and moves this handle to the committed version. Only the predicate's columns and the updated
   * columns are read. See {@link #update(long[], Map)} for values, errors and what is written; when no
   * row matches, nothing is committed and the result holds this handle's version and 0 rows, after the
   * same check as an empty {@link #delete(Predicate) delete}: a column the predicate
   * read or one being set dropped by a concurrent commit (or an overwrite or restore) is a conflict.
   *
   * @throws io.quiver.exceptions.RetryableConflictException if a concurrent commit changed a column the
   *     predicate read or one being set, in a fragment this update touches, or compacted such a fragment;
   *     or dropped one of these columns (even when no row matched)
   */
  public UpdateResult update(Predicate where, Map<String, Object> newValues) {
    Manifest base = manifest;
    return mutate(m -> {
      Updater updater = new Updater(m.io(), base, allocator, options.rowsPerBatch());
      List<Field> targets = updater.targets(newValues == null ? null : new ArrayList<>(newValues.keySet()));
      Updater.Matcher matcher = updater.matching(where);
      Set<Integer> read = matcher.fieldIds();
      try (Updater.LiteralValues literals = literals(updater, targets, newValues)) {
        return update(m, base, targets, read, updater.run(matcher, targets, literals, read));
      }
    });
  }

  /**
   * Sets {@code outputColumns} of every live row for which {@code where} is true to values computed by
   * {@code fn} from the rows' current values of {@code inputColumns} (overlays merged), and moves this
   * handle to the committed version. {@code fn} is called once per batch of matched rows; see {@link
   * UpdateFunction} for the shape of its input and output. Struct validity is never changed (see {@link
   * #update(long[], Map)}). When no row matches, nothing is committed (after the check an empty {@link
   * #update(Predicate, Map) update} gets; input columns count as read).
   *
   * @throws io.quiver.exceptions.SchemaMismatchException if {@code fn} returns other columns or types
   *     than the output columns', or a null for a non-nullable column (nothing is committed)
   * @throws io.quiver.exceptions.InvalidArgumentException if {@code fn} returns another number of rows,
   *     or a column name is unknown, a struct, or inside a list or map
   * @throws io.quiver.exceptions.RetryableConflictException if a concurrent commit changed a column read
   *     (predicate or input) or set, in a fragment this update touches, or compacted such a fragment
   */
  public UpdateResult update(Predicate where, List<String> inputColumns, List<String> outputColumns,
      UpdateFunction fn) {
    if (fn == null) {
      throw new InvalidArgumentException("the update function must not be null");
    }
    Manifest base = manifest;
    return mutate(m -> {
      Updater updater = new Updater(m.io(), base, allocator, options.rowsPerBatch());
      List<Field> targets = updater.targets(outputColumns);
      Updater.Matcher matcher = updater.matching(where);
      Updater.Values values = updater.computed(inputColumns, targets, fn);
      Set<Integer> read = new TreeSet<>(matcher.fieldIds());
      read.addAll(values.inputFieldIds());
      return update(m, base, targets, read, updater.run(matcher, targets, values, read));
    });
  }

  /** The literal values of {@code newValues}, in the order of the targets (the map's key order). */
  private static Updater.LiteralValues literals(Updater updater, List<Field> targets, Map<String, Object> newValues) {
    List<Object> values = new ArrayList<>();
    newValues.keySet().forEach(c -> values.add(newValues.get(c)));
    return (Updater.LiteralValues) updater.literals(targets, values);
  }

  private UpdateResult update(Mutation m, Manifest base, List<Field> targets, Set<Integer> read,
      Updater.Prepared prepared) {
    if (prepared.op() == null) {
      // Nothing matched at the read version: still checked against what was committed since, as the
      // update would have been. With no overlay it writes no file, so the columns it sets count as used
      // (read) here: a concurrent drop of one of them, like a drop of a predicate column, is a conflict.
      Set<Integer> used = new TreeSet<>(read);
      targets.forEach(t -> used.add(t.id()));
      NothingToCommit.check(m.io(), base, new Operation.Update(List.of(), used));
      return new UpdateResult(base.version(), 0);
    }
    return new UpdateResult(moveTo(m.commit(base, prepared.op(), options.commitOptions())), prepared.rows());
  }

  // ---------------------------------------------------------------- merge-insert (upsert by key)

  /**
   * A merge-insert (upsert) on the given key columns (top-level names or dotted paths to struct members, as
   * {@link #update(Predicate, Map)} takes them): set its clauses and {@link MergeInsert#execute execute} it.
   * See {@link MergeInsert} and docs/merge-insert.md.
   *
   * @throws InvalidArgumentException if no key is given, or a key is unknown, repeated, a struct, inside a
   *     list or map, or of a type that cannot be a key (floating point)
   */
  public MergeInsert mergeInsert(String... keyColumns) {
    if (keyColumns == null) {
      throw new InvalidArgumentException("key columns must not be null");
    }
    return new MergeInsert(this, List.of(keyColumns));
  }

  // ---------------------------------------------------------------- compaction, restore, table configuration

  /**
   * Rewrites the fragments that qualify (small ones, ones with deleted rows or with overlays; see {@link
   * CompactionOptions}) into new fragments of up to the target size, with deletions applied and overlays
   * merged, and moves this handle to the committed version. Values are unchanged; the rewritten rows get
   * new row addresses (their old addresses no longer resolve at the new version). Older versions still
   * read the old files. When nothing qualifies, nothing is committed and the result holds this handle's
   * version and zeros. Runs {@link #compaction()}'s plan, every task and the commit in this process; the
   * files it wrote are deleted when the commit fails.
   *
   * @throws InvalidArgumentException if {@code compactionOptions} is null
   * @throws io.quiver.exceptions.RetryableConflictException if a concurrent commit deleted, updated or
   *     rewrote rows of a fragment being compacted (the compaction would undo it), added columns, or the
   *     compacted fragments are gone; nothing is committed
   */
  public CompactionResult compact(CompactionOptions compactionOptions) {
    DistributedCompaction compaction = compaction();
    CompactionPlan plan = compaction.plan(compactionOptions);
    if (plan.isEmpty()) {
      return new CompactionResult(plan.version(), 0, 0, 0);
    }
    // The distributed path in one process: every task executed here, through the mutation's io (so a
    // failed commit deletes the files), then one commit.
    return mutate(m -> {
      List<CompactedGroup> groups = new ArrayList<>();
      for (CompactionTask task : plan.tasks()) {
        groups.add(task.execute(m.io(), plan.manifest(), allocator, options.rowsPerBatch()));
      }
      return compaction.commit(m, plan, compaction.check(plan, groups));
    });
  }

  /**
   * Compaction split across processes: plan here at this handle's version, execute each {@link
   * CompactionTask} on a worker, commit the {@link CompactedGroup}s here as one version (see {@link
   * DistributedCompaction}). {@link #compact} runs the same path in this process.
   */
  public DistributedCompaction compaction() {
    return new DistributedCompaction(this);
  }

  /**
   * Commits a new version whose schema, rows and configuration are those of {@code version}, and moves this
   * handle to it. Versions in between stay in the history. Fails with a retryable conflict if anything was
   * committed after this handle's version: a restore never silently discards a concurrent commit.
   *
   * @throws io.quiver.exceptions.VersionNotFoundException if {@code version} does not exist
   */
  public long restore(long version) {
    Manifest base = manifest;
    Manifest old = io.load(version).manifest();
    return commit(base, new Operation.Restore(old.version(), old.schema(), old.fragments(), old.config()));
  }

  /** The table configuration at this handle's version. */
  public Map<String, String> config() {
    return manifest.config();
  }

  /**
   * Sets {@code upserts} and removes {@code deletes} in the table configuration and moves this handle to the
   * committed version. Concurrent updates of other keys both land; a concurrent update of one of the same
   * keys fails this one with a retryable conflict. An update with no key commits nothing and returns this
   * handle's version.
   *
   * @throws io.quiver.exceptions.InvalidArgumentException for a null or empty key, a null value, or a key both
   *     set and removed
   */
  public long updateConfig(Map<String, String> upserts, Set<String> deletes) {
    Operation.UpdateConfig op = TableConfig.update(upserts, deletes);
    if (op.keys().isEmpty()) {
      return manifest.version();
    }
    return commit(manifest, op);
  }

  // ---------------------------------------------------------------- columns, distributed writes, tags

  /**
   * Column changes at this handle's version: adding (all-null or computed), replacing, dropping, renaming
   * and changing nullability, and staged column writes computed by distributed workers. Each commit moves
   * this handle.
   */
  public DatasetColumns columns() {
    return new DatasetColumns(this);
  }

  /**
   * Distributed writes: worker-side writers bound to this handle's version, the commit of their results as
   * one transaction (exactly once under an idempotence key or application sequence), and the lookups a
   * driver recovers with.
   */
  public DistributedWrites distributed() {
    return new DistributedWrites(this);
  }

  /**
   * The table's tags: named references to versions, stored under {@code _refs/tags/}. Tagged versions
   * survive {@link #cleanup}.
   */
  public Tags tags() {
    return new Tags(new TagStore(io, options.clock()));
  }

  /**
   * The table's scalar indices at this handle's version (btree and bitmap, docs/format.md §13): create, list,
   * optimize and drop. Scans use them for the fragments they cover in their current state.
   */
  public Indices indices() {
    return new Indices(this);
  }

  // ---------------------------------------------------------------- maintenance: cleanup, validation

  /**
   * Removes versions older than the options' retention (never the latest version, never a tagged one),
   * then every file under {@code data/}, {@code _deletions/} and {@code _transactions/} that no remaining
   * version references and that is older than the safety window — except data files staged under a sealed,
   * uncommitted checkpoint (or an open one that staged within the window); staging records under
   * {@code _staging/} of committed or abandoned checkpoints go after the window too. Time is read from {@link
   * DatasetOptions#clock()}. Handles on removed versions (including this one, if its version is removed)
   * can no longer read them; a writer whose read version's successors were removed gets a {@link
   * io.quiver.exceptions.StaleReadVersionException} when it commits.
   *
   * @throws io.quiver.exceptions.CorruptFileException if a manifest or a tag cannot be read (nothing is deleted)
   */
  public CleanupReport cleanup(CleanupOptions cleanupOptions) {
    return new Cleaner(io, io.metadataCache(), options.clock()).run(cleanupOptions);
  }

  /**
   * Checks every invariant of this handle's version against its files (existence and sizes, data-file
   * footers, column mapping and types, row counts, deletion files, overlays, ids, that the data files of a
   * fragment that store members of one struct agree on where it is null, and that column and zone
   * statistics are valid for the values the files store). Reads metadata, the struct validity buffers of
   * fragments whose struct members span several data files, and every data and overlay file that has
   * statistics once, whole, one record batch at a time (held in this handle's allocator). Use {@link
   * ValidationReport#orThrow()} to turn problems into an exception.
   */
  public ValidationReport validate() {
    return new Validator(io, manifest, allocator).run();
  }

  // ---------------------------------------------------------------- shared with DatasetColumns and DistributedWrites

  TableIo io() {
    return io;
  }

  DatasetOptions options() {
    return options;
  }

  BufferAllocator allocator() {
    return allocator;
  }

  /** The manifest this handle reads (the base of its next change). */
  Manifest base() {
    return manifest;
  }

  /** Moves this handle forward to {@code latest} (never backwards). */
  void moveForward(Manifest latest) {
    if (latest.version() > manifest.version()) {
      manifest = latest;
    }
  }

  /**
   * Moves this handle to the version holding the commit (for a commit found under its key or sequence, the
   * latest version, which holds it; never backwards) and returns the version holding the commit.
   */
  long moveTo(CommitLoop.Committed committed) {
    if (committed.manifest().version() >= manifest.version()) {
      manifest = committed.manifest();
    }
    return committed.version();
  }

  /** Runs one change of this table through the mutation pipeline. */
  <T> T mutate(Mutation.Work<T> work) {
    return Mutation.run(io, options.clock(), work);
  }

  /** Commits {@code op}, computed at {@code base} and writing no file, and moves this handle. */
  long commit(Manifest base, Operation op) {
    return moveTo(mutate(m -> m.commit(base, op, options.commitOptions())));
  }

  /** A writer of new fragments, compressed as the table configuration {@code config} says. */
  private static FragmentWriter writer(TableIo io, Schema schema, Map<String, String> config, BufferAllocator allocator,
      DatasetOptions options) {
    return new FragmentWriter(io.store(), schema, allocator, options.rowsPerBatch(), options.maxRowsPerFragment(),
        CompressionConfig.of(config));
  }

  @Override
  public void close() {
    if (!ownsResources) {
      return;
    }
    try {
      io.store().close();
    } finally {
      if (ownsAllocator) {
        allocator.close();
      }
    }
  }

  @Override
  public String toString() {
    return "Dataset[" + io.location() + " @ version " + manifest.version() + "]";
  }
}
