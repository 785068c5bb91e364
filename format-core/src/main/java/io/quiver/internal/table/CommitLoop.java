package io.quiver.internal.table;

import io.quiver.dataset.CommitOptions;
import io.quiver.exceptions.CommitRetriesExhaustedException;
import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.StaleReadVersionException;
import io.quiver.exceptions.StoreException;
import io.quiver.exceptions.UnsupportedFormatException;
import io.quiver.internal.codec.MetadataCodec.ManifestAndTransaction;
import io.quiver.internal.codec.MetadataCodec;
import io.quiver.internal.txn.CommittedTransaction;
import io.quiver.internal.txn.ConflictResolver;
import io.quiver.internal.txn.LedgerUpdate;
import io.quiver.internal.txn.ManifestBuilder;
import io.quiver.internal.txn.Transaction;
import io.quiver.internal.txn.TransactionRebaser;
import io.quiver.manifest.FragmentList;
import io.quiver.manifest.Manifest;
import java.util.Map;
import io.quiver.store.CommitStore.ClaimResult;
import io.quiver.store.support.Backoff;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit protocol: claim version N+1 with {@code putIfAbsent} of its manifest; on losing the race,
 * read what was committed since the read version, let the {@link ConflictResolver} decide, rebuild and
 * try again. An ambiguous store error is settled by reading the claimed version back and comparing
 * transaction uuids; a transaction found in the history under its own uuid is never committed twice.
 *
 * <p>Idempotence: on every attempt, a transaction carrying an idempotence key or an application sequence
 * ({@link CommitOptions}) is checked against the idempotence ledger of the manifest it would build on —
 * the latest version, O(1), whatever its read version and whatever a cleanup removed: a key committed
 * with the same digest, or a sequence at or below the application's watermark, returns that commit's
 * version and publishes nothing; a key committed with another digest fails with {@link
 * io.quiver.exceptions.IdempotenceKeyConflictException}. Tables written before the ledger are checked
 * through the transactions committed after the read version, and get a ledger seeded from their history
 * with their first commit by this version of Quiver.
 */
final public class CommitLoop {
  private static final Logger LOG = LoggerFactory.getLogger(CommitLoop.class);

  /** Library name and version recorded in every manifest. */
  static final String WRITER_VERSION = "quiver-java/0.1.0";

  private final TableIo io;
  private final CommitOptions options;
  private final Clock clock;
  private final Optional<String> contentDigest;
  private final ConflictResolver resolver = new ConflictResolver();
  private final ManifestBuilder builder;
  private volatile boolean claimInDoubt;
  /** Lineage files the attempt being built wrote (docs/format.md section 14.1), part of its files. */
  private final List<String> lineageFilesWritten = new java.util.concurrent.CopyOnWriteArrayList<>();
  /** Jittered exponential waits between lost races, so that contenders spread out instead of colliding again. */
  private final Backoff backoff;

  public CommitLoop(TableIo io, CommitOptions options, Clock clock) {
    this(io, options, clock, Optional.empty());
  }

  /**
   * A commit loop whose keyed commits record {@code contentDigest} (the digest of the rows an append or
   * overwrite writes) instead of the digest of the operation's encoding.
   */
  public CommitLoop(TableIo io, CommitOptions options, Clock clock, Optional<String> contentDigest) {
    this.io = io;
    this.options = options;
    this.clock = clock;
    this.contentDigest = contentDigest;
    this.backoff = Backoff.of(options.initialBackoff(), options.maxBackoff());
    this.builder = new ManifestBuilder(WRITER_VERSION, io::loadSegment, (f, config) ->
        LineageFiles.spill(io.store(), f, LineageFiles.threshold(config), lineageFilesWritten));
  }

  /**
   * Commits {@code txn}, read at {@code base} (empty when creating a table), and returns the manifest of
   * the version it was committed as.
   */
  public Manifest commit(Transaction txn, Optional<Manifest> base) {
    return commit(txn, base, TransactionRebaser.NONE);
  }

  /**
   * Commits {@code txn}; when the resolver asks for deletion files to be merged with concurrent
   * deletes, {@code rebaser} rewrites the transaction against the latest manifest (I/O lives there,
   * not in the pure resolver).
   */
  public Manifest commit(Transaction txn, Optional<Manifest> base, TransactionRebaser rebaser) {
    return commitDetailed(txn, base, rebaser).manifest();
  }

