package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.StoreException;
import io.quiver.exceptions.TableAlreadyExistsException;
import io.quiver.internal.codec.MetadataCodec.ManifestAndTransaction;
import io.quiver.internal.maintenance.Cleaner;
import io.quiver.internal.maintenance.Validator;
import io.quiver.internal.ops.ColumnEvolution;
import io.quiver.internal.ops.ColumnWrites;
import io.quiver.internal.ops.Compactor;
import io.quiver.internal.ops.Deleter;
import io.quiver.internal.ops.NothingToCommit;
import io.quiver.internal.ops.Updater;
import io.quiver.internal.read.Take;
import io.quiver.internal.schema.FieldIdAllocator;
import io.quiver.internal.table.CommitLoop;
import io.quiver.internal.table.DistributedCommits;
import io.quiver.internal.table.Idempotence;
import io.quiver.internal.table.TableConfig;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.Transaction;
import io.quiver.internal.txn.TransactionRebaser;
import io.quiver.internal.write.ArrowInput;
import io.quiver.internal.write.FragmentWriter;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.schema.Schema;
import io.quiver.store.ObjectStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * A handle on a Quiver table at one version.
 *
 * <p>Reads ({@link #newScan()}, {@link #take}, {@link #countRows()}) see exactly the handle's
 * version. Writes ({@link #append}, {@link #overwrite}) commit a new version computed from the handle's
 * version and move the handle to it; concurrent writers through other handles or processes are safe:
 * each commit either lands as its own version or fails with a typed {@link
 * io.quiver.exceptions.CommitConflictException}, and nothing is ever half-committed.
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

  /** Creates an empty table with the given Arrow schema. */
  public static Dataset create(String uri, org.apache.arrow.vector.types.pojo.Schema schema, DatasetOptions options) {
    return create(uri, schema, List.of(), options);
  }

  /**
   * Creates a table with the given Arrow schema and initial rows, as version 1.
   *
   * @throws TableAlreadyExistsException if a table already exists at {@code uri}
   * @throws io.quiver.exceptions.InvalidSchemaException if the schema uses reserved names or
   *     unsupported types
   * @throws io.quiver.exceptions.SchemaMismatchException if a batch does not match the schema
   */
  public static Dataset create(String uri, org.apache.arrow.vector.types.pojo.Schema schema,
      Iterable<VectorSchemaRoot> batches, DatasetOptions options) {
    return create(uri, schema, batches.iterator(), options);
  }

  /** Creates a table from everything an Arrow reader yields (the reader's schema is the table's). */
  public static Dataset create(String uri, ArrowReader reader, DatasetOptions options) {
    try {
      return create(uri, reader.getVectorSchemaRoot().getSchema(), ArrowInput.batches(reader), options);
    } catch (IOException e) {
      throw new StoreException("could not read the input Arrow stream: " + e.getMessage(), e);
    }
  }

  private static Dataset create(String uri, org.apache.arrow.vector.types.pojo.Schema arrowSchema,
      Iterator<VectorSchemaRoot> batches, DatasetOptions options) {
    Schema schema = Schema.fromArrow(arrowSchema, new FieldIdAllocator(0));
    return withStore(uri, options, (io, allocator, ownsAllocator) -> {
      Optional<Long> existing = io.commitStore().latestVersion();
      if (existing.isPresent()) {
        throw new TableAlreadyExistsException(
            "a table already exists at " + io.location() + " (latest version " + existing.get()
                + "); open it, or overwrite it");
      }
      List<Fragment> fragments = writer(io, schema, allocator, options).withoutRowsDigest().write(batches);
      Transaction txn = newTransaction(0, new Operation.Overwrite(schema, fragments, Map.of()), options);
      Manifest committed;
      try {
        committed = new CommitLoop(io, options.commitOptions(), options.clock()).commit(txn, Optional.empty());
      } catch (io.quiver.exceptions.RetryableConflictException e) {
        throw new TableAlreadyExistsException(
            "another writer created a table at " + io.location() + " first; open it instead");
      }
      return new Dataset(uri, io, options, allocator, true, ownsAllocator, committed);
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
      TableIo io = new TableIo(store, options.commitStoreFactory().apply(store), options.session());
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
      Optional<ManifestAndTransaction> loaded = io.tryLoad(v);
      if (loaded.isEmpty()) {
        continue;
      }
      Manifest m = loaded.get().manifest();
      Transaction t = loaded.get().transaction();
      out.add(new VersionInfo(
          m.version(), m.timestamp(), t.operation().name(), t.uuid(), t.readVersion(), t.properties(),
          m.liveRows(), m.fragments().size()));
    }
    return out;
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

  /** Scans every column of this version. */
  public ArrowReader scan() {
    return newScan().open();
  }

  /**
   * Reads the rows at the given addresses (fragment id << 32 | offset), in the order given, with the
   * given columns (all when empty). The caller closes the result.
   *
   * @throws io.quiver.exceptions.NotFoundException if an address names no row or a deleted row
   */
  public VectorSchemaRoot take(long[] rowAddresses, List<String> columns) {
    Schema projected = Scanner.project(manifest.schema(), columns.isEmpty() ? null : columns, null);
    return Take.take(io, manifest, projected, rowAddresses, allocator);
  }

  // ---------------------------------------------------------------- deletes, restore, table configuration

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
  public DeleteResult delete(io.quiver.predicate.Predicate predicate) {
    if (predicate == null) {
      throw new io.quiver.exceptions.InvalidArgumentException(
          "predicate must not be null; use Predicate.TRUE to delete every row");
    }
    Manifest base = manifest;
    Deleter deleter = new Deleter(io, base, allocator);
    return finishDelete(deleter, deleter.matching(predicate), predicate.fieldIds(base.schema()), predicate.toString());
  }

  /**
   * Deletes the rows at the given addresses (fragment id << 32 | offset, as scans with {@code
   * withRowAddress} return them) and moves this handle to the committed version. Addresses of rows already
   * deleted are accepted and not counted. When every address names a deleted row, nothing is committed:
   * the result holds this handle's version and 0 rows (checked against the versions committed since, like
   * an empty {@link #delete(io.quiver.predicate.Predicate) delete by predicate}).
   *
   * @throws io.quiver.exceptions.NotFoundException if an address names a fragment or offset this version
   *     does not have (nothing is deleted then)
   */
  public DeleteResult delete(long[] rowAddresses) {
    Manifest base = manifest;
    Deleter deleter = new Deleter(io, base, allocator);
    return finishDelete(deleter, deleter.addressed(rowAddresses), java.util.Set.of(), "");
  }

  private DeleteResult finishDelete(Deleter deleter, Map<Long, org.roaringbitmap.RoaringBitmap> added,
      java.util.Set<Integer> readFieldIds, String predicate) {
    Optional<Deleter.Outcome> outcome =
        deleter.commit(added, readFieldIds, predicate, options.commitOptions(), options.clock());
    if (outcome.isEmpty()) {
      return new DeleteResult(manifest.version(), 0);
    }
    manifest = outcome.get().committed();
    return new DeleteResult(manifest.version(), outcome.get().deletedRows());
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
    Transaction txn = newTransaction(base.version(),
        new Operation.Restore(old.version(), old.schema(), old.fragments(), old.config()), options);
    return commit(txn, base, options.commitOptions());
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
  public long updateConfig(Map<String, String> upserts, java.util.Set<String> deletes) {
    Operation.UpdateConfig op = TableConfig.update(upserts, deletes);
    if (op.keys().isEmpty()) {
      return manifest.version();
    }
    Manifest base = manifest;
    return commit(newTransaction(base.version(), op, options), base, options.commitOptions());
  }

  // ---------------------------------------------------------------- maintenance: tags, cleanup, validation

  /**
   * The table's tags: named references to versions, stored under {@code _refs/tags/}. Tagged versions
   * survive {@link #cleanup}.
   */
  public Tags tags() {
    return new Tags(new io.quiver.internal.table.TagStore(io, options.clock()));
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
    return new Cleaner(io, options.session().metadataCache(), options.clock()).run(cleanupOptions);
  }

  /**
   * Checks every invariant of this handle's version against its files (existence and sizes, data-file
   * footers, column mapping and types, row counts, deletion files, overlays, ids, and that the data files
   * of a fragment that store members of one struct agree on where it is null). Reads metadata, plus the
   * struct validity buffers of fragments whose struct members span several data files (one ranged read
   * of about rows / 8 bytes per such file and record batch); never member values. Use {@link
   * ValidationReport#orThrow()} to turn problems into an exception.
   */
  public ValidationReport validate() {
    return new Validator(io, manifest).run();
  }

  // ---------------------------------------------------------------- updates (overlays) and compaction

  /**
   * Sets columns of the rows at the given addresses to literal values and moves this handle to the
   * committed version. Each fragment with updated rows gets one overlay holding only the new cells;
   * nothing else is rewritten, and row addresses stay valid.
   *
   * <p>An update never changes where a struct is null (docs/format.md §5): setting {@code s.x} in a row
   * whose {@code s} is null stores the value under the null struct, and every read keeps it hidden. To
   * make a struct valid or null, write the struct whole ({@link #replaceColumns} or a staged write
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
    Updater updater = new Updater(io, base, allocator, options.rowsPerBatch());
    List<String> columns = newValues == null ? null : new ArrayList<>(newValues.keySet());
    List<io.quiver.schema.Field> targets = updater.targets(columns);
    List<Object> values = new ArrayList<>();
    columns.forEach(c -> values.add(newValues.get(c)));
    Updater.Matcher matcher = updater.addresses(rowAddresses);
    try (Updater.LiteralValues literals = (Updater.LiteralValues) updater.literals(targets, values)) {
      return commitUpdate(base, updater, targets, java.util.Set.of(),
          updater.run(matcher, targets, literals, java.util.Set.of()));
    }
  }

  /**
   * Sets columns of every live row for which {@code where} is true (unknown is not true) to literal
   * values and moves this handle to the committed version. Only the predicate's columns and the updated
   * columns are read. See {@link #update(long[], Map)} for values, errors and what is written; when no
   * row matches, nothing is committed and the result holds this handle's version and 0 rows, after the
   * same check as an empty {@link #delete(io.quiver.predicate.Predicate) delete}: a column the predicate
   * read or one being set dropped by a concurrent commit (or an overwrite or restore) is a conflict.
   *
   * @throws io.quiver.exceptions.RetryableConflictException if a concurrent commit changed a column the
   *     predicate read or one being set, in a fragment this update touches, or compacted such a fragment;
   *     or dropped one of these columns (even when no row matched)
   */
  public UpdateResult update(io.quiver.predicate.Predicate where, Map<String, Object> newValues) {
    Manifest base = manifest;
    Updater updater = new Updater(io, base, allocator, options.rowsPerBatch());
    List<String> columns = newValues == null ? null : new ArrayList<>(newValues.keySet());
    List<io.quiver.schema.Field> targets = updater.targets(columns);
    List<Object> values = new ArrayList<>();
    columns.forEach(c -> values.add(newValues.get(c)));
    Updater.Matcher matcher = updater.matching(where);
    try (Updater.LiteralValues literals = (Updater.LiteralValues) updater.literals(targets, values)) {
      return commitUpdate(base, updater, targets, matcher.fieldIds(),
          updater.run(matcher, targets, literals, matcher.fieldIds()));
    }
  }

  /**
   * Sets {@code outputColumns} of every live row for which {@code where} is true to values computed by
   * {@code fn} from the rows' current values of {@code inputColumns} (overlays merged), and moves this
   * handle to the committed version. {@code fn} is called once per batch of matched rows; see {@link
   * UpdateFunction} for the shape of its input and output. Struct validity is never changed (see {@link
   * #update(long[], Map)}). When no row matches, nothing is committed (after the check an empty {@link
   * #update(io.quiver.predicate.Predicate, Map) update} gets; input columns count as read).
   *
   * @throws io.quiver.exceptions.SchemaMismatchException if {@code fn} returns other columns or types
   *     than the output columns', or a null for a non-nullable column (nothing is committed)
   * @throws io.quiver.exceptions.InvalidArgumentException if {@code fn} returns another number of rows,
   *     or a column name is unknown, a struct, or inside a list or map
   * @throws io.quiver.exceptions.RetryableConflictException if a concurrent commit changed a column read
   *     (predicate or input) or set, in a fragment this update touches, or compacted such a fragment
   */
  public UpdateResult update(io.quiver.predicate.Predicate where, List<String> inputColumns,
      List<String> outputColumns, UpdateFunction fn) {
    if (fn == null) {
      throw new io.quiver.exceptions.InvalidArgumentException("the update function must not be null");
    }
    Manifest base = manifest;
    Updater updater = new Updater(io, base, allocator, options.rowsPerBatch());
    List<io.quiver.schema.Field> targets = updater.targets(outputColumns);
    Updater.Matcher matcher = updater.matching(where);
    Updater.Values values = updater.computed(inputColumns, targets, fn);
    java.util.Set<Integer> read = new java.util.TreeSet<>(matcher.fieldIds());
    read.addAll(values.inputFieldIds());
    return commitUpdate(base, updater, targets, read, updater.run(matcher, targets, values, read));
  }

  /** Compacts with {@link CompactionOptions#defaults()}. */
  public CompactionResult compact() {
    return compact(CompactionOptions.defaults());
  }

  /**
   * Rewrites the fragments that qualify (small ones, ones with deleted rows or with overlays; see {@link
   * CompactionOptions}) into new fragments of up to the target size, with deletions applied and overlays
   * merged, and moves this handle to the committed version. Values are unchanged; the rewritten rows get
   * new row addresses (their old addresses no longer resolve at the new version). Older versions still
   * read the old files. When nothing qualifies, nothing is committed and the result holds this handle's
   * version and zeros.
   *
   * @throws io.quiver.exceptions.RetryableConflictException if a concurrent commit deleted, updated or
   *     rewrote rows of a fragment being compacted (the compaction would undo it), added columns, or the
   *     compacted fragments are gone; nothing is committed
   */
  public CompactionResult compact(CompactionOptions compactionOptions) {
    if (compactionOptions == null) {
      throw new io.quiver.exceptions.InvalidArgumentException("compaction options must not be null");
    }
    Manifest base = manifest;
    Compactor compactor = new Compactor(io, base, allocator, options.rowsPerBatch());
    Compactor.Prepared prepared = compactor.prepare(compactionOptions);
    if (prepared.op() == null) {
      return new CompactionResult(base.version(), 0, 0, 0);
    }
    Transaction txn = newTransaction(base.version(), prepared.op(), options);
    try {
      long version = commit(txn, base, options.commitOptions());
      return new CompactionResult(version, prepared.removed(), prepared.added(), prepared.rows());
    } catch (io.quiver.exceptions.CommitConflictException e) {
      compactor.deleteQuietly(prepared.files(), e);
      throw e;
    }
  }

  private UpdateResult commitUpdate(Manifest base, Updater updater, List<io.quiver.schema.Field> targets,
      java.util.Set<Integer> read, Updater.Prepared prepared) {
    if (prepared.op() == null) {
      // Nothing matched at the read version: still checked against what was committed since, as the
      // update would have been. With no overlay it writes no file, so the columns it sets count as used
      // (read) here: a concurrent drop of one of them, like a drop of a predicate column, is a conflict.
      java.util.Set<Integer> used = new java.util.TreeSet<>(read);
      targets.forEach(t -> used.add(t.id()));
      NothingToCommit.check(io, base, new Operation.Update(List.of(), used));
      return new UpdateResult(base.version(), 0);
    }
    Transaction txn = newTransaction(base.version(), prepared.op(), options);
    try {
      return new UpdateResult(commit(txn, base, options.commitOptions()), prepared.rows());
    } catch (io.quiver.exceptions.CommitConflictException e) {
      // Definitely not committed: the overlay files are garbage.
      updater.deleteQuietly(prepared.files(), e);
      throw e;
    }
  }

  // ---------------------------------------------------------------- staged column writes (distributed backfill)

  /**
   * Allocates field ids for a staged column write at this handle's version: new top-level columns get
   * ids from the table's high-water mark + 1 (recursively), and existing fields (columns or struct
   * members, by name or dotted path) may be targeted for rewrite. Hand the result to every worker. A write
   * targeting some members of a struct stores the struct's validity at this version, whatever the
   * workers' batches say; targeting the struct whole (its name, or every member) writes the batches'
   * validity (docs/format.md §5). Declares no inputs: use {@link #newColumnSchema(List, List, List)} when
   * the values are computed from other columns.
   *
   * @throws io.quiver.exceptions.InvalidSchemaException for a reserved system name ({@code _rowid}, ...)
   *     or a name already taken
   * @throws InvalidArgumentException for an unknown target, a member of a list or map, or nothing at all
   */
  public ColumnSchema newColumnSchema(List<org.apache.arrow.vector.types.pojo.Field> newColumns,
      List<String> existingTargets) {
    return newColumnSchema(newColumns, existingTargets, List.of());
  }

  /**
   * {@link #newColumnSchema(List, List)} for values computed from {@code inputs}: existing fields (by
   * name or dotted path; a struct stands for all its members) the workers read to compute them. Every
   * write staged with the schema then records the backing of each input field in its fragment, as it
   * does for the fields it writes, and {@link #commitColumnWrites} refuses it with a {@link
   * io.quiver.exceptions.StaleColumnWriteException} naming the input and the fragment when an input's
   * cells changed since (update, replacement, staged rewrite, filled) or the input was dropped. A rename
   * or a nullability change of an input does not change its values and is accepted; deleting rows is
   * accepted too (a deleted row's staged value is never read). Inputs may also be targets. Workers must
   * read the inputs at this handle's version or at the version of the handle they stage with.
   *
   * @throws InvalidArgumentException additionally for an unknown input
   */
  public ColumnSchema newColumnSchema(List<org.apache.arrow.vector.types.pojo.Field> newColumns,
      List<String> existingTargets, List<String> inputs) {
    Manifest base = manifest;
    return columnWrites().schema(base, newColumns, fieldIds(base, existingTargets, "column"),
        fieldIds(base, inputs, "input column"));
  }

  private static List<Integer> fieldIds(Manifest base, List<String> paths, String what) {
    List<Integer> ids = new ArrayList<>();
    for (String path : paths == null ? List.<String>of() : paths) {
      ids.add(base.schema().findField(path).orElseThrow(() -> new InvalidArgumentException(
          "no " + what + " '" + path + "' at version " + base.version() + "; columns are "
              + base.schema().fields().stream().map(f -> f.name()).toList())).id());
    }
    return ids;
  }

  /** {@link #newColumnSchema(List, List)} with only new columns. */
  public ColumnSchema newColumnSchema(List<org.apache.arrow.vector.types.pojo.Field> newColumns) {
    return newColumnSchema(newColumns, List.of());
  }

  /** {@link #newColumnSchema(List, List)} with existing targets given by field id. */
  public ColumnSchema newColumnSchemaByIds(List<org.apache.arrow.vector.types.pojo.Field> newColumns,
      java.util.Collection<Integer> existingTargetIds) {
    return newColumnSchemaByIds(newColumns, existingTargetIds, List.of());
  }

  /** {@link #newColumnSchema(List, List, List)} with existing targets and inputs given by field id. */
  public ColumnSchema newColumnSchemaByIds(List<org.apache.arrow.vector.types.pojo.Field> newColumns,
      java.util.Collection<Integer> existingTargetIds, java.util.Collection<Integer> inputIds) {
    return columnWrites().schema(manifest, newColumns, existingTargetIds, inputIds);
  }

  /**
   * Streams one fragment's values of {@code schema}'s columns into a staged data file, through the same
   * column writer as {@link #addColumns}, and returns the immutable result bound to this handle's
   * version. {@code batches} must have {@link ColumnSchema#arrowSchema()} and hold exactly the
   * fragment's physical rows in offset order, deleted ones included. Nothing is committed.
   *
   * @throws InvalidArgumentException if the batches hold more or fewer rows (the staged file is deleted
   *     and nothing is returned), or the fragment does not exist at this version
   * @throws io.quiver.exceptions.SchemaMismatchException if a batch does not match the schema
   * @throws io.quiver.exceptions.StaleColumnWriteException if the schema no longer fits this version
   */
  public StagedColumnWrite writeFragmentColumn(long fragmentId, ArrowReader batches, ColumnSchema schema) {
    return columnWrites().stage(manifest, fragmentId, batches, schema);
  }

  /**
   * Publishes staged column writes in one atomic commit and moves this handle to it: results for the same
   * fragment are all applied, new columns join the schema, and rewritten fields' old base columns and
   * overlays are tombstoned. Each staged file is checked against the contract it declares; then, on every
   * commit attempt, every write's witness, contract and new field ids are compared with the latest table.
   * Staged files of a failed commit are left for {@link #cleanup} (they are never published).
   *
   * @return the committed version
   * @throws io.quiver.exceptions.StaleColumnWriteException if anything a write depends on changed since it
   *     was staged (names the fragment, the field and what changed): recompute and stage again
   * @throws io.quiver.exceptions.SchemaMismatchException if a staged file does not hold what it declares
   * @throws io.quiver.exceptions.InvalidSchemaException for a reserved system name
   * @throws InvalidArgumentException for no writes, writes of another table, or two values for one field
   *     of one fragment
   */
  public long commitColumnWrites(List<StagedColumnWrite> writes) {
    Operation.WriteColumns op = columnWrites().prepare(writes);
    long read = writes.stream().mapToLong(StagedColumnWrite::readVersion).min().orElseThrow();
    Manifest current = manifest;
    Manifest base = read == current.version() ? current : io.load(read).manifest();
    return commit(newTransaction(read, op, options), base, options.commitOptions());
  }

  private ColumnWrites columnWrites() {
    return new ColumnWrites(io, allocator, options.rowsPerBatch());
  }

  // ---------------------------------------------------------------- distributed writes, idempotent commits, checkpoints (exactly-once)

  /**
   * A worker-side writer bound to this handle's version and sharing its store and allocator (close it
   * before this handle). A worker without a handle uses {@link DistributedWriter#open(String, DatasetOptions,
   * long)} with only the table URI.
   */
  public DistributedWriter newFragmentWriter() {
    return new DistributedWriter(io, manifest, allocator, options, false, false);
  }

  /** {@link #commitWriteResults(List, WriteMode, CommitOptions)} as an append. */
  public long commitWriteResults(List<WriteResult> results, CommitOptions commitOptions) {
    return commitWriteResults(results, WriteMode.APPEND, commitOptions);
  }

  /**
   * Commits the fragments of every result as ONE transaction ({@code mode}: append, or overwrite keeping
   * the schema), read at the results' smallest read version, and moves this handle to the committed version
   * (never backwards).
   *
   * <p>With an {@link CommitOptions#withIdempotenceKey idempotence key}, the latest version's idempotence
   * ledger is consulted first: if the key was committed with the same rows (the results' rows digest, so
   * results rewritten by re-run workers match), that version is returned and nothing is published — from
   * any handle or process, whatever the results' read version and whatever a cleanup removed since. An
   * append whose read version a cleanup removed is still committed when that is provably safe: the schema
   * is unchanged, no overwrite or restore happened since, and the ledger covers every commit since (so an
   * earlier attempt would have been found).
   *
   * @return the committed version (or the version found under the idempotence key)
   * @throws io.quiver.exceptions.SchemaMismatchException if a result's schema contract is not the table's
   * @throws InvalidArgumentException for no results, or results of another table
   * @throws io.quiver.exceptions.IdempotenceKeyConflictException if the key was used for different content
   * @throws io.quiver.exceptions.StaleReadVersionException if versions after the read version were removed
   *     and the commit cannot be shown safe without them (the message says why)
   * @throws io.quiver.exceptions.CommitConflictException if a concurrent commit prevents this one
   */
  public long commitWriteResults(List<WriteResult> results, WriteMode mode, CommitOptions commitOptions) {
    DistributedCommits.fragments(results);
    long read = DistributedCommits.readVersion(results);
    Optional<String> digest = Idempotence.rowsDigest(mode == WriteMode.OVERWRITE ? "overwrite" : "append", results);
    // Already committed under its key or sequence? The latest ledger says so before anything is checked
    // against the results' read version, which may be gone, or whose schema may have changed since.
    Optional<Idempotence.Already> already =
        Idempotence.inLatestLedger(io, results, mode, commitOptions, digest, commitOptions.properties());
    if (already.isPresent()) {
      Manifest latest = io.load(io.commitStore().latestVersion().orElseThrow()).manifest();
      if (latest.version() > manifest.version()) {
        manifest = latest;
      }
      return already.get().version();
    }
    Manifest base = DistributedCommits.base(io, manifest, read, results, mode, commitOptions);
    Operation op = DistributedCommits.operation(io, base, results, mode);
    // A base other than the read version: the read version is gone, and the append was shown safe on the
    // latest version, so conflicts are checked from there.
    Transaction txn = newTransaction(base.version() == read ? read : base.version(), op, options, commitOptions);
    return commit(txn, base, commitOptions, digest);
  }

  /**
   * {@link #findCommit(String, long)} for an attempt that may have committed at any time: {@code
   * NOT_COMMITTED} only while the ledger is complete from the table's first version.
   */
  public CommitLookup findCommit(String idempotenceKey) {
    return findCommit(idempotenceKey, 0);
  }

  /**
   * Whether a commit was made under {@code idempotenceKey}, answered from the latest version's idempotence
   * ledger in one manifest read (for tables written before the ledger existed, from every version still
   * present), never from this handle's version. {@code attemptReadVersion} is the version the attempt in
   * question was computed from (a write result's {@link WriteResult#readVersion()}); the attempt can only
   * have committed after it, so a key absent from a ledger complete since then is {@code NOT_COMMITTED},
   * and {@code UNKNOWN} otherwise. See {@link CommitLookup} for what is safe in each case.
   *
   * @throws InvalidArgumentException for an empty key or a negative read version
   */
  public CommitLookup findCommit(String idempotenceKey, long attemptReadVersion) {
    return Idempotence.find(io, idempotenceKey, attemptReadVersion);
  }

  /**
   * The highest sequence {@code applicationId} committed ({@link CommitOptions#withApplicationSequence}),
   * from the latest version's ledger; empty if the application never committed one, or its watermark
   * expired ({@code idempotence.retention} after its last commit).
   */
  public Optional<io.quiver.manifest.CommitLedger.SequenceWatermark> applicationWatermark(String applicationId) {
    if (applicationId == null || applicationId.isEmpty()) {
      throw new InvalidArgumentException("an application id must not be null or empty");
    }
    long latest = io.commitStore().latestVersion().orElseThrow(
        () -> new io.quiver.exceptions.TableNotFoundException("no Quiver table at " + io.location()));
    return io.load(latest).manifest().ledger().flatMap(l -> l.watermark(applicationId));
  }

  // ---------------------------------------------------------------- writing

  /** Appends rows and moves this handle to the committed version. Returns that version. */
  public long append(Iterable<VectorSchemaRoot> batches) {
    return append(batches, options.commitOptions());
  }

  /** Appends rows with the given commit options. */
  public long append(Iterable<VectorSchemaRoot> batches, CommitOptions commitOptions) {
    return append(batches.iterator(), commitOptions);
  }

  /** Appends everything an Arrow reader yields. */
  public long append(ArrowReader reader) {
    return append(ArrowInput.batches(reader), options.commitOptions());
  }

  private long append(Iterator<VectorSchemaRoot> batches, CommitOptions commitOptions) {
    Manifest base = manifest;
    boolean keyed = commitOptions.idempotenceKey().isPresent();
    FragmentWriter writer = writer(io, base.schema(), allocator, options);
    List<Fragment> fragments = (keyed ? writer : writer.withoutRowsDigest()).write(batches);
    Transaction txn = newTransaction(base.version(), new Operation.Append(fragments), options, commitOptions);
    // The rows' digest, not the files': a retry that rewrote the same rows is the same commit.
    return commit(txn, base, commitOptions,
        keyed ? Optional.of(writer.rows().hex("append", base.schema())) : Optional.empty());
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
    boolean keyed = options.commitOptions().idempotenceKey().isPresent();
    FragmentWriter writer = writer(io, tableSchema, allocator, options);
    List<Fragment> fragments = (keyed ? writer : writer.withoutRowsDigest()).write(batches.iterator());
    Transaction txn =
        newTransaction(base.version(), new Operation.Overwrite(tableSchema, fragments, Map.of()), options);
    return commit(txn, base, options.commitOptions(),
        keyed ? Optional.of(writer.rows().hex("overwrite", tableSchema)) : Optional.empty());
  }

  // ---------------------------------------------------------------- column evolution

  /**
   * Adds nullable columns that read as null in every existing row (no data is written). Field ids are
   * allocated from the table's high-water mark. Returns the committed version.
   *
   * @throws io.quiver.exceptions.InvalidSchemaException for a reserved or existing name
   * @throws InvalidArgumentException for a non-nullable column (it needs values: use the function form)
   */
  public long addColumns(List<org.apache.arrow.vector.types.pojo.Field> columns) {
    Manifest base = manifest;
    return commit(evolution().addColumns(base, columns, List.of(), null), base);
  }

  /**
   * Adds columns computed per fragment from existing columns: {@code fn} receives each chunk of
   * {@code inputColumns} (physical rows, deleted ones included) and returns the new columns' values.
   * Every fragment gets one new data file holding only the new columns; existing files are untouched.
   */
  public long addColumns(List<org.apache.arrow.vector.types.pojo.Field> columns, List<String> inputColumns,
      ColumnFunction fn) {
    Manifest base = manifest;
    return commit(evolution().addColumns(base, columns, inputColumns, java.util.Objects.requireNonNull(fn, "fn")),
        base);
  }

  /**
   * Replaces the data of existing columns (top-level columns or struct members) in every fragment with
   * values computed by {@code fn}, through the same per-fragment column writer as {@link #addColumns}.
   * The old columns are tombstoned in place and older overlays on them are dropped, so the new values are
   * authoritative. Replacing some members of a struct keeps the struct's validity (the nulls of the
   * struct in {@code fn}'s output are ignored); replacing the struct whole (its name, or every member)
   * writes {@code fn}'s validity (docs/format.md §5).
   */
  public long replaceColumns(List<String> targetColumns, List<String> inputColumns, ColumnFunction fn) {
    return replaceColumns(targetColumns, inputColumns, fn, null);
  }

  /** Like {@link #replaceColumns(List, List, ColumnFunction)} for the given fragments only. */
  public long replaceColumns(List<String> targetColumns, List<String> inputColumns, ColumnFunction fn,
      java.util.Collection<Long> fragmentIds) {
    Manifest base = manifest;
    return commit(
        evolution().replaceColumns(base, targetColumns, inputColumns, java.util.Objects.requireNonNull(fn, "fn"),
            fragmentIds),
        base);
  }

  /** Drops columns or struct members (metadata only; their data files are tombstoned, not rewritten). */
  public long dropColumns(String... columns) {
    Manifest base = manifest;
    return commit(evolution().drop(base.schema(), List.of(columns)), base);
  }

  /** Renames a column or struct member; data files refer to fields by id, so nothing is rewritten. */
  public long renameColumn(String column, String newName) {
    Manifest base = manifest;
    return commit(evolution().rename(base.schema(), column, newName), base);
  }

  /**
   * Changes a column's nullability. Making it non-nullable first scans it at this version and fails with
   * {@link io.quiver.exceptions.SchemaMismatchException} if it holds a null.
   */
  public long setNullable(String column, boolean nullable) {
    Manifest base = manifest;
    return commit(evolution().setNullable(base, column, nullable, id -> newScan().fieldIds(List.of(id)).open()), base);
  }

  private ColumnEvolution evolution() {
    return new ColumnEvolution(io, allocator, options.rowsPerBatch());
  }

  private long commit(Operation op, Manifest base) {
    Transaction txn = newTransaction(base.version(), op, options);
    return commit(txn, base, options.commitOptions());
  }

  private long commit(Transaction txn, Manifest base, CommitOptions commitOptions) {
    return commit(txn, base, commitOptions, Optional.empty());
  }

  /**
   * Commits and moves this handle to the version holding the commit (for a commit found under its key or
   * sequence, the latest version, which holds it; never backwards).
   */
  private long commit(Transaction txn, Manifest base, CommitOptions commitOptions, Optional<String> contentDigest) {
    CommitLoop.Committed committed = new CommitLoop(io, commitOptions, options.clock(), contentDigest)
        .commitDetailed(txn, Optional.of(base), TransactionRebaser.NONE);
    if (committed.manifest().version() >= manifest.version()) {
      manifest = committed.manifest();
    }
    return committed.version();
  }

  private static FragmentWriter writer(TableIo io, Schema schema, BufferAllocator allocator, DatasetOptions options) {
    return new FragmentWriter(io.store(), schema, allocator, options.rowsPerBatch(), options.maxRowsPerFragment());
  }

  private static Transaction newTransaction(long readVersion, Operation op, DatasetOptions options) {
    return newTransaction(readVersion, op, options, options.commitOptions());
  }

  private static Transaction newTransaction(long readVersion, Operation op, DatasetOptions options,
      CommitOptions commitOptions) {
    return new Transaction(UUID.randomUUID().toString(), readVersion, op, commitOptions.properties());
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
