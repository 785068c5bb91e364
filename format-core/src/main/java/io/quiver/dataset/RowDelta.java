package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.StaleReadVersionException;
import io.quiver.internal.codec.MetadataCodec;
import io.quiver.internal.ops.Deleter;
import io.quiver.internal.predicate.StatsPruner;
import io.quiver.internal.read.FragmentBounds;
import io.quiver.internal.read.Projection;
import io.quiver.internal.read.ScanSpec;
import io.quiver.internal.table.CommitLoop;
import io.quiver.internal.table.DistributedCommits;
import io.quiver.internal.table.Idempotence;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.TransactionRebaser;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.predicate.Predicate;
import io.quiver.schema.Schema;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.roaringbitmap.RoaringBitmap;

/**
 * An engine's row-level change — Spark's {@code MERGE INTO}, {@code UPDATE} and {@code DELETE} — committed as
 * ONE transaction bound to the version its rows were read from: rows deleted by {@linkplain RowAddress
 * address}, and rows written by workers ({@link DistributedWriter}) added. An updated row is both: the deletion
 * of its old version and its new version among the added rows (it gets a new address, as after compaction).
 * Made by {@link DistributedWrites#newRowDelta(long)}; see docs/distributed-writes.md, "Row-level changes".
 *
 * <pre>{@code
 * RowDeltaResult r = dataset.distributed().newRowDelta(readVersion)
 *     .deleteRows(addressesOfChangedRows)        // from every worker
 *     .addRows(writeResults)                     // the new versions of updated rows, and inserted rows
 *     .readFragments(fragmentsTheScanRead)
 *     .conflictFilter(Predicate.lt("id", 100))   // the rows the scan could have read
 *     .commit(CommitOptions.defaults().withIdempotenceKey("spark/" + queryId + "/merge"));
 * }</pre>
 *
 * <p><b>Concurrency.</b> Nothing here is recomputed: a delta whose inputs changed is refused with a {@link
 * io.quiver.exceptions.RetryableConflictException} ("re-run the command"). It is refused when a commit made after
 * the read version deleted, updated, replaced or compacted rows of a fragment the delta read or deletes from;
 * and, under {@link Isolation#SERIALIZABLE} (the default), when a commit added rows the read could have seen
 * — judged from the added fragments' column statistics against the {@linkplain #conflictFilter conflict
 * filter} — or wrote a column the filter reads. {@link Isolation#SNAPSHOT} lets concurrently added rows
 * through (two MERGEs inserting one key may then both insert it). The table configuration key {@value
 * #ISOLATION_CONFIG} sets the default isolation of a table's deltas.
 *
 * <p><b>Exactly once.</b> Under an idempotence key the commit is made once, however often it is retried and
 * from whichever process: the key's digest covers the deleted addresses and the added rows. A failed commit
 * deletes only what it wrote itself (the deletion files); the workers' files stay theirs.
 *
 * <p>Not thread-safe; one builder is one commit. Uses the handle it came from: commit while it is open.
 */
public final class RowDelta {
  /** Table configuration key: the default isolation of row deltas, {@code serializable} or {@code snapshot}. */
  public static final String ISOLATION_CONFIG = "row-delta.isolation";

  /** How a row delta meets rows added by commits made after its read version. */
  public enum Isolation {
    /** Rows added concurrently that the read could have seen make the delta retryable. */
    SERIALIZABLE,
    /** Rows added concurrently are not checked (other rows the delta read still are). */
    SNAPSHOT;

    /**
     * The isolation a table's configuration sets ({@value #ISOLATION_CONFIG}), SERIALIZABLE when unset.
     *
     * @throws InvalidArgumentException for another value
     */
    public static Isolation of(Map<String, String> config) {
      String v = config.get(ISOLATION_CONFIG);
      if (v == null) {
        return SERIALIZABLE;
      }
      return switch (v.trim().toLowerCase(Locale.ROOT)) {
        case "serializable" -> SERIALIZABLE;
        case "snapshot" -> SNAPSHOT;
        default -> throw new InvalidArgumentException("configuration key '" + ISOLATION_CONFIG + "' must be"
            + " 'serializable' or 'snapshot'; found '" + v + "'");
      };
    }
  }

  private final Dataset dataset;
  private final long readVersion;
  private final List<long[]> deleted = new ArrayList<>();
  private final List<WriteResult> added = new ArrayList<>();
  /** Per result of {@link #added}, the address each of its rows replaces (-1: a new row), or null. */
  private final List<long[]> replaced = new ArrayList<>();
  private Optional<Set<Long>> readFragments = Optional.empty();
  private Predicate conflictFilter = Predicate.TRUE;
  private Optional<Isolation> isolation = Optional.empty();
  private String description = "row-delta";