  /**
   * A commit's outcome.
   *
   * @param manifest the version the caller's handle moves to: the committed one, or, when the commit had
   *     already happened, the latest version (which holds it)
   * @param transaction the committed transaction (possibly rebased); for a commit that had already
   *     happened, that commit's transaction when its version is still present, else the caller's
   * @param version the version holding the commit
   * @param alreadyCommitted true when this call published nothing because the key or sequence was found
   */
  public record Committed(Manifest manifest, Transaction transaction, long version, boolean alreadyCommitted) {}

  /**
   * Like {@link #commit(Transaction, Optional, TransactionRebaser)}, also returning the committed
   * transaction, so callers can report on what landed without reading anything after the commit point
   * (a read there could fail and misreport a commit that happened).
   */
  public Committed commitDetailed(Transaction txn, Optional<Manifest> base, TransactionRebaser rebaser) {
    base.ifPresent(this::checkWriterFeatures);
    txn = Idempotence.tag(txn, options, contentDigest);
    // The transaction file records intent before the claim; it is what a reader of the history or a
    // cleanup job finds for a commit that never completed.
    io.store().write(txn.path(), MetadataCodec.encodeTransaction(txn));

    Instant deadline = clock.instant().plus(options.timeout());
    Optional<Manifest> latest = base;
    List<CommittedTransaction> committedSince = new ArrayList<>();
    long seededFor = -1;
    // The newest version a claim of ours found taken: it exists whatever a (lagging) listing says.
    long takenByOthers = 0;
    for (int attempt = 1; ; attempt++) {
      // Catch up with everything committed since the newest version we know. Versions are claimed one after
      // another, so those after `known` are known+1 .. the newest; one listing page finds the newest. A listing
      // that lags behind the version we lost would send us back to claim it again, attempt after attempt.
      long known = latest.map(Manifest::version).orElse(0L);
      long head = Math.max(io.commitStore().latestVersion().orElse(0L), takenByOthers);
      Optional<Manifest> newest = head > known ? Optional.of(io.load(head).manifest()) : Optional.empty();
      if (newest.isPresent()) {
        // The ledger of the version we would build on answers first: it knows the key's or the sequence's
        // commit (and the watermark's version) whatever the versions in between say or whether they exist.
        Optional<Idempotence.Already> already = Idempotence.inLedger(txn, newest.get(), io.location());
        if (already.isPresent()) {
          return alreadyCommitted(txn, newest.get(), already.get());
        }
      }
      // Only transactions are needed to check each version (read in parallel); only the newest manifest is
      // built upon.
      List<Optional<Transaction>> since = head > known + 1 ? io.loadTransactions(known + 1, head - 1) : List.of();
      List<Long> removed = new ArrayList<>();
      for (int i = 0; i < since.size(); i++) {
        if (since.get(i).isEmpty()) {
          removed.add(known + 1 + i);
        }
      }
      if (!removed.isEmpty()) {
        // Cleanup removed versions we have not seen: their transactions cannot be checked against ours.
        throw new StaleReadVersionException(
            known, removed.get(removed.size() - 1) + 1,
            "cannot commit " + txn.operation().name() + " " + txn.uuid() + " to " + io.location() + ": "
                + describe(removed) + " committed after version " + known
                + " and removed by a cleanup, so conflicts with them cannot be checked. Nothing was committed;"
                + " re-open the latest version (" + head + "), redo the change and commit again."
                + (tracked(txn) ? " Its idempotence key or application sequence is not in the latest version's"
                    + " ledger; findCommit tells whether an earlier attempt may have committed." : ""));
      }
      if (newest.isPresent()) {
        since = new ArrayList<>(since);
        since.add(Optional.of(io.loadTransaction(head)));
      }
      for (int i = 0; i < since.size(); i++) {
        long version = known + 1 + i;
        Transaction committed = since.get(i).orElseThrow();
        if (committed.uuid().equals(txn.uuid())) {
          LOG.debug("transaction {} found committed as version {}", txn.uuid(), version);
          return new Committed(io.load(version).manifest(), committed, version, false);
        }
        if (Idempotence.sameCommit(txn, version, committed, io.location())) {
          LOG.debug("idempotence key of transaction {} found committed as version {}", txn.uuid(), version);
          return new Committed(io.load(version).manifest(), committed, version, true);
        }
        committedSince.add(new CommittedTransaction(version, committed));
      }
      if (newest.isPresent()) {
        latest = newest;
      }
      if (latest.isPresent()) {
        checkWriterFeatures(latest.get());
        if (latest.get().ledger().isEmpty() && latest.get().version() != seededFor) {
          // A table written before the ledger: start it from the history still present.
          seededFor = latest.get().version();
          latest = Optional.of(latest.get().withLedger(Idempotence.seed(io, latest.get())));
        }
        if (newest.isEmpty() || latest.get().version() == seededFor) {
          // Nothing newer was read this attempt (or the ledger was just seeded): ask the base's ledger.
          Optional<Idempotence.Already> already = Idempotence.inLedger(txn, latest.get(), io.location());
          if (already.isPresent()) {
            return alreadyCommitted(txn, latest.get(), already.get());
          }
        }
      }
      ConflictResolver.Resolution resolution = resolver.check(txn, committedSince);
      if (!resolution.isCompatible()) {
        txn = rebaser.rebase(txn, latest.orElseThrow(), resolution.deletionRebaseFragments());
      }

      lineageFilesWritten.clear();
      Manifest next = builder.build(latest, txn, clock.instant());
      MetadataCodec.EncodedVersion encoded = MetadataCodec.encodeVersion(next, txn);
      // A segmented version's segments and root are written before the claim: once the version file exists,
      // everything it names does. So are the lineage files the builder wrote.
      List<String> attemptFiles = new ArrayList<>(lineageFilesWritten);
      attemptFiles.addAll(writeSegmentsAndRoot(next, encoded));
      ClaimResult result;
      boolean settled = false;
      claimInDoubt = true;
      try {
        result = io.commitStore().claim(next.version(), encoded.versionFile());
      } catch (StoreException e) {
        settled = true;
        result = settleAmbiguousClaim(next.version(), txn, e);
      }
      claimInDoubt = false;
      if (result == ClaimResult.CLAIMED) {
        if (next.fragments() instanceof FragmentList list) {
          io.cacheWritten(list);
          next = next.withFragments(list.written());
        }
        // Only for segmented versions, whose version files are small; a single-file version's file is its whole
        // manifest, so reading a block of them would cost as much as 63 commits.
        if (encoded.root().isPresent() && TransactionBatches.completes(next.version())) {
          TransactionBatches.writeAfterCommit(io, next.version(), encoded.versionFile());
        }
        return new Committed(next, txn, next.version(), false);
      }
      if (!settled) {
        // Another writer holds the version: this attempt's segments and root are referenced by nothing. (After
        // an ambiguous claim they are kept: a put that seemed not to happen may still land.)
        deleteQuietly(attemptFiles);
        takenByOthers = Math.max(takenByOthers, next.version());
      }
      if (attempt >= options.maxAttempts() || clock.instant().isAfter(deadline)) {
        throw new CommitRetriesExhaustedException(
            "could not commit " + txn.operation().name() + " " + txn.uuid() + " to " + io.location() + " after "
                + attempt + " attempts (limit " + options.maxAttempts() + ", timeout " + options.timeout()
                + "): other writers kept winning the race for the next version. Nothing was committed; retry,"
                + " or raise CommitOptions.maxAttempts/timeout.");
      }
      backoff(attempt);
    }
  }

