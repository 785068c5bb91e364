package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How hard a commit tries to win the race for the next version, and what it records.
 *
 * @param maxAttempts attempts to claim a version before giving up with {@link
 *     io.quiver.exceptions.CommitRetriesExhaustedException}
 * @param timeout total time allowed for one commit, retries included
 * @param initialBackoff first wait after losing a race; doubles per lost attempt, with jitter
 * @param maxBackoff cap of one wait
 * @param properties transaction properties to record (keys starting with {@code quiver.} are
 *     reserved)
 * @param idempotenceKey when present, the commit is idempotent under this key: it is recorded in the
 *     transaction properties (reserved key {@value #IDEMPOTENCE_KEY_PROPERTY}, with the operation's digest
 *     under {@value #OPERATION_DIGEST_PROPERTY}), and a commit that finds the key in a transaction committed
 *     after its read version returns that version instead of committing again — or fails with {@link
 *     io.quiver.exceptions.IdempotenceKeyConflictException} if that transaction's operation differs
 */
public record CommitOptions(
    int maxAttempts, Duration timeout, Duration initialBackoff, Duration maxBackoff, Map<String, String> properties,
    Optional<String> idempotenceKey) {

  /** Reserved transaction property holding a commit's idempotence key. */
  public static final String IDEMPOTENCE_KEY_PROPERTY = "quiver.idempotence-key";

  /** Reserved transaction property holding the SHA-256 (hex) of an idempotent commit's operation. */
  public static final String OPERATION_DIGEST_PROPERTY = "quiver.operation-digest";

  /** Options without an idempotence key. */
  public CommitOptions(
      int maxAttempts, Duration timeout, Duration initialBackoff, Duration maxBackoff, Map<String, String> properties) {
    this(maxAttempts, timeout, initialBackoff, maxBackoff, properties, Optional.empty());
  }

  public CommitOptions {
    if (maxAttempts < 1) {
      throw new InvalidArgumentException("maxAttempts must be >= 1, got " + maxAttempts);
    }
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(initialBackoff, "initialBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    if (timeout.isNegative() || initialBackoff.isNegative() || maxBackoff.isNegative()) {
      throw new InvalidArgumentException("commit durations must not be negative");
    }
    properties = Map.copyOf(properties);
    Objects.requireNonNull(idempotenceKey, "idempotenceKey");
    idempotenceKey.ifPresent(key -> {
      if (key.isEmpty() || key.length() > 1024) {
        throw new InvalidArgumentException(
            "an idempotence key must hold 1 to 1024 characters, got " + key.length() + "; use e.g. jobId/checkpointId");
      }
    });
    for (String key : properties.keySet()) {
      if (key.startsWith(io.quiver.txn.Transaction.RESERVED_PROPERTY_PREFIX)) {
        throw new InvalidArgumentException(
            "transaction property '" + key + "' uses the reserved prefix 'quiver.'; choose another key");
      }
    }
  }

  /** 20 attempts within 60 s, backing off from 10 ms up to 1 s. */
  public static CommitOptions defaults() {
    return new CommitOptions(20, Duration.ofSeconds(60), Duration.ofMillis(10), Duration.ofSeconds(1), Map.of());
  }

  public CommitOptions withMaxAttempts(int attempts) {
    return new CommitOptions(attempts, timeout, initialBackoff, maxBackoff, properties, idempotenceKey);
  }

  public CommitOptions withTimeout(Duration newTimeout) {
    return new CommitOptions(maxAttempts, newTimeout, initialBackoff, maxBackoff, properties, idempotenceKey);
  }

  public CommitOptions withBackoff(Duration initial, Duration max) {
    return new CommitOptions(maxAttempts, timeout, initial, max, properties, idempotenceKey);
  }

  public CommitOptions withProperties(Map<String, String> newProperties) {
    return new CommitOptions(maxAttempts, timeout, initialBackoff, maxBackoff, newProperties, idempotenceKey);
  }

  /**
   * These options with an idempotence key (for example {@code jobId/checkpointId}): retrying the same
   * commit with the same key never commits twice. Set a key per commit, never in {@link
   * DatasetOptions#commitOptions()}: every commit made with those defaults would share it.
   *
   * @throws InvalidArgumentException for an empty key or one longer than 1024 characters
   */
  public CommitOptions withIdempotenceKey(String key) {
    return new CommitOptions(maxAttempts, timeout, initialBackoff, maxBackoff, properties,
        Optional.of(Objects.requireNonNull(key, "key")));
  }

  /** These options without an idempotence key. */
  public CommitOptions withoutIdempotenceKey() {
    return new CommitOptions(maxAttempts, timeout, initialBackoff, maxBackoff, properties, Optional.empty());
  }
}