  RowDelta(Dataset dataset, long readVersion) {
    if (readVersion < 0) {
      throw new InvalidArgumentException("a row delta's read version must be >= 0, got " + readVersion);
    }
    this.dataset = dataset;
    this.readVersion = readVersion;
  }

  /** The version the delta's rows were read from. */
  public long readVersion() {
    return readVersion;
  }

  /**
   * Deletes the rows at these addresses (of the read version). May be called many times; an address given
   * twice counts once, an address of a row already deleted at the read version is accepted and not counted.
   */
  public RowDelta deleteRows(long... rowAddresses) {
    if (rowAddresses == null) {
      throw new InvalidArgumentException("row addresses must not be null");
    }
    deleted.add(rowAddresses.clone());
    return this;
  }

  /** Adds the rows of workers' write results (written with the read version's schema). May be called many times. */
  public RowDelta addRows(Collection<WriteResult> results) {
    if (results == null || results.stream().anyMatch(java.util.Objects::isNull)) {
      throw new InvalidArgumentException("write results must not be null");
    }
    added.addAll(results);
    results.forEach(r -> replaced.add(null));
    return this;
  }

  /**
   * Adds the rows of one write result, each the new version of the row at {@code replacedAddresses[i]} (of the
   * read version; -1 for a row that replaces none), in the order the result holds them (its fragments in order,
   * each in offset order). On a table with stable row ids a replacing row keeps the id and creation version of
   * the row it replaces (an update, not a delete and an insert), and that row must be among those the delta
   * deletes; on other tables the addresses are ignored.
   *
   * @throws InvalidArgumentException unless there is one address per row of the result
   */
  public RowDelta addRows(WriteResult result, long[] replacedAddresses) {
    if (result == null || replacedAddresses == null) {
      throw new InvalidArgumentException("the write result and the replaced addresses must not be null");
    }
    if (replacedAddresses.length != result.rows()) {
      throw new InvalidArgumentException("a write result of " + result.rows() + " rows needs one replaced address"
          + " per row (-1 for a new row), got " + replacedAddresses.length);
    }
    added.add(result);
    replaced.add(replacedAddresses.clone());
    return this;
  }

  /**
   * The fragments whose rows the engine read (a scan's tasks' fragments): a concurrent change to one of them
   * makes the delta retryable. Default: every fragment of the read version (always safe; a scan that pruned
   * fragments by a filter names fewer and conflicts less).
   */
  public RowDelta readFragments(Collection<Long> fragmentIds) {
    if (fragmentIds == null || fragmentIds.stream().anyMatch(java.util.Objects::isNull)) {
      throw new InvalidArgumentException("fragment ids must not be null");
    }
    readFragments = Optional.of(new TreeSet<>(fragmentIds));
    return this;
  }

  /**
   * The rows the engine's read could have returned (its pushed-down filter; default {@link Predicate#TRUE}):
   * under serializable isolation, rows added concurrently that may match it, or a concurrent write to one of its
   * columns, make the delta retryable.
   *
   * <p>Checked against the read version's columns when the delta commits.
   */
  public RowDelta conflictFilter(Predicate filter) {
    if (filter == null) {
      throw new InvalidArgumentException("the conflict filter must not be null; use Predicate.TRUE for every row");
    }
    this.conflictFilter = filter;
    return this;
  }

  /** The isolation (default: the table configuration's {@value #ISOLATION_CONFIG}, else SERIALIZABLE). */
  public RowDelta isolation(Isolation isolation) {
    if (isolation == null) {
      throw new InvalidArgumentException("isolation must not be null");
    }
    this.isolation = Optional.of(isolation);
    return this;
  }

  /** A short description for the history (the engine's command), e.g. {@code "spark MERGE"}. */
  public RowDelta description(String description) {
    if (description == null || description.isBlank()) {
      throw new InvalidArgumentException("a description must not be blank");
    }
    this.description = description;
    return this;
  }