  /**
   * True when the last call to {@link #commitDetailed} failed while a claim was unsettled: the claim (or the
   * read-back that settles an ambiguous one) threw something other than an answer, so the version may hold
   * the commit. Set just before a version is claimed and cleared once the store answered or the read-back
   * settled it; a failure anywhere else (a conflict, a stale read version, a store error before or between
   * claims) leaves it false and proves nothing was published. {@link CommitStateUnknownException} is
   * always thrown with it set.
   */
  public boolean claimInDoubt() {
    return claimInDoubt;
  }

  private Committed alreadyCommitted(Transaction txn, Manifest latest, Idempotence.Already already) {
    LOG.debug("{} of transaction {} found committed as version {} in the ledger of version {}", already.reason(),
        txn.uuid(), already.version(), latest.version());
    Transaction found = already.version() == latest.version() ? io.loadTransaction(latest.version())
        : io.tryLoad(already.version()).map(ManifestAndTransaction::transaction).orElse(txn);
    return new Committed(latest, found, already.version(), true);
  }

  /** "version 4 was", "versions 4..6 were" or "versions 4, 6..7 were" (ascending versions). */
  private static String describe(List<Long> versions) {
    List<String> runs = new ArrayList<>();
    for (int i = 0; i < versions.size(); ) {
      int j = i;
      while (j + 1 < versions.size() && versions.get(j + 1) == versions.get(j) + 1) {
        j++;
      }
      runs.add(i == j ? String.valueOf(versions.get(i)) : versions.get(i) + ".." + versions.get(j));
      i = j + 1;
    }
    return (versions.size() == 1 ? "version " : "versions ") + String.join(", ", runs)
        + (versions.size() == 1 ? " was" : " were");
  }

