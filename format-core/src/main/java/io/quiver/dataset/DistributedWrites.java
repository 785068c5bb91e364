package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.exceptions.TableNotFoundException;
import io.quiver.internal.table.DistributedCommits;
import io.quiver.internal.table.Idempotence;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.TransactionRebaser;
import io.quiver.manifest.CommitLedger;
import io.quiver.manifest.Manifest;
import java.util.List;
import java.util.Optional;

/**
 * Exactly-once distributed writes to a table, from the {@link Dataset} handle they came from ({@link
 * Dataset#distributed()}): workers write fragments with a {@link DistributedWriter} ({@link #newWriter()}
 * here, or {@link DistributedWriter#open} with only the table URI) and return {@link WriteResult}s; the
 * driver commits every result as one transaction ({@link #commit}), under an idempotence key or an
 * application sequence so that a retry — from any handle or process, after any crash — commits once; and
 * it recovers with {@link #findCommit} and {@link #applicationWatermark} (docs/distributed-writes.md).
 *
 * <p>The workers' files are the caller's until a commit publishes them: a failed {@link #commit} removes
 * only what it wrote itself (its transaction file) and never a worker's file, so the same results can be
 * committed again; {@link Dataset#cleanup} removes files no version references once they are older than
 * its safety window.
 *
 * <p>Shares the handle's store and allocator: use it while the handle is open.
 */
public final class DistributedWrites {
  private final Dataset dataset;

  DistributedWrites(Dataset dataset) {
    this.dataset = dataset;
  }

  /**
   * A worker-side writer bound to this handle's version and sharing its store and allocator (close it
   * before this handle). A worker without a handle uses {@link DistributedWriter#open(String, DatasetOptions,
   * long)} with only the table URI.
   */
  public DistributedWriter newWriter() {
    return new DistributedWriter(dataset.io(), dataset.base(), dataset.allocator(), dataset.options(), false,
        false);
  }

  /**
   * A row-level change computed from {@code readVersion} (an engine's MERGE INTO, UPDATE or DELETE): rows
   * deleted by address and rows added from workers' results, committed as one transaction checked against
   * every commit since (see {@link RowDelta}). The workers write the added rows with {@link DistributedWriter}s
   * opened at {@code readVersion}.
   *
   * @throws InvalidArgumentException for a negative version
   */
  public RowDelta newRowDelta(long readVersion) {
    return new RowDelta(dataset, readVersion);
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
   * earlier attempt would have been found). When the commit fails, the results' files stay where the
   * workers wrote them: commit them again (under the same key), or leave them to cleanup.
   *
   * @param commitOptions the commit's options: retries, properties, and the idempotence key or application
   *     sequence that make it exactly-once
   * @return the committed version (or the version found under the idempotence key)
   * @throws io.quiver.exceptions.SchemaMismatchException if a result's schema contract is not the table's
   * @throws InvalidArgumentException for no results, results of another table, or no mode
   * @throws io.quiver.exceptions.IdempotenceKeyConflictException if the key was used for different content
   * @throws io.quiver.exceptions.StaleReadVersionException if versions after the read version were removed
   *     and the commit cannot be shown safe without them (the message says why)
   * @throws io.quiver.exceptions.CommitConflictException if a concurrent commit prevents this one
   */
  public long commit(List<WriteResult> results, WriteMode mode, CommitOptions commitOptions) {
    DistributedCommits.fragments(results);
    long read = DistributedCommits.readVersion(results);
    Optional<String> digest = Idempotence.rowsDigest(mode == WriteMode.OVERWRITE ? "overwrite" : "append", results);
    return dataset.mutate(m -> {
      TableIo io = m.io();
      // Already committed under its key or sequence? The latest ledger says so before anything is checked
      // against the results' read version, which may be gone, or whose schema may have changed since.
      Optional<Idempotence.Already> already =
          Idempotence.inLatestLedger(io, results, mode, commitOptions, digest, commitOptions.properties());
      if (already.isPresent()) {
        dataset.moveForward(io.load(io.commitStore().latestVersion().orElseThrow()).manifest());
        return already.get().version();
      }
      Manifest base = DistributedCommits.base(io, dataset.base(), read, results, mode, commitOptions);
      Operation op = DistributedCommits.operation(io, base, results, mode);
      // A base other than the read version: the read version is gone, and the append was shown safe on the
      // latest version, so conflicts are checked from there.
      return dataset.moveTo(m.commit(Optional.of(base), base.version() == read ? read : base.version(), op,
          commitOptions, digest, TransactionRebaser.NONE));
    });
  }

