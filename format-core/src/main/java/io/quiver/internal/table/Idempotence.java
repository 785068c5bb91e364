package io.quiver.internal.table;

import io.quiver.dataset.ApplicationSequence;
import io.quiver.dataset.CommitLookup;
import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.CommitRecord;
import io.quiver.dataset.WriteMode;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.IdempotenceKeyConflictException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.codec.WriteResultCodec;
import io.quiver.internal.txn.LedgerUpdate;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.Transaction;
import io.quiver.internal.write.RowDigest;
import io.quiver.manifest.CommitLedger;
import io.quiver.manifest.Manifest;
import io.quiver.schema.Schema;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Idempotence keys and application sequences: recording them in a transaction, and answering "was this
 * already committed?" from the idempotence ledger every manifest carries ({@link CommitLedger}), with the
 * history of versions as the fallback for tables written before the ledger existed.
 */
final public class Idempotence {
  private Idempotence() {}

  /**
   * {@code txn} with {@code options}' key (and the digest of what it commits: {@code contentDigest} when the
   * caller digested the rows, else the operation's encoding) and application sequence in its reserved
   * properties.
   */
  static Transaction tag(Transaction txn, CommitOptions options, Optional<String> contentDigest) {
    if (options.idempotenceKey().isEmpty() && options.applicationSequence().isEmpty()) {
      return txn;
    }
    Map<String, String> properties = new HashMap<>(txn.properties());
    options.idempotenceKey().ifPresent(key -> {
      properties.put(LedgerUpdate.KEY_PROPERTY, key);
      properties.put(LedgerUpdate.DIGEST_PROPERTY, contentDigest.orElseGet(() -> operationDigest(txn.operation())));
    });
    options.applicationSequence().ifPresent(s -> {
      properties.put(LedgerUpdate.APPLICATION_PROPERTY, s.applicationId());
      properties.put(LedgerUpdate.SEQUENCE_PROPERTY, Long.toString(s.sequence()));
    });
    return new Transaction(txn.uuid(), txn.readVersion(), txn.operation(), properties);
  }

  /** A commit that already happened: its version, and the latest manifest (which holds it). */
  public record Already(long version, String reason) {}

  /**
   * Whether {@code txn}'s key or application sequence is already committed according to {@code latest}'s
   * ledger. Empty when it is not, or when {@code latest} has no ledger (the caller then relies on the
   * transactions committed after the read version).
   *
   * @throws IdempotenceKeyConflictException when the ledger holds the key with another digest
   */
  static Optional<Already> inLedger(Transaction txn, Manifest latest, String location) {
    if (latest.ledger().isEmpty()) {
      return Optional.empty();
    }
    CommitLedger ledger = latest.ledger().get();
    String key = txn.properties().get(LedgerUpdate.KEY_PROPERTY);
    if (key != null) {
      Optional<CommitLedger.KeyEntry> entry = ledger.find(key);
      if (entry.isPresent()) {
        CommitLedger.KeyEntry e = entry.get();
        String digest = txn.properties().get(LedgerUpdate.DIGEST_PROPERTY);
        if (!e.digest().equals(digest)) {
          throw conflict(key, e.version(), e.operation(), e.digest(), txn, digest, location);
        }
        return Optional.of(new Already(e.version(), "idempotence key '" + key + "'"));
      }
    }
    Optional<ApplicationSequence> seq = LedgerUpdate.applicationSequence(txn);
    if (seq.isPresent()) {
      Optional<CommitLedger.SequenceWatermark> mark = ledger.watermark(seq.get().applicationId());
      if (mark.isPresent() && mark.get().sequence() >= seq.get().sequence()) {
        return Optional.of(new Already(mark.get().version(), "application '" + seq.get().applicationId()
            + "' sequence " + seq.get().sequence() + " (watermark " + mark.get().sequence() + ")"));
      }
    }
    return Optional.empty();
  }

  /**
   * Whether the results' commit under {@code options}' key or sequence is already in the latest version's
   * ledger; empty when there is no key or sequence, no ledger, or no entry.
   *
   * @throws IdempotenceKeyConflictException when the ledger holds the key with another digest
   */
  static public Optional<Already> inLatestLedger(TableIo io, List<WriteResult> results, WriteMode mode,
      CommitOptions options, Optional<String> rowsDigest, Map<String, String> properties) {
    if (options.idempotenceKey().isEmpty() && options.applicationSequence().isEmpty()) {
      return Optional.empty();
    }
    List<io.quiver.manifest.Fragment> fragments = DistributedCommits.fragments(results);
    Operation op = mode == WriteMode.OVERWRITE
        ? new Operation.Overwrite(results.get(0).schema(), fragments, Map.of())
        : new Operation.Append(fragments);
    return inLatestLedger(io, op, options, rowsDigest, properties);
  }