  private static boolean tracked(Transaction txn) {
    return txn.properties().containsKey(LedgerUpdate.KEY_PROPERTY)
        || txn.properties().containsKey(LedgerUpdate.APPLICATION_PROPERTY);
  }

  private void checkWriterFeatures(Manifest m) {
    for (String feature : m.writerFeatures()) {
      if (!Manifest.KNOWN_FEATURES.contains(feature)) {
        throw new UnsupportedFormatException(
            "table " + io.location() + " requires writer feature '" + feature
                + "', which this version of Quiver does not implement; upgrade Quiver to write to it");
      }
    }
  }

  /**
   * The claim threw: the manifest may or may not be there. Read it back: ours means success; someone
   * else's means we lost; absent means the put did not happen, and the next attempt retries it.
   */
  private ClaimResult settleAmbiguousClaim(long version, Transaction txn, StoreException cause) {
    Optional<byte[]> back;
    try {
      back = io.commitStore().read(version);
    } catch (QuiverException readFailure) {
      readFailure.addSuppressed(cause);
      Optional<String> key = cause instanceof CommitStateUnknownException unknown ? unknown.key() : Optional.empty();
      throw new CommitStateUnknownException(io.location(), key, version, txn.uuid(),
          txn.properties().get(CommitOptions.IDEMPOTENCE_KEY_PROPERTY),
          "claiming the version failed ambiguously (" + (cause instanceof CommitStateUnknownException unknown
              ? unknown.detail() : cause.getMessage()) + ") and reading it back failed too ("
              + readFailure.getMessage() + ")",
          readFailure);
    }
    if (back.isEmpty()) {
      LOG.debug("ambiguous claim of version {} left nothing; retrying", version);
      return ClaimResult.ALREADY_CLAIMED;
    }
    String location = io.commitStore().locationOf(version);
    Transaction found = MetadataCodec.decodeManifestTransaction(back.get(), location);
    if (found.uuid().equals(txn.uuid())) {
      LOG.debug("ambiguous claim of version {} was ours", version);
      return ClaimResult.CLAIMED;
    }
    return ClaimResult.ALREADY_CLAIMED;
  }

  /** Writes the segments a segmented version built and its root; returns their keys (none for a single file). */
  private List<String> writeSegmentsAndRoot(Manifest next, MetadataCodec.EncodedVersion encoded) {
    if (encoded.root().isEmpty()) {
      return List.of();
    }
    List<String> written = new ArrayList<>();
    FragmentList fragments = (FragmentList) next.fragments();
    for (Map.Entry<String, FragmentList.Unwritten> e : fragments.unwritten().entrySet()) {
      io.store().write(e.getKey(), e.getValue().encoded());
      written.add(e.getKey());
    }
    for (Map.Entry<String, byte[]> e : fragments.unwrittenLists().entrySet()) {
      io.store().write(e.getKey(), e.getValue());
      written.add(e.getKey());
    }
    io.store().write(encoded.root().get().path(), encoded.root().get().bytes());
    written.add(encoded.root().get().path());
    return written;
  }

  private void deleteQuietly(List<String> keys) {
    if (keys.isEmpty()) {
      return;
    }
    try {
      List<String> left = io.store().deleteAll(keys);
      if (!left.isEmpty()) {
        LOG.debug("could not delete {} files of a lost commit attempt; cleanup removes them", left.size());
      }
    } catch (QuiverException e) {
      LOG.debug("could not delete the files of a lost commit attempt ({}); cleanup removes them", e.getMessage());
    }
  }

  private void backoff(int attempt) {
    try {
      backoff.pause(attempt);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CommitRetriesExhaustedException(
          "interrupted while waiting to retry a commit (attempt " + attempt + "); nothing was committed");
    }
  }
}