  /**
   * Commits like {@link #commit(List, WriteMode, CommitOptions)}, with a choice of which schema changes made
   * since the results were written an append accepts. {@link SchemaPolicy#EXACT} is that method. With
   * {@link SchemaPolicy#ALLOW_ADDED_NULLABLE_FIELDS} (appends only), the idempotence key or application
   * sequence is looked up in the latest ledger first, as always; then the append is built on the latest
   * version — the results' read versions may differ between workers, or be removed by a cleanup — if each
   * result's fields all still exist there (same id, parent and type, not made NOT NULL) and every field added
   * since is nullable: the appended rows read null in it. It is refused when an overwrite or restore replaced
   * the table after the results' smallest read version ({@link
   * io.quiver.manifest.CommitLedger#lastReplaceVersion()}). A concurrent commit that makes the append
   * retryable (an added column) is met by re-checking on the new latest version, a few times.
   *
   * @throws io.quiver.exceptions.SchemaMismatchException under the policy, naming a field that was dropped,
   *     re-typed or made NOT NULL since the results were written, or a NOT NULL field added since
   * @throws io.quiver.exceptions.IncompatibleTransactionException if the table was replaced after the results'
   *     read version
   * @throws InvalidArgumentException for no policy, or an overwrite under {@code ALLOW_ADDED_NULLABLE_FIELDS}
   */
  public long commit(List<WriteResult> results, WriteMode mode, CommitOptions commitOptions, SchemaPolicy policy) {
    if (policy == null) {
      throw new InvalidArgumentException("schema policy must not be null; use SchemaPolicy.EXACT or"
          + " SchemaPolicy.ALLOW_ADDED_NULLABLE_FIELDS");
    }
    if (policy == SchemaPolicy.EXACT) {
      return commit(results, mode, commitOptions);
    }
    if (mode != WriteMode.APPEND) {
      throw new InvalidArgumentException("SchemaPolicy." + policy + " applies to appends only, got " + mode
          + "; an overwrite replaces the schema and commits with SchemaPolicy.EXACT");
    }
    DistributedCommits.fragments(results);
    long read = DistributedCommits.readVersion(results);
    Optional<String> digest = Idempotence.rowsDigest("append", results);
    for (int attempt = 1; ; attempt++) {
      try {
        return dataset.mutate(m -> {
          TableIo io = m.io();
          Optional<Idempotence.Already> already =
              Idempotence.inLatestLedger(io, results, mode, commitOptions, digest, commitOptions.properties());
          Manifest latest = io.loadLatest().manifest();
          if (already.isPresent()) {
            dataset.moveForward(latest);
            return already.get().version();
          }
          Operation op = DistributedCommits.appendOnLatest(io, latest, read, results, commitOptions);
          return dataset.moveTo(m.commit(Optional.of(latest), latest.version(), op, commitOptions, digest,
              TransactionRebaser.NONE));
        });
      } catch (RetryableConflictException e) {
        if (attempt >= POLICY_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /** How often an append under a schema policy is re-checked on a newer latest version after a retryable conflict. */
  private static final int POLICY_ATTEMPTS = 3;

  /**
   * Whether a commit was made under {@code idempotenceKey}, answered from the latest version's idempotence
   * ledger in one manifest read (for tables written before the ledger existed, from every version still
   * present), never from this handle's version. {@code attemptReadVersion} is the version the attempt in
   * question was computed from (a write result's {@link WriteResult#readVersion()}); the attempt can only
   * have committed after it, so a key absent from a ledger complete since then is {@code NOT_COMMITTED},
   * and {@code UNKNOWN} otherwise. Pass 0 for an attempt that may have committed at any time: {@code
   * NOT_COMMITTED} then only while the ledger is complete from the table's first version. See {@link
   * CommitLookup} for what is safe in each case.
   *
   * @throws InvalidArgumentException for an empty key or a negative read version
   */
  public CommitLookup findCommit(String idempotenceKey, long attemptReadVersion) {
    return Idempotence.find(dataset.io(), idempotenceKey, attemptReadVersion);
  }

  /**
   * The highest sequence {@code applicationId} committed ({@link CommitOptions#withApplicationSequence}),
   * from the latest version's ledger; empty if the application never committed one, or its watermark
   * expired ({@code idempotence.retention} after its last commit).
   */
  public Optional<CommitLedger.SequenceWatermark> applicationWatermark(String applicationId) {
    if (applicationId == null || applicationId.isEmpty()) {
      throw new InvalidArgumentException("an application id must not be null or empty");
    }
    TableIo io = dataset.io();
    long latest = io.commitStore().latestVersion().orElseThrow(
        () -> new TableNotFoundException("no Quiver table at " + io.location()));
    return io.load(latest).manifest().ledger().flatMap(l -> l.watermark(applicationId));
  }

  @Override
  public String toString() {
    return "DistributedWrites[" + dataset + "]";
  }
}
