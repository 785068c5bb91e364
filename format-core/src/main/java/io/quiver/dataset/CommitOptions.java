package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.txn.LedgerUpdate;
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
 * @param idempotenceKey when present, the commit is idempotent under this key: the key and a digest of
 *     what is committed (for appends and overwrites, of the rows themselves, so a retry that rewrote the
 *     same rows into new files has the same digest) enter the table's idempotence ledger, which every later
 *     version carries for the table's retention ({@code idempotence.retention}, default 7 days). A commit
 *     whose key the latest version's ledger holds returns that commit's version and publishes nothing —
 *     from any handle, process or read version — or fails with {@link
 *     io.quiver.exceptions.IdempotenceKeyConflictException} when the digest differs
 * @param applicationSequence when present, the commit advances an application's sequence watermark (a
 *     streaming query's epoch, a job's checkpoint id): a commit whose sequence is at or below the
 *     application's watermark in the latest version is reported as already committed (the watermark's
 *     version is returned) and publishes nothing
 */
public record CommitOptions(
    int maxAttempts, Duration timeout, Duration initialBackoff, Duration maxBackoff, Map<String, String> properties,
    Optional<String> idempotenceKey, Optional<ApplicationSequence> applicationSequence) {

  /** Reserved transaction property holding a commit's idempotence key. */
  public static final String IDEMPOTENCE_KEY_PROPERTY = LedgerUpdate.KEY_PROPERTY;

  /** Reserved transaction property holding the SHA-256 (hex) of what an idempotent commit commits. */
  public static final String OPERATION_DIGEST_PROPERTY = LedgerUpdate.DIGEST_PROPERTY;

  /** Options without an idempotence key or application sequence. */
  public CommitOptions(
      int maxAttempts, Duration timeout, Duration initialBackoff, Duration maxBackoff, Map<String, String> properties) {
    this(maxAttempts, timeout, initialBackoff, maxBackoff, properties, Optional.empty(), Optional.empty());
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
    Objects.requireNonNull(applicationSequence, "applicationSequence");
    idempotenceKey.ifPresent(key -> {
      if (key.isEmpty() || key.length() > 1024) {
        throw new InvalidArgumentException(
            "an idempotence key must hold 1 to 1024 characters, got " + key.length() + "; use e.g. jobId/checkpointId");
      }
    });
    applicationSequence.ifPresent(s -> {
      if (s.applicationId().isEmpty() || s.applicationId().length() > 1024) {
        throw new InvalidArgumentException("an application id must hold 1 to 1024 characters, got "
            + s.applicationId().length() + "; use e.g. the streaming query's or the Flink job's id");
      }
      if (s.sequence() < 0) {
        throw new InvalidArgumentException(
            "an application sequence must be >= 0, got " + s.sequence() + " for application '" + s.applicationId() + "'");
      }
    });
    for (String key : properties.keySet()) {
      if (key.startsWith(io.quiver.internal.txn.Transaction.RESERVED_PROPERTY_PREFIX)) {
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
    return new CommitOptions(
        attempts, timeout, initialBackoff, maxBackoff, properties, idempotenceKey, applicationSequence);
  }

  public CommitOptions withTimeout(Duration newTimeout) {
    return new CommitOptions(
        maxAttempts, newTimeout, initialBackoff, maxBackoff, properties, idempotenceKey, applicationSequence);
  }

  public CommitOptions withBackoff(Duration initial, Duration max) {
    return new CommitOptions(maxAttempts, timeout, initial, max, properties, idempotenceKey, applicationSequence);
  }

  public CommitOptions withProperties(Map<String, String> newProperties) {
    return new CommitOptions(
        maxAttempts, timeout, initialBackoff, maxBackoff, newProperties, idempotenceKey, applicationSequence);
  }

  /**
   * These options with an idempotence key (for example {@code jobId/checkpointId}): retrying the same
   * commit with the same key never commits twice, for as long as the table's ledger keeps the key. Set a
   * key per commit, never in {@link DatasetOptions#commitOptions()}: every commit made with those defaults
   * would share it.
   *
   * @throws InvalidArgumentException for an empty key or one longer than 1024 characters
   */
  public CommitOptions withIdempotenceKey(String key) {
    return new CommitOptions(maxAttempts, timeout, initialBackoff, maxBackoff, properties,
        Optional.of(Objects.requireNonNull(key, "key")), applicationSequence);
  }

  /** These options without an idempotence key. */
  public CommitOptions withoutIdempotenceKey() {
    return new CommitOptions(
        maxAttempts, timeout, initialBackoff, maxBackoff, properties, Optional.empty(), applicationSequence);
  }

  /**
   * These options advancing {@code applicationId}'s sequence watermark to {@code sequence}. For engines that
   * commit a monotonic sequence (a streaming query's epochs, a Flink job's checkpoint ids): the table keeps
   * each application's highest committed sequence ({@link DistributedWrites#applicationWatermark}), and a
   * commit at or below it is skipped — its version is the watermark's, nothing is published. Sequences need
   * not be contiguous; they must only grow.
   *
   * @throws InvalidArgumentException for an empty id, one over 1024 characters, or a negative sequence
   */
  public CommitOptions withApplicationSequence(String applicationId, long sequence) {
    return new CommitOptions(maxAttempts, timeout, initialBackoff, maxBackoff, properties, idempotenceKey,
        Optional.of(new ApplicationSequence(Objects.requireNonNull(applicationId, "applicationId"), sequence)));
  }

  /** These options without an application sequence. */
  public CommitOptions withoutApplicationSequence() {
    return new CommitOptions(
        maxAttempts, timeout, initialBackoff, maxBackoff, properties, idempotenceKey, Optional.empty());
  }
}