  /**
   * Commits the delta as one transaction checked against every version after the read version, and moves the
   * handle to the committed version. With nothing to delete and nothing to add, nothing is committed and the
   * result holds the read version.
   *
   * @throws io.quiver.exceptions.NotFoundException if an address names a fragment or offset the read version
   *     does not have (nothing is committed)
   * @throws io.quiver.exceptions.SchemaMismatchException if a result was written with another schema than the
   *     read version's
   * @throws io.quiver.exceptions.RetryableConflictException if a concurrent commit changed what the delta read
   *     (see the class comment); re-run the command on the latest version
   * @throws StaleReadVersionException if a cleanup removed the read version and the key is not in the ledger
   * @throws io.quiver.exceptions.IdempotenceKeyConflictException if the key was used for other content
   */
  public RowDeltaResult commit(CommitOptions commitOptions) {
    if (commitOptions == null) {
      throw new InvalidArgumentException("commit options must not be null; use CommitOptions.defaults()");
    }
    long[] addresses = addresses();
    List<Fragment> fragments = new ArrayList<>();
    added.forEach(r -> fragments.addAll(r.fragments()));
    long addedRows = added.stream().mapToLong(WriteResult::rows).sum();
    if (addresses.length == 0 && fragments.isEmpty()) {
      return new RowDeltaResult(readVersion, 0, 0, false);
    }
    String digest = digest(addresses);
    TableIo io = dataset.io();
    return dataset.mutate(m -> {
      Optional<Idempotence.Already> already = Idempotence.inLatestLedger(m.io(),
          new Operation.Append(fragments), commitOptions, Optional.of(digest), commitOptions.properties());
      if (already.isPresent()) {
        dataset.moveForward(io.load(io.commitStore().latestVersion().orElseThrow()).manifest());
        return new RowDeltaResult(already.get().version(), 0, addedRows, true);
      }
      Manifest base = base(io, commitOptions);
      Schema schema = base.schema();
      for (int i = 0; i < added.size(); i++) {
        DistributedCommits.checkResult(io, i, added.get(i), base);
      }
      List<Fragment> written = base.hasRowIds() ? withCarriedIds(base, addresses) : fragments;
      Deleter deleter = new Deleter(m.io(), base, dataset.allocator());
      Map<Long, RoaringBitmap> rows = deleter.addressed(addresses);
      List<Operation.FragmentDeletion> deletions =
          deleter.write(rows, Set.of(), "").map(Operation.Delete::deletions).orElse(List.of());
      long deletedRows = rows.values().stream().mapToLong(RoaringBitmap::getLongCardinality).sum();
      Set<Long> read = readFragments.orElseGet(() -> {
        Set<Long> all = new TreeSet<>();
        base.fragments().forEach(f -> all.add(f.id()));
        return all;
      });
      Isolation iso = isolation.orElseGet(() -> Isolation.of(base.config()));
      Set<Integer> filterFields = new TreeSet<>();
      Optional<Operation.RowFilter> filter = Optional.empty();
      if (!(conflictFilter instanceof Predicate.True)) {
        // The filter must name the read version's columns (InvalidArgumentException otherwise).
        ScanSpec.of(schema, Projection.project(schema, List.of(), null), conflictFilter, false, 1, ScanSpec.NO_LIMIT);
        StatsPruner pruner = StatsPruner.of(conflictFilter, schema);
        filterFields.addAll(pruner.fieldIds());
        filter = Optional.of(f -> pruner.mayMatch(FragmentBounds.lookup(f, schema)));
      }
      String text = description + (conflictFilter instanceof Predicate.True ? "" : " where " + conflictFilter)
          + " (" + iso.name().toLowerCase(Locale.ROOT) + ")";
      Operation.RowDelta op = new Operation.RowDelta(deletions, written, filterFields, read,
          iso == Isolation.SERIALIZABLE, filter, text);
      CommitLoop.Committed committed = m.commit(Optional.of(base), base.version(), op, commitOptions,
          Optional.of(digest), TransactionRebaser.NONE);
      boolean found = committed.alreadyCommitted();
      return new RowDeltaResult(dataset.moveTo(committed), found ? 0 : deletedRows, addedRows, found);
    });
  }