  /**
   * Whether a commit of {@code op} under {@code options}' key or sequence, with {@code contentDigest}, is
   * already in the latest version's ledger; empty when there is no key or sequence, no ledger, or no entry.
   *
   * @throws IdempotenceKeyConflictException when the ledger holds the key with another digest
   */
  static public Optional<Already> inLatestLedger(TableIo io, Operation op, CommitOptions options,
      Optional<String> contentDigest, Map<String, String> properties) {
    if (options.idempotenceKey().isEmpty() && options.applicationSequence().isEmpty()) {
      return Optional.empty();
    }
    Optional<Long> latestVersion = io.commitStore().latestVersion();
    if (latestVersion.isEmpty()) {
      return Optional.empty();
    }
    Manifest latest = io.load(latestVersion.get()).manifest();
    if (latest.ledger().isEmpty()) {
      return Optional.empty();
    }
    Transaction probe = tag(new Transaction("0", 0, op, properties), options, contentDigest);
    return inLedger(probe, latest, io.location());
  }

  /**
   * Whether {@code committed} (at {@code version}, a version after {@code txn}'s read version) is {@code
   * txn}'s commit by key or application sequence: the history check for versions whose ledger cannot
   * answer (tables written before the ledger).
   *
   * @throws IdempotenceKeyConflictException when it carries the key with another digest
   */
  static boolean sameCommit(Transaction txn, long version, Transaction committed, String location) {
    String key = txn.properties().get(LedgerUpdate.KEY_PROPERTY);
    if (key != null && key.equals(committed.properties().get(LedgerUpdate.KEY_PROPERTY))) {
      String digest = txn.properties().get(LedgerUpdate.DIGEST_PROPERTY);
      String found = committed.properties().get(LedgerUpdate.DIGEST_PROPERTY);
      if (digest != null && digest.equals(found)) {
        return true;
      }
      throw conflict(key, version, committed.operation().name(), found, txn, digest, location);
    }
    Optional<ApplicationSequence> ours = LedgerUpdate.applicationSequence(txn);
    Optional<ApplicationSequence> theirs = LedgerUpdate.applicationSequence(committed);
    return ours.isPresent() && theirs.isPresent() && ours.get().applicationId().equals(theirs.get().applicationId())
        && theirs.get().sequence() >= ours.get().sequence();
  }

  private static IdempotenceKeyConflictException conflict(String key, long version, String operation,
      String found, Transaction txn, String digest, String location) {
    return new IdempotenceKeyConflictException(key, version,
        "idempotence key '" + key + "' was already used by version " + version + " of " + location + " ("
            + operation + ", digest " + found + ") but this " + txn.operation().name() + " differs (digest " + digest
            + "): it commits other content. Nothing was committed. If this is a retry of that commit, it already"
            + " happened: use version " + version + ". Otherwise use a new key for new content.");
  }

  /**
   * Why an append computed at {@code readVersion} with {@code readSchema} may be committed on {@code
   * latest} although the versions in between were removed by a cleanup — empty when it may: no commit since replaced the
   * table, the schema is the same (so no field it writes was dropped, re-typed or tightened, and no column
   * it lacks was added), and, when it is keyed or sequenced, the ledger covers every commit since its read
   * version (so an earlier attempt would have been found). An append is compatible with every other
   * operation (docs/conflict-matrix.md), so nothing else can make it wrong.
   */
  static Optional<String> appendCannotSkip(
      Operation op, long readVersion, boolean tracked, Schema readSchema, Manifest latest) {
    if (!(op instanceof Operation.Append)) {
      return Optional.of("only appends can be committed across removed versions");
    }
    return appendCannotSkip(readVersion, tracked, Optional.of(readSchema), latest);
  }

  /**
   * Why an append read at {@code readVersion} may not be built on {@code latest} without checking the
   * commits in between — as {@link #appendCannotSkip(Operation, long, boolean, Schema, Manifest)}, but
   * with the schema compared only when {@code sameSchemaAs} is present (a caller that accepts an older,
   * compatible schema checks it itself).
   */
  static Optional<String> appendCannotSkip(
      long readVersion, boolean tracked, Optional<Schema> sameSchemaAs, Manifest latest) {
    if (latest.ledger().isEmpty()) {
      return Optional.of("version " + latest.version() + " predates the idempotence ledger, which records when the"
          + " table was last replaced");
    }
    CommitLedger ledger = latest.ledger().get();
    if (ledger.lastReplaceVersion() > readVersion) {
      return Optional.of("version " + ledger.lastReplaceVersion() + " replaced the table (overwrite or restore)"
          + " after the read version");
    }
    if (sameSchemaAs.isPresent() && !sameSchemaAs.get().equals(latest.schema())) {
      return Optional.of("the schema changed since the read version");
    }
    if (tracked && !ledger.coversCommitsAfter(readVersion)) {
      return Optional.of("the idempotence ledger is complete only from version " + ledger.completeFromVersion()
          + ", so an earlier commit of this key may have expired from it");
    }
    return Optional.empty();
  }

