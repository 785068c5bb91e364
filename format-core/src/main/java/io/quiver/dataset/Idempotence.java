package io.quiver.dataset;

import io.quiver.codec.MetadataCodec.ManifestAndTransaction;
import io.quiver.codec.WriteResultCodec;
import io.quiver.exceptions.IdempotenceKeyConflictException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.txn.Operation;
import io.quiver.txn.Transaction;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Idempotence keys: recording them in a transaction, recognising them in the history. */
final class Idempotence {
  /** Default number of versions {@link Dataset#findCommit(String)} looks at. */
  static final int DEFAULT_SEARCH_DEPTH = 1000;

  private Idempotence() {}

  /** {@code txn} with the key and its operation's digest in its reserved properties. */
  static Transaction tag(Transaction txn, String key) {
    Map<String, String> properties = new HashMap<>(txn.properties());
    properties.put(CommitOptions.IDEMPOTENCE_KEY_PROPERTY, key);
    properties.put(CommitOptions.OPERATION_DIGEST_PROPERTY, WriteResultCodec.operationDigest(txn.operation()));
    return new Transaction(txn.uuid(), txn.readVersion(), txn.operation(), properties);
  }

  /**
   * Whether {@code committed} (at {@code version}) was committed under {@code txn}'s idempotence key: true
   * when it was, with the same operation digest; false when it carries another key or none.
   *
   * @throws IdempotenceKeyConflictException when it carries the key with another digest
   */
  static boolean sameCommit(Transaction txn, long version, Transaction committed, String location) {
    String key = txn.properties().get(CommitOptions.IDEMPOTENCE_KEY_PROPERTY);
    if (key == null || !key.equals(committed.properties().get(CommitOptions.IDEMPOTENCE_KEY_PROPERTY))) {
      return false;
    }
    String digest = txn.properties().get(CommitOptions.OPERATION_DIGEST_PROPERTY);
    String found = committed.properties().get(CommitOptions.OPERATION_DIGEST_PROPERTY);
    if (digest != null && digest.equals(found)) {
      return true;
    }
    throw new IdempotenceKeyConflictException(key, version,
        "idempotence key '" + key + "' was already used by version " + version + " of " + location + " ("
            + committed.operation().name() + ", operation digest " + found + ") but this "
            + txn.operation().name() + " differs (digest " + digest + "). Nothing was committed. Retry with exactly"
            + " the same content (for example the same staged write results) or use a new key for new content.");
  }

  /** Searches the newest {@code depth} versions, newest first, reading manifests only. */
  static Optional<CommitRecord> find(TableIo io, String key, int depth) {
    if (key == null || key.isEmpty()) {
      throw new InvalidArgumentException("an idempotence key must not be null or empty");
    }
    if (depth < 1) {
      throw new InvalidArgumentException("the search depth must be >= 1, got " + depth);
    }
    List<Long> versions = io.commitStore().listVersions(depth);
    for (long v : versions) {
      Optional<ManifestAndTransaction> loaded = io.tryLoad(v);
      if (loaded.isEmpty()) {
        continue;
      }
      Transaction t = loaded.get().transaction();
      if (key.equals(t.properties().get(CommitOptions.IDEMPOTENCE_KEY_PROPERTY))) {
        return Optional.of(new CommitRecord(v, key, t.uuid(), t.operation().name(),
            t.properties().getOrDefault(CommitOptions.OPERATION_DIGEST_PROPERTY, ""),
            loaded.get().manifest().timestamp()));
      }
    }
    return Optional.empty();
  }

  /** The digest a commit of {@code op} records. */
  static String digest(Operation op) {
    return WriteResultCodec.operationDigest(op);
  }
}