  /**
   * The added fragments with the lineage of the rows they replace (ids and creation versions kept, last updated by
   * this commit); new rows get fresh ids at commit.
   */
  private List<Fragment> withCarriedIds(Manifest base, long[] deletedAddresses) {
    List<Fragment> out = new ArrayList<>();
    Map<Long, Fragment> byId = new java.util.HashMap<>();
    for (int i = 0; i < added.size(); i++) {
      long[] sources = replaced.get(i);
      int at = 0;
      for (Fragment f : added.get(i).fragments()) {
        if (sources == null) {
          out.add(f);
          continue;
        }
        io.quiver.manifest.RowLineage.Builder lineage = new io.quiver.manifest.RowLineage.Builder();
        for (long o = 0; o < f.physicalRows(); o++) {
          long source = sources[at++];
          if (source < 0) {
            lineage.add(io.quiver.manifest.RowLineage.FRESH, io.quiver.manifest.RowLineage.THIS_VERSION,
                io.quiver.manifest.RowLineage.THIS_VERSION);
            continue;
          }
          if (Arrays.binarySearch(deletedAddresses, source) < 0) {
            throw new InvalidArgumentException("a row of the delta replaces the row at address " + source + " ("
                + "fragment " + RowAddress.fragmentId(source) + ", offset " + RowAddress.offset(source) + "), which the delta does not delete; a replacing row's old version"
                + " must be deleted in the same delta");
          }
          Fragment old = byId.computeIfAbsent(RowAddress.fragmentId(source), id -> find(base, id));
          long offset = RowAddress.offset(source);
          io.quiver.manifest.RowLineage l = old.lineage().orElseThrow();
          lineage.add(l.rowId(offset), l.createdAt(offset), io.quiver.manifest.RowLineage.THIS_VERSION);
        }
        out.add(f.withLineage(Optional.of(lineage.build())));
      }
    }
    return out;
  }

  private static Fragment find(Manifest base, long id) {
    if (base.fragments() instanceof io.quiver.manifest.FragmentList list) {
      return list.find(id).orElseThrow(() -> new io.quiver.exceptions.NotFoundException(
          "fragment " + id + " is not in version " + base.version()));
    }
    for (Fragment f : base.fragments()) {
      if (f.id() == id) {
        return f;
      }
    }
    throw new io.quiver.exceptions.NotFoundException("fragment " + id + " is not in version " + base.version());
  }

  /** The read version's manifest; when a cleanup removed it, refused (the key was not in the ledger). */
  private Manifest base(TableIo io, CommitOptions commitOptions) {
    if (dataset.base().version() == readVersion) {
      return dataset.base();
    }
    Optional<MetadataCodec.ManifestAndTransaction> loaded = io.tryLoad(readVersion);
    if (loaded.isPresent()) {
      return loaded.get().manifest();
    }
    List<Long> versions = io.commitStore().listVersions(Integer.MAX_VALUE);
    long oldest = versions.isEmpty() ? -1 : versions.get(versions.size() - 1);
    throw new StaleReadVersionException(readVersion, oldest,
        "the row delta was computed at version " + readVersion + " of " + io.location() + ", which a cleanup"
            + " removed (the oldest version is " + oldest + "), so the commits made since cannot be checked"
            + " against it. Nothing was committed."
            + commitOptions.idempotenceKey().map(k -> " The idempotence key '" + k + "' is not in the latest"
                + " version's ledger, so no earlier attempt committed it.").orElse("")
            + " Re-run the command on the latest version, and keep the cleanup retention longer than a job.");
  }

  private long[] addresses() {
    int n = 0;
    for (long[] a : deleted) {
      n += a.length;
    }
    long[] all = new long[n];
    int i = 0;
    for (long[] a : deleted) {
      System.arraycopy(a, 0, all, i, a.length);
      i += a.length;
    }
    Arrays.sort(all);
    int distinct = 0;
    for (int j = 0; j < all.length; j++) {
      if (j == 0 || all[j] != all[j - 1]) {
        all[distinct++] = all[j];
      }
    }
    return Arrays.copyOf(all, distinct);
  }

  /**
   * What the key's digest covers: the sorted distinct deleted addresses, and the added rows (their rows digest
   * when every result has one — rows rewritten by re-run workers match — else their data files).
   */
  private String digest(long[] addresses) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
    sha.update("quiver row-delta v1\n".getBytes(StandardCharsets.UTF_8));
    ByteBuffer buf = ByteBuffer.allocate(8);
    buf.putLong(addresses.length);
    sha.update(buf.array());
    for (long a : addresses) {
      buf.clear();
      buf.putLong(a);
      sha.update(buf.array());
    }
    Optional<String> rows = added.isEmpty() ? Optional.of("none") : Idempotence.rowsDigest("row-delta", added);
    if (rows.isPresent()) {
      sha.update(rows.get().getBytes(StandardCharsets.UTF_8));
    } else {
      for (WriteResult r : added) {
        r.files().forEach(f -> sha.update((f + "\n").getBytes(StandardCharsets.UTF_8)));
      }
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  @Override
  public String toString() {
    return "RowDelta[" + dataset.uri() + " read at version " + readVersion + ", " + description + "]";
  }
}