  /**
   * Answers "was {@code key} committed by an attempt computed at {@code attemptReadVersion}?" from the
   * latest version's ledger (or, for tables without one, from every version still present).
   */
  static public CommitLookup find(TableIo io, String key, long attemptReadVersion) {
    if (key == null || key.isEmpty()) {
      throw new InvalidArgumentException("an idempotence key must not be null or empty");
    }
    if (attemptReadVersion < 0) {
      throw new InvalidArgumentException("the attempt's read version must be >= 0, got " + attemptReadVersion);
    }
    List<Long> versions = io.commitStore().listVersions(Integer.MAX_VALUE); // newest first
    if (versions.isEmpty()) {
      throw new io.quiver.exceptions.TableNotFoundException("no Quiver table at " + io.location());
    }
    long latestVersion = versions.get(0);
    Manifest latest = io.load(latestVersion).manifest();
    if (latest.ledger().isPresent()) {
      CommitLedger ledger = latest.ledger().get();
      Optional<CommitLedger.KeyEntry> e = ledger.find(key);
      if (e.isPresent()) {
        return CommitLookup.committed(new CommitRecord(e.get().version(), key, e.get().transactionUuid(),
            e.get().operation(), e.get().digest(), Instant.ofEpochMilli(e.get().timestampMillis())),
            latestVersion, ledger.completeFromVersion(), attemptReadVersion);
      }
      return CommitLookup.absent(latestVersion, ledger.completeFromVersion(), attemptReadVersion);
    }
    // A table written before the ledger: every version still present, newest first.
    for (long v : versions) {
      Optional<io.quiver.internal.codec.MetadataCodec.ManifestAndTransaction> loaded = io.tryLoad(v);
      if (loaded.isEmpty()) {
        continue;
      }
      Transaction t = loaded.get().transaction();
      if (key.equals(t.properties().get(LedgerUpdate.KEY_PROPERTY))) {
        return CommitLookup.committed(new CommitRecord(v, key, t.uuid(), t.operation().name(),
            t.properties().getOrDefault(LedgerUpdate.DIGEST_PROPERTY, ""), loaded.get().manifest().timestamp()),
            latestVersion, versions.get(versions.size() - 1), attemptReadVersion);
      }
    }
    return CommitLookup.absent(latestVersion, versions.get(versions.size() - 1), attemptReadVersion);
  }

  /**
   * A ledger for a table written before the ledger existed, seeded from the versions still present: their
   * keys and sequences (within the retention), complete from the oldest of them.
   */
  static CommitLedger seed(TableIo io, Manifest latest) {
    List<Long> versions = io.commitStore().listVersions(Integer.MAX_VALUE); // newest first
    Map<String, CommitLedger.KeyEntry> keys = new LinkedHashMap<>();
    Map<String, CommitLedger.SequenceWatermark> sequences = new TreeMap<>();
    long oldest = latest.version();
    long lastReplace = 0;
    for (long v : versions) {
      if (v > latest.version()) {
        continue;
      }
      Optional<io.quiver.internal.codec.MetadataCodec.ManifestAndTransaction> loaded = io.tryLoad(v);
      if (loaded.isEmpty()) {
        break; // removed since the listing: older versions are not seen, so completeness stops here
      }
      oldest = v;
      Transaction t = loaded.get().transaction();
      long millis = loaded.get().manifest().timestamp().toEpochMilli();
      String key = t.properties().get(LedgerUpdate.KEY_PROPERTY);
      if (key != null && !keys.containsKey(key)) {
        keys.put(key, new CommitLedger.KeyEntry(key, v, t.operation().name(),
            t.properties().getOrDefault(LedgerUpdate.DIGEST_PROPERTY, operationDigest(t.operation())), millis,
            t.uuid()));
      }
      LedgerUpdate.applicationSequence(t).ifPresent(s -> sequences.putIfAbsent(s.applicationId(),
          new CommitLedger.SequenceWatermark(s.applicationId(), s.sequence(), v, millis)));
      if (lastReplace == 0 && (t.operation() instanceof Operation.Overwrite
          || t.operation() instanceof Operation.Restore)) {
        lastReplace = v;
      }
    }
    // Without seeing the table's whole history, assume it was replaced just before what we saw.
    long replace = lastReplace > 0 ? lastReplace : oldest;
    return new CommitLedger(keys, sequences, oldest, replace);
  }

  /** The digest an append of {@code results} records: of their rows when every result carries a rows digest. */
  static public String appendDigest(List<WriteResult> results) {
    return rowsDigest("append", results).orElseGet(
        () -> operationDigest(new Operation.Append(DistributedCommits.fragments(results))));
  }

  /** The rows digest of {@code results} under {@code kind}, if every result carries one. */
  static public Optional<String> rowsDigest(String kind, List<WriteResult> results) {
    DistributedCommits.fragments(results);
    RowDigest sum = new RowDigest();
    for (WriteResult r : results) {
      if (r.rowsDigest().isEmpty()) {
        return Optional.empty();
      }
      WriteResult.RowsDigest d = r.rowsDigest().get();
      sum.add(new RowDigest(d.rows(), d.sumA(), d.sumB()));
    }
    return Optional.of(sum.hex(kind, results.get(0).schema()));
  }

  /** SHA-256 (hex) of an operation's encoding: the digest of keyed operations other than appends and overwrites. */
  static String operationDigest(Operation op) {
    return WriteResultCodec.operationDigest(op);
  }
}
